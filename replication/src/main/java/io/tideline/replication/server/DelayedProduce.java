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
 * An acks=all produce whose records are on the leader, waiting for the high watermark to pass each
 * partition's last offset. A partition completes with NONE, NOT_ENOUGH_REPLICAS_AFTER_APPEND (the ISR fell
 * below min.insync.replicas meanwhile), NOT_LEADER_OR_FOLLOWER (leadership moved: the records may be
 * truncated), or REQUEST_TIMED_OUT when the timeout passes first.
 */
final class DelayedProduce extends DelayedOperation {
    /** A partition appended at {@code leaderEpoch}, still waiting unless {@code done}. */
    private static final class Pending {
        private ProduceResult result;
        private final int leaderEpoch;
        private boolean done;

        Pending(ProduceResult result, int leaderEpoch, boolean done) {
            this.result = result;
            this.leaderEpoch = leaderEpoch;
            this.done = done;
        }
    }

    private final Map<TopicPartition, Pending> partitions = new LinkedHashMap<>();
    private final Function<TopicPartition, Optional<Partition>> lookup;
    private final CompletableFuture<Map<TopicPartition, ProduceResult>> future;

    DelayedProduce(long timeoutMs, Function<TopicPartition, Optional<Partition>> lookup,
                   CompletableFuture<Map<TopicPartition, ProduceResult>> future) {
        super(timeoutMs);
        this.lookup = lookup;
        this.future = future;
    }

    /** Adds a partition before the operation is watched: appended (waits) or already answered (error). */
    void add(TopicPartition tp, ProduceResult result, int leaderEpoch) {
        partitions.put(tp, new Pending(result, leaderEpoch, result.error() != Errors.NONE));
    }

    @Override
    protected boolean tryComplete() {
        boolean allDone = true;
        for (Map.Entry<TopicPartition, Pending> e : partitions.entrySet()) {
            Pending p = e.getValue();
            if (p.done) {
                continue;
            }
            Optional<Errors> status = lookup.apply(e.getKey())
                    .map(partition -> partition.appendCompletion(p.result.lastOffset(), p.leaderEpoch))
                    .orElse(Optional.of(Errors.NOT_LEADER_OR_FOLLOWER));
            if (status.isPresent()) {
                p.done = true;
                if (status.get() != Errors.NONE) {
                    p.result = p.result.withError(status.get(), describe(e.getKey(), status.get()));
                }
            } else {
                allDone = false;
            }
        }
        return allDone && forceComplete();
    }

    private static String describe(TopicPartition tp, Errors error) {
        return switch (error) {
            case NOT_ENOUGH_REPLICAS_AFTER_APPEND -> "the ISR of " + tp
                    + " shrank below min.insync.replicas after the records were written";
            case NOT_LEADER_OR_FOLLOWER -> "leadership of " + tp + " moved before the records were replicated";
            default -> error.defaultMessage();
        };
    }

    @Override
    protected void onComplete(boolean expired) {
        Map<TopicPartition, ProduceResult> answer = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, Pending> e : partitions.entrySet()) {
            Pending p = e.getValue();
            if (!p.done) {
                // The leader attempted the write; it may still become committed later.
                p.result = p.result.withError(Errors.REQUEST_TIMED_OUT, "the high watermark of " + e.getKey()
                        + " did not pass offset " + p.result.lastOffset() + " within " + timeoutMs() + " ms");
            }
            answer.put(e.getKey(), p.result);
        }
        future.complete(answer);
    }
}
