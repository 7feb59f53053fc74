package io.tideline.client;

import io.tideline.common.TopicPartition;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The idempotent producer's state (docs/client.md, "Idempotence"): its producer id and epoch, and per partition
 * the next sequence number and the batches sequenced but not answered for good ("unresolved"), in sequence order.
 * A batch gets its sequence when it is first drained and keeps it across retries, so a leader that wrote it
 * already answers the retry with the original offset.
 *
 * <p>A sequenced batch that fails for good leaves a hole the leader will not accept past; then the producer bumps
 * its epoch ({@link #requestBump}), which restarts every partition at sequence 0. The bump waits until no batch
 * sequenced under the old epoch is unresolved, and no new batch is sequenced meanwhile, so a batch of the new
 * epoch never overtakes one of the old.
 *
 * <p>Thread-safe (its own monitor); the accumulator calls it under its lock, never the other way round.
 */
final class ProducerIdempotence {
    private long producerId = -1;
    private short epoch = -1;
    private boolean bumpRequired;
    /** Counts sequence assignments, so that batches sort in sequence order even where sequences wrap. */
    private long assignments;
    private final Map<TopicPartition, PartitionState> partitions = new HashMap<>();

    private static final class PartitionState {
        int nextSequence;
        /** The partition's leader has acknowledged a batch of the current epoch (it knows this producer). */
        boolean acknowledged;
        final Deque<ProducerBatch> unresolved = new ArrayDeque<>();
    }

    synchronized boolean hasProducerId() {
        return producerId >= 0;
    }

    synchronized long producerId() {
        return producerId;
    }

    synchronized short epoch() {
        return epoch;
    }

    /** A producer id is needed: none yet, or a bump whose old-epoch batches are all resolved. */
    synchronized boolean needsInitProducerId() {
        return producerId < 0 || (bumpRequired && partitions.values().stream().allMatch(p -> p.unresolved.isEmpty()));
    }

    /** Whether a batch without a sequence may get one now. */
    synchronized boolean maySequence() {
        return producerId >= 0 && !bumpRequired;
    }

    /**
     * Whether the partition's leader is known to have state for this producer: until then only one batch of the
     * partition is in flight, since a leader accepts any sequence from a producer it has no state for, and a
     * second batch overtaking the first would be written ahead of it.
     */
    synchronized boolean acknowledged(TopicPartition tp) {
        PartitionState p = partitions.get(tp);
        return p != null && p.acknowledged;
    }

    /** Gives {@code batch} the partition's next sequence (Kafka's wrap-around at Integer.MAX_VALUE). */
    synchronized void assign(ProducerBatch batch) {
        PartitionState p = partitions.computeIfAbsent(batch.tp, k -> new PartitionState());
        batch.setProducer(producerId, epoch, p.nextSequence, ++assignments);
        p.nextSequence = incrementSequence(p.nextSequence, batch.recordCount());
        p.unresolved.addLast(batch);
    }

    static int incrementSequence(int sequence, int increment) {
        return sequence > Integer.MAX_VALUE - increment ? increment - (Integer.MAX_VALUE - sequence) - 1 : sequence + increment;
    }

    /** The leader wrote {@code batch} (or had it already). */
    synchronized void acknowledged(ProducerBatch batch) {
        PartitionState p = partitions.get(batch.tp);
        if (p != null && batch.producerEpoch == epoch && batch.producerId == producerId) {
            p.acknowledged = true;
        }
        resolved(batch);
    }

    /** {@code batch} has its final answer (success or failure). */
    synchronized void resolved(ProducerBatch batch) {
        PartitionState p = partitions.get(batch.tp);
        if (p != null) {
            p.unresolved.removeIf(b -> b == batch);
        }
    }

    /** Whether no batch sequenced before {@code batch} in its partition is still unresolved. */
    synchronized boolean isFirstUnresolved(ProducerBatch batch) {
        PartitionState p = partitions.get(batch.tp);
        return p == null || p.unresolved.isEmpty() || p.unresolved.peekFirst() == batch;
    }

    /** The unresolved batches of {@code batch}'s partition sequenced after it, in order. */
    synchronized List<ProducerBatch> unresolvedAfter(ProducerBatch batch) {
        PartitionState p = partitions.get(batch.tp);
        List<ProducerBatch> after = new ArrayList<>();
        if (p != null) {
            p.unresolved.stream().filter(b -> b.sequenceOrder > batch.sequenceOrder).forEach(after::add);
        }
        return after;
    }

    synchronized void requestBump() {
        bumpRequired = true;
    }

    synchronized boolean bumpRequired() {
        return bumpRequired;
    }

    /** InitProducerId answered: a new id or a new epoch; every partition starts at sequence 0 again. */
    synchronized void setProducerIdAndEpoch(long id, short newEpoch) {
        producerId = id;
        epoch = newEpoch;
        bumpRequired = false;
        partitions.values().removeIf(p -> p.unresolved.isEmpty());
        partitions.values().forEach(p -> {
            p.nextSequence = 0;
            p.acknowledged = false;
        });
    }
}
