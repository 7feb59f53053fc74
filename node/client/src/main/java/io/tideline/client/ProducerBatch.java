package io.tideline.client;

import io.tideline.common.TopicPartition;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The records of one partition that travel together, with their futures. A record is encoded into the
 * batch when it is appended, so the caller's key and value arrays are free again when {@code send()}
 * returns (as with Kafka's producer). Appends happen under the accumulator's lock; once drained, the
 * batch belongs to the one request carrying it.
 */
final class ProducerBatch {
    /** The v2 batch header. */
    static final int BATCH_OVERHEAD = 61;
    /** An upper bound on a record's framing: length, attributes, timestamp and offset deltas, lengths, headers. */
    static final int RECORD_OVERHEAD = 32;

    private record Entry(long timestamp, CompletableFuture<RecordMetadata> future) {
    }

    final TopicPartition tp;
    final long createdMs;
    private final List<Entry> entries = new ArrayList<>();
    /** Encodes the records as they come; dropped once the batch is built, so only one copy stays. */
    private RecordBatchBuilder builder = new RecordBatchBuilder(0L);
    /** Built once, when the batch is first sent; a retry sends the same bytes. */
    private MemoryRecords built;
    private int estimatedSize = BATCH_OVERHEAD;
    /** The buffer.memory its records took: their estimated sizes without the batch header. */
    private int reservedBytes;
    private boolean closed;
    int attempts;
    long retryAtMs;
    Throwable lastError;
    /** Idempotence: set at the first drain and kept across retries (the leader dedupes by them). */
    long producerId = -1;
    short producerEpoch = -1;
    int baseSequence = -1;
    /** The order sequences were handed out in ({@link ProducerIdempotence}); sorts retries. */
    long sequenceOrder;
    /**
     * An earlier batch of the partition failed for good, so this one, already in flight, cannot be written after
     * it: it fails with this unless its answer is a success.
     */
    TidelineClientException doomed;
    /**
     * Whether, when last sent, no earlier batch of its partition was unresolved: only then does
     * OUT_OF_ORDER_SEQUENCE_NUMBER mean the leader lost track, rather than that this batch overtook an earlier one.
     */
    boolean sentAsFirst;

    ProducerBatch(TopicPartition tp, long createdMs) {
        this.tp = tp;
        this.createdMs = createdMs;
    }

    static int estimateRecordSize(byte[] key, byte[] value) {
        return RECORD_OVERHEAD + (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
    }

    /** Appends unless that would take the batch past {@code batchSize}; an empty batch takes any record. */
    boolean tryAppend(long timestamp, byte[] key, byte[] value, CompletableFuture<RecordMetadata> future,
                      int batchSize) {
        int size = estimateRecordSize(key, value);
        if (closed || (!entries.isEmpty() && estimatedSize + size > batchSize)) {
            closed = true;
            return false;
        }
        builder.append(timestamp, key, value);
        entries.add(new Entry(timestamp, future));
        estimatedSize += size;
        reservedBytes += size;
        if (estimatedSize >= batchSize) {
            closed = true;
        }
        return true;
    }

    boolean hasSequence() {
        return baseSequence >= 0;
    }

    /** Stamps the producer id, epoch and base sequence into the batch header; once, before it is built. */
    void setProducer(long id, short epoch, int sequence, long order) {
        if (built != null) {
            throw new IllegalStateException("batch for " + tp + " is built already");
        }
        builder.producer(id, epoch, sequence);
        producerId = id;
        producerEpoch = epoch;
        baseSequence = sequence;
        sequenceOrder = order;
    }

    /** No more records will fit (or it was drained): the batch is ready regardless of linger.ms. */
    boolean isFull() {
        return closed;
    }

    void close() {
        closed = true;
    }

    int recordCount() {
        return entries.size();
    }

    int estimatedSize() {
        return estimatedSize;
    }

    int reservedBytes() {
        return reservedBytes;
    }

    /**
     * The wire form: offsets from 0, which the leader replaces with the ones it assigns. Built once the
     * batch is closed; the leader rewrites offsets in its own copy, so a retry can send these bytes again.
     */
    MemoryRecords toRecords() {
        if (built == null) {
            built = builder.buildRecords();
            builder = null;
        }
        return built;
    }

    List<CompletableFuture<RecordMetadata>> futures() {
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>(entries.size());
        entries.forEach(e -> futures.add(e.future()));
        return futures;
    }

    /** Completes every record's future: record i is at {@code baseOffset + i} (-1 throughout when unknown). */
    void complete(long baseOffset) {
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            e.future().complete(new RecordMetadata(tp.topic(), tp.partition(), baseOffset < 0 ? -1 : baseOffset + i,
                    e.timestamp()));
        }
    }

    void fail(RuntimeException error) {
        entries.forEach(e -> e.future().completeExceptionally(error));
    }

    boolean isDone() {
        return !entries.isEmpty() && entries.get(entries.size() - 1).future().isDone();
    }
}
