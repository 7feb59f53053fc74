package io.tideline.replication.server;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.replication.purgatory.DelayedOperation;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * DeleteRecords after the leader moved its log start offset: waits until the low watermark (the minimum
 * log start offset over the live replicas) reaches each partition's target. On timeout a partition
 * answers REQUEST_TIMED_OUT with the low watermark reached so far.
 */
final class DelayedDeleteRecords extends DelayedOperation {
    private static final class Pending {
        private final long target;
        private DeleteRecordsPartitionResult result;

        Pending(long target, DeleteRecordsPartitionResult result) {
            this.target = target;
            this.result = result;
        }
    }

    private final Map<TopicPartition, Pending> partitions = new LinkedHashMap<>();
    private final Function<TopicPartition, Optional<Long>> lowWatermark;
    private final CompletableFuture<Map<TopicPartition, DeleteRecordsPartitionResult>> future;

    /** @param lowWatermark the current low watermark of a partition this broker leads, empty otherwise */
    DelayedDeleteRecords(long timeoutMs, Function<TopicPartition, Optional<Long>> lowWatermark,
                         CompletableFuture<Map<TopicPartition, DeleteRecordsPartitionResult>> future) {
        super(timeoutMs);
        this.lowWatermark = lowWatermark;
        this.future = future;
    }

    /** A partition whose leader moved to {@code target}; null result = still waiting. */
    void addWaiting(TopicPartition tp, long target) {
        partitions.put(tp, new Pending(target, null));
    }

    void addAnswered(TopicPartition tp, DeleteRecordsPartitionResult result) {
        partitions.put(tp, new Pending(-1L, result));
    }

    @Override
    protected boolean tryComplete() {
        boolean allDone = true;
        for (Map.Entry<TopicPartition, Pending> e : partitions.entrySet()) {
            Pending p = e.getValue();
            if (p.result != null) {
                continue;
            }
            Optional<Long> low = lowWatermark.apply(e.getKey());
            if (low.isEmpty()) {
                p.result = DeleteRecordsPartitionResult.error(Errors.NOT_LEADER_OR_FOLLOWER,
                        "leadership of " + e.getKey() + " moved while waiting for the followers");
            } else if (low.get() >= p.target) {
                p.result = new DeleteRecordsPartitionResult(Errors.NONE, low.get(), null);
            } else {
                allDone = false;
            }
        }
        return allDone && forceComplete();
    }

    @Override
    protected void onComplete(boolean expired) {
        Map<TopicPartition, DeleteRecordsPartitionResult> answer = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, Pending> e : partitions.entrySet()) {
            Pending p = e.getValue();
            if (p.result == null) {
                long reached = lowWatermark.apply(e.getKey()).orElse(-1L);
                p.result = new DeleteRecordsPartitionResult(Errors.REQUEST_TIMED_OUT, reached,
                        "the low watermark of " + e.getKey() + " reached " + reached + ", not " + p.target
                                + ", within " + timeoutMs() + " ms (a live follower has not caught up its start offset)");
            }
            answer.put(e.getKey(), p.result);
        }
        future.complete(answer);
    }
}
