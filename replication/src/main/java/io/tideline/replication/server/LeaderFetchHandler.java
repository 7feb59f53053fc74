package io.tideline.replication.server;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import io.tideline.replication.fetcher.ReplicationQuota;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.purgatory.DelayedOperations;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The leader's side of replica fetches: validates and reads each partition, records the follower's
 * position, and long-polls (parks the fetch in a purgatory) while there is less than min.bytes to send
 * and nothing new for the follower.
 */
final class LeaderFetchHandler {
    /** What the manager must do after a follower moved: trigger waiters, send ISR expansions. */
    interface FetchListener {
        void onFollowerFetched(Partition partition, Partition.FollowerFetchResult result);
    }

    private final Function<TopicPartition, Optional<Partition>> partitions;
    private final DelayedOperations<TopicPartition> purgatory;
    private final ReplicationQuota leaderQuota;
    private final Time time;
    private final FetchListener listener;
    private final java.util.function.IntPredicate eligibleForIsr;

    LeaderFetchHandler(Function<TopicPartition, Optional<Partition>> partitions,
                       DelayedOperations<TopicPartition> purgatory, ReplicationQuota leaderQuota, Time time,
                       FetchListener listener, java.util.function.IntPredicate eligibleForIsr) {
        this.eligibleForIsr = eligibleForIsr;
        this.partitions = partitions;
        this.purgatory = purgatory;
        this.leaderQuota = leaderQuota;
        this.time = time;
        this.listener = listener;
    }

    DelayedOperations<TopicPartition> purgatory() {
        return purgatory;
    }

    CompletableFuture<Map<TopicPartition, FetchResponseData>> fetch(int replicaId, List<FollowerFetch> fetches,
                                                                    int minBytes, int maxBytes, int maxWaitMs) {
        CompletableFuture<Map<TopicPartition, FetchResponseData>> future = new CompletableFuture<>();
        Round first = read(replicaId, fetches, maxBytes, true);
        if (maxWaitMs <= 0 || first.bytes >= minBytes || first.error || first.news || fetches.isEmpty()) {
            future.complete(first.results);
            return future;
        }
        // Bytes held back by the leader throttle: read again once the quota has room, not at the end of
        // the long poll (that would slow the catch-up below the configured rate).
        long waitMs = first.withheld ? Math.min(maxWaitMs, Math.max(1, leaderQuota.throttleTimeMs())) : maxWaitMs;
        DelayedReplicaFetch delayed = new DelayedReplicaFetch(waitMs, fetches,
                parked -> ready(replicaId, parked, minBytes), () -> read(replicaId, fetches, maxBytes, false).results, future);
        purgatory.tryCompleteElseWatch(delayed, delayed.keys());
        return future;
    }

    /**
     * One pass over the partitions of a fetch.
     *
     * @param error    a partition answered with an error or a diverging epoch
     * @param news     a partition's high watermark or log start offset is ahead of the follower's; not
     *                 counted for a partition whose bytes the throttle held back, since a catching-up
     *                 follower's high watermark always lags and it would spin on empty answers
     * @param withheld the leader throttle held back bytes a partition had for the follower
     */
    private record Round(Map<TopicPartition, FetchResponseData> results, int bytes, boolean error, boolean news,
                         boolean withheld) {
    }

    /** @param firstRead the fetch just arrived (record the follower's position) rather than being answered late */
    private Round read(int replicaId, List<FollowerFetch> fetches, int maxBytes, boolean firstRead) {
        Map<TopicPartition, FetchResponseData> results = new LinkedHashMap<>();
        int bytes = 0;
        boolean error = false;
        boolean news = false;
        boolean withheld = false;
        long nowMs = time.milliseconds();
        for (FollowerFetch fetch : fetches) {
            Optional<Partition> partition = partitions.apply(fetch.topicPartition());
            if (partition.isEmpty()) {
                results.put(fetch.topicPartition(), FetchResponseData.error(Errors.NOT_LEADER_OR_FOLLOWER, -1, -1, -1));
                error = true;
                continue;
            }
            Partition p = partition.get();
            // Bytes to an out-of-sync follower of a throttled partition count against the leader's quota.
            boolean quotaApplies = p.settings().map(PartitionSettings::leaderThrottled).orElse(false)
                    && !p.isr().contains(replicaId);
            boolean throttled = quotaApplies && leaderQuota.isExceeded();
            int remaining = Math.max(0, maxBytes - bytes);
            Partition.FollowerFetchResult result = p.fetchForFollower(replicaId, fetch, remaining, bytes == 0,
                    throttled, firstRead, eligibleForIsr.test(replicaId), nowMs);
            FetchResponseData data = result.response();
            int size = data.records().sizeInBytes();
            if (size > 0 && quotaApplies) {
                leaderQuota.record(size);
            }
            bytes += size;
            results.put(fetch.topicPartition(), data);
            boolean partitionWithheld = false;
            if (data.error() != Errors.NONE || data.divergingEpoch().isPresent()) {
                error = true;
            } else if (throttled && size == 0 && fetch.fetchOffset() < data.leaderLogEndOffset()) {
                partitionWithheld = true;
                withheld = true;
            }
            if (!partitionWithheld && (data.leaderHighWatermark() > fetch.highWatermark()
                    || data.leaderLogStartOffset() > fetch.logStartOffset())) {
                news = true;
            }
            if (result.followerStateChanged()) {
                listener.onFollowerFetched(p, result);
            }
        }
        return new Round(results, bytes, error, news, withheld);
    }

    /** Whether a parked fetch has min.bytes to read or news; reads only sizes, copies nothing. */
    private boolean ready(int replicaId, List<FollowerFetch> fetches, int minBytes) {
        long bytes = 0;
        for (FollowerFetch fetch : fetches) {
            Optional<Partition> partition = partitions.apply(fetch.topicPartition());
            if (partition.isEmpty() || partition.get().leaderEpoch() != fetch.currentLeaderEpoch()) {
                return true;
            }
            Partition p = partition.get();
            Log log = p.log();
            // As in read(): bytes the throttle holds back, and the news of their partition, do not count.
            boolean withheld = p.settings().map(PartitionSettings::leaderThrottled).orElse(false)
                    && leaderQuota.isExceeded() && !p.isr().contains(replicaId);
            if (!withheld && (log.highWatermark() > fetch.highWatermark() || log.logStartOffset() > fetch.logStartOffset())) {
                return true;
            }
            long end = log.logEndOffset();
            if (end < fetch.fetchOffset() || log.logStartOffset() > fetch.fetchOffset()) {
                return true;
            }
            if (end > fetch.fetchOffset() && !withheld) {
                bytes += availableBytes(log, fetch.fetchOffset(), fetch.maxBytes(), end);
            }
            if (bytes >= minBytes) {
                return true;
            }
        }
        return false;
    }

    /**
     * Bytes a fetch would read from {@code offset} below {@code bound}: sizes only, nothing copied. Out
     * of range by now (retention moved the start) counts as plenty: answer, and the re-read reports it.
     * Shared with consumer fetches, which wait the same way.
     */
    static long availableBytes(Log log, long offset, int maxBytes, long bound) {
        try (FetchDataInfo info = log.read(offset, maxBytes, bound, true)) {
            return info.records().sizeInBytes();
        } catch (RuntimeException e) {
            return Integer.MAX_VALUE;
        }
    }
}
