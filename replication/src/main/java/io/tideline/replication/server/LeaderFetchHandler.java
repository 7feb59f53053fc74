package io.tideline.replication.server;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import io.tideline.replication.fetcher.ReplicationQuota;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerFetch;
import io.tideline.replication.purgatory.DelayedOperations;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The leader's side of replica fetches: validates and reads each partition, records the follower's
 * position, and long-polls (parks the fetch in a purgatory) while there is less than min.bytes to send
 * and nothing new for the follower.
 */
final class LeaderFetchHandler implements AutoCloseable {
    /**
     * How long a parked replica fetch whose only news is a higher high watermark waits for an append to
     * carry that news with records ({@link DelayedReplicaFetch}). Measured on three brokers on two cores
     * under Kafka's producer at one partition (docs/performance.md): waking the fetch at once makes every
     * acks=all produce cost each follower two fetch round trips, one of them empty, and takes a third of the
     * leader's CPU. Appends under load come every few milliseconds; a follower of an idle partition learns
     * the high watermark this much later than it would otherwise.
     */
    static final long HIGH_WATERMARK_NEWS_DELAY_MS = 20;

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
    private final long highWatermarkNewsDelayMs;
    /** Checks again, on the real clock, fetches parked with high watermark news only; one daemon thread. */
    private final ScheduledThreadPoolExecutor nudges;

    LeaderFetchHandler(Function<TopicPartition, Optional<Partition>> partitions,
                       DelayedOperations<TopicPartition> purgatory, ReplicationQuota leaderQuota, Time time,
                       FetchListener listener, java.util.function.IntPredicate eligibleForIsr,
                       long highWatermarkNewsDelayMs) {
        this.eligibleForIsr = eligibleForIsr;
        this.highWatermarkNewsDelayMs = highWatermarkNewsDelayMs;
        this.nudges = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "replica-fetch-high-watermark-news");
            t.setDaemon(true);
            return t;
        });
        // A fetch answered some other way cancels its check, which then leaves the queue at once: under load
        // nearly every check is cancelled, and the queue holds only fetches still parked.
        nudges.setRemoveOnCancelPolicy(true);
        nudges.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
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
        // A higher high watermark alone parks too, for a short while (DelayedReplicaFetch).
        if (maxWaitMs <= 0 || first.bytes >= minBytes || first.error || first.news || fetches.isEmpty()) {
            future.complete(first.results);
            return future;
        }
        // Bytes held back by the leader throttle: read again once the quota has room, not at the end of
        // the long poll (that would slow the catch-up below the configured rate).
        long waitMs = first.withheld ? Math.min(maxWaitMs, Math.max(1, leaderQuota.throttleTimeMs())) : maxWaitMs;
        List<TopicPartition> keys = fetches.stream().map(FollowerFetch::topicPartition).toList();
        DelayedReplicaFetch delayed = new DelayedReplicaFetch(waitMs, fetches,
                parked -> ready(replicaId, parked, minBytes), () -> read(replicaId, fetches, maxBytes, false).results, future,
                highWatermarkNewsDelayMs, nanos -> nudge(keys, nanos));
        purgatory.tryCompleteElseWatch(delayed, keys);
        return future;
    }

    /** Checks the fetches parked on {@code keys} again after {@code afterNanos}; returns what cancels that. */
    private Runnable nudge(List<TopicPartition> keys, long afterNanos) {
        try {
            java.util.concurrent.ScheduledFuture<?> check = nudges.schedule(
                    () -> keys.forEach(purgatory::checkAndComplete), afterNanos, TimeUnit.NANOSECONDS);
            return () -> check.cancel(false);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // Closing: the purgatory's shutdown answers every parked fetch.
            return () -> { };
        }
    }

    /** Checks armed for high watermark news and not yet due or cancelled (tests: bounded by the parked fetches). */
    int pendingHighWatermarkChecks() {
        return nudges.getQueue().size();
    }

    @Override
    public void close() {
        nudges.shutdownNow();
    }

    /**
     * One pass over the partitions of a fetch.
     *
     * @param error    a partition answered with an error or a diverging epoch
     * @param news     a partition's log start offset is ahead of the follower's; not counted for a
     *                 partition whose bytes the throttle held back, since a catching-up follower's
     *                 positions always lag and it would spin on empty answers
     *                 (a higher high watermark alone is news that waits a little: {@link DelayedReplicaFetch})
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
            if (!partitionWithheld && data.leaderLogStartOffset() > fetch.logStartOffset()) {
                news = true;
            }
            if (result.followerStateChanged()) {
                listener.onFollowerFetched(p, result);
            }
        }
        return new Round(results, bytes, error, news, withheld);
    }

    /** Whether a parked fetch has min.bytes to read or news; reads only sizes, copies nothing. */
    private DelayedReplicaFetch.Readiness ready(int replicaId, List<FollowerFetch> fetches, int minBytes) {
        long bytes = 0;
        boolean highWatermarkNews = false;
        for (FollowerFetch fetch : fetches) {
            Optional<Partition> partition = partitions.apply(fetch.topicPartition());
            if (partition.isEmpty() || partition.get().leaderEpoch() != fetch.currentLeaderEpoch()) {
                return DelayedReplicaFetch.Readiness.READY;
            }
            Partition p = partition.get();
            Log log = p.log();
            // As in read(): bytes the throttle holds back, and the news of their partition, do not count.
            boolean withheld = p.settings().map(PartitionSettings::leaderThrottled).orElse(false)
                    && leaderQuota.isExceeded() && !p.isr().contains(replicaId);
            if (!withheld && log.logStartOffset() > fetch.logStartOffset()) {
                return DelayedReplicaFetch.Readiness.READY;
            }
            highWatermarkNews |= !withheld && log.highWatermark() > fetch.highWatermark();
            long end = log.logEndOffset();
            if (end < fetch.fetchOffset() || log.logStartOffset() > fetch.fetchOffset()) {
                return DelayedReplicaFetch.Readiness.READY;
            }
            if (end > fetch.fetchOffset() && !withheld) {
                bytes += availableBytes(log, fetch.fetchOffset(), fetch.maxBytes(), end);
            }
            if (bytes >= minBytes) {
                return DelayedReplicaFetch.Readiness.READY;
            }
        }
        return highWatermarkNews ? DelayedReplicaFetch.Readiness.HIGH_WATERMARK_ONLY : DelayedReplicaFetch.Readiness.NOTHING;
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
