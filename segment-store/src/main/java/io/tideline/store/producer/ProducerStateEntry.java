package io.tideline.store.producer;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * One producer id's state in one partition: its epoch, the metadata of its last
 * {@link #NUM_BATCHES_TO_RETAIN} batches (oldest first), the timestamp the client gave the last one and
 * when this replica wrote it by its own clock (what expiry counts from, docs/behaviours.md B151). Five is
 * Kafka's number: the producer keeps at most max.in.flight.requests.per.connection = 5 batches in
 * flight per partition, so any retry it can send is one of these. Not thread-safe; the log's lock
 * guards it.
 */
public final class ProducerStateEntry {
    public static final int NUM_BATCHES_TO_RETAIN = 5;

    private final long producerId;
    private short producerEpoch;
    private long lastTimestamp;
    private long lastAppendTimeMs;
    private final Deque<BatchMetadata> batches = new ArrayDeque<>(NUM_BATCHES_TO_RETAIN);

    ProducerStateEntry(long producerId, short producerEpoch, long lastTimestamp) {
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
        this.lastTimestamp = lastTimestamp;
        this.lastAppendTimeMs = lastTimestamp;
    }

    public long producerId() {
        return producerId;
    }

    public short producerEpoch() {
        return producerEpoch;
    }

    /** The client's max timestamp of the last batch (what DescribeProducers reports, as in Kafka). */
    public long lastTimestamp() {
        return lastTimestamp;
    }

    /**
     * The broker's clock when this replica last wrote a batch of this producer; after a reload, the
     * earlier of the last batch's timestamp and the reload time (snapshots keep only the timestamp).
     */
    public long lastAppendTimeMs() {
        return lastAppendTimeMs;
    }

    void capAppendTime(long nowMs) {
        lastAppendTimeMs = Math.min(lastAppendTimeMs, nowMs);
    }

    /** The last sequence written, or -1 if no batch is remembered. */
    public int lastSeq() {
        return batches.isEmpty() ? -1 : batches.getLast().lastSeq();
    }

    /** The last offset written, or -1 if no batch is remembered. */
    public long lastOffset() {
        return batches.isEmpty() ? -1L : batches.getLast().lastOffset();
    }

    public List<BatchMetadata> batches() {
        return List.copyOf(batches);
    }

    /** The remembered batch with exactly this epoch and sequence range: the batch a retry repeats. */
    Optional<BatchMetadata> findDuplicate(short epoch, int firstSeq, int lastSeq) {
        if (epoch != producerEpoch) {
            return Optional.empty();
        }
        for (BatchMetadata b : batches) {
            if (b.firstSeq() == firstSeq && b.lastSeq() == lastSeq) {
                return Optional.of(b);
            }
        }
        return Optional.empty();
    }

    /**
     * Adds a batch written at {@code appendTimeMs} by the broker's clock; a new epoch forgets the old epoch's
     * batches, as its sequences restart at 0.
     */
    void addBatch(short epoch, BatchMetadata batch, long appendTimeMs) {
        if (epoch != producerEpoch) {
            batches.clear();
            producerEpoch = epoch;
        }
        if (batches.size() == NUM_BATCHES_TO_RETAIN) {
            batches.removeFirst();
        }
        batches.addLast(batch);
        lastTimestamp = batch.timestamp();
        lastAppendTimeMs = appendTimeMs;
    }

    ProducerStateEntry copy() {
        ProducerStateEntry copy = new ProducerStateEntry(producerId, producerEpoch, lastTimestamp);
        copy.lastAppendTimeMs = lastAppendTimeMs;
        copy.batches.addAll(batches);
        return copy;
    }

    /** Compares what a snapshot keeps: the append time is this replica's and is not written. */
    @Override
    public boolean equals(Object o) {
        return o instanceof ProducerStateEntry e && e.producerId == producerId && e.producerEpoch == producerEpoch
                && e.lastTimestamp == lastTimestamp && List.copyOf(e.batches).equals(List.copyOf(batches));
    }

    @Override
    public int hashCode() {
        return Long.hashCode(producerId) * 31 + producerEpoch;
    }

    @Override
    public String toString() {
        return "ProducerStateEntry(id=" + producerId + ", epoch=" + producerEpoch + ", lastTimestamp=" + lastTimestamp
                + ", lastAppendTimeMs=" + lastAppendTimeMs + ", batches=" + batches + ")";
    }
}
