package io.tideline.replication.server;

import io.tideline.common.TopicPartition;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.purgatory.DelayedOperation;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A replica fetch parked at the leader (long poll): it had fewer than replica.fetch.min.bytes to send and
 * nothing new for the follower. Completes when enough bytes arrived, when a partition has news (higher
 * high watermark or log start offset than the follower reported, an error such as a leadership change),
 * or at replica.fetch.wait.max.ms; then the fetch is read again and answered.
 */
final class DelayedReplicaFetch extends DelayedOperation {
    private final List<FollowerFetch> fetches;
    private final ReadinessCheck readiness;
    private final Supplier<Map<TopicPartition, FetchResponseData>> reread;
    private final CompletableFuture<Map<TopicPartition, FetchResponseData>> future;

    /** Whether a parked fetch can be answered now. */
    @FunctionalInterface
    interface ReadinessCheck {
        boolean ready(List<FollowerFetch> fetches);
    }

    DelayedReplicaFetch(long timeoutMs, List<FollowerFetch> fetches, ReadinessCheck readiness,
                        Supplier<Map<TopicPartition, FetchResponseData>> reread,
                        CompletableFuture<Map<TopicPartition, FetchResponseData>> future) {
        super(timeoutMs);
        this.fetches = List.copyOf(fetches);
        this.readiness = readiness;
        this.reread = reread;
        this.future = future;
    }

    List<TopicPartition> keys() {
        return fetches.stream().map(FollowerFetch::topicPartition).toList();
    }

    @Override
    protected boolean tryComplete() {
        return readiness.ready(fetches) && forceComplete();
    }

    @Override
    protected void onComplete(boolean expired) {
        try {
            future.complete(reread.get());
        } catch (RuntimeException e) {
            future.completeExceptionally(e);
        }
    }
}
