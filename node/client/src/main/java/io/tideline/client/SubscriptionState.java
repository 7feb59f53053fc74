package io.tideline.client;

import io.tideline.common.TopicPartition;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Per assigned partition: the position (next offset to return), a pending reset (seekToBeginning/End
 * or no position yet), the last bounds the leader reported, and the records fetched but not yet
 * returned. Not thread-safe: owned by the consumer's single thread.
 */
final class SubscriptionState {

    static final class PartitionState {
        Long position;
        OffsetResetStrategy pendingReset;
        long logStartOffset = -1;
        long highWatermark = -1;
        /** Fetched records at or after the position, in offset order. */
        final Deque<ConsumerRecord> buffered = new ArrayDeque<>();
        /** The offset after the last fetched batch: where the position goes once the buffer is drained. */
        long bufferedUpTo = -1;
        /** When this partition may be fetched again after a retriable error. */
        long retryAtMs;
        /** Bumped by every seek and reset: answers to fetches sent before it are dropped. */
        int seekEpoch;

        boolean hasBuffer() {
            return bufferedUpTo >= 0;
        }

        void clearBuffer() {
            buffered.clear();
            bufferedUpTo = -1;
        }
    }

    private final Map<TopicPartition, PartitionState> partitions = new LinkedHashMap<>();

    /** Replaces the assignment; partitions kept keep their position. */
    void assign(Collection<TopicPartition> assignment) {
        Map<TopicPartition, PartitionState> kept = new LinkedHashMap<>();
        for (TopicPartition tp : assignment) {
            kept.put(tp, partitions.getOrDefault(tp, new PartitionState()));
        }
        partitions.clear();
        partitions.putAll(kept);
    }

    Set<TopicPartition> assignment() {
        return partitions.keySet();
    }

    Map<TopicPartition, PartitionState> states() {
        return partitions;
    }

    PartitionState state(TopicPartition tp) {
        PartitionState state = partitions.get(tp);
        if (state == null) {
            throw new IllegalStateException("No current assignment for partition " + tp);
        }
        return state;
    }

    void seek(TopicPartition tp, long offset) {
        PartitionState state = state(tp);
        state.position = offset;
        state.pendingReset = null;
        state.seekEpoch++;
        state.clearBuffer();
    }

    void requestReset(TopicPartition tp, OffsetResetStrategy strategy) {
        PartitionState state = state(tp);
        state.pendingReset = strategy;
        state.seekEpoch++;
        state.clearBuffer();
    }

    /** Moves records out of the buffers, up to {@code max}, advancing positions past what is returned. */
    void drainBuffered(int max, List<ConsumerRecord> out) {
        for (Map.Entry<TopicPartition, PartitionState> e : partitions.entrySet()) {
            PartitionState s = e.getValue();
            if (!s.hasBuffer()) {
                continue;
            }
            while (out.size() < max && !s.buffered.isEmpty()) {
                ConsumerRecord r = s.buffered.pollFirst();
                out.add(r);
                s.position = r.offset() + 1;
            }
            if (s.buffered.isEmpty()) {
                s.position = Math.max(s.position, s.bufferedUpTo);
                s.bufferedUpTo = -1;
            }
            if (out.size() >= max) {
                return;
            }
        }
    }

    boolean hasBufferedRecords() {
        for (PartitionState s : partitions.values()) {
            if (!s.buffered.isEmpty()) {
                return true;
            }
        }
        return false;
    }
}
