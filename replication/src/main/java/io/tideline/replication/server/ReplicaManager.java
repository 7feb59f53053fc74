package io.tideline.replication.server;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.fetcher.FetcherListener;
import io.tideline.replication.fetcher.FollowerStatusView;
import io.tideline.replication.fetcher.LeaderEndpoints;
import io.tideline.replication.fetcher.ReplicaFetcherManager;
import io.tideline.replication.fetcher.ReplicationQuota;
import io.tideline.replication.follower.FailureReason;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerFetch;
import io.tideline.replication.leader.IsrProposal;
import io.tideline.replication.metrics.BrokerTopicMetrics;
import io.tideline.replication.metrics.ReplicationMetrics;
import io.tideline.replication.metrics.ReplicationStats;
import io.tideline.replication.purgatory.DelayedOperations;
import io.tideline.store.log.DeleteRecordsResult;
import io.tideline.store.log.Log;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.MemoryRecords;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicas this broker hosts and what it does with them: leads (answers replica fetches, moves the
 * high watermark, proposes ISR changes, completes acks=all produces and DeleteRecords) or follows
 * (through the {@link ReplicaFetcherManager}). Metadata drives it: {@link #applyPartitionState} for each
 * partition the controller assigned here, {@link #stopReplica} for each it took away.
 *
 * <p>Time rules (replica.lag.time.max.ms, request timeouts) run on the injected {@link Time} and
 * {@link Scheduler}, so tests drive them with a mock clock.
 *
 * <p>Thread-safe.
 */
public final class ReplicaManager implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReplicaManager.class);

    private final int brokerId;
    private final ReplicationConfig config;
    private final LogManager logManager;
    private final Time time;
    private final Scheduler scheduler;
    private final IsrChangeSender isrChangeSender;
    private final FailedReplicaReporter failedReplicaReporter;
    private final Map<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
    private final DelayedOperations<TopicPartition> producePurgatory;
    private final DelayedOperations<TopicPartition> deleteRecordsPurgatory;
    private final LeaderFetchHandler fetchHandler;
    private final ConsumerFetchHandler consumerFetchHandler;
    private final ReplicaFetcherManager fetcherManager;
    private final ReplicationQuota leaderQuota;
    private final ReplicationQuota followerQuota;
    private final ReplicationStats stats = new ReplicationStats();
    private final MetricRegistry metrics;
    private final BrokerTopicMetrics topicMetrics;
    private volatile Set<Integer> liveBrokers;
    /** Partitions whose log dir failed here: answered KAFKA_STORAGE_ERROR until the broker restarts. */
    private final Set<TopicPartition> offline = ConcurrentHashMap.newKeySet();
    private volatile StorageErrorListener storageErrorListener = (tp, e) -> { };
    private volatile Scheduler.Cancellable shrinkTask;

    public ReplicaManager(int brokerId, ReplicationConfig config, LogManager logManager, Time time, Scheduler scheduler,
                          IsrChannel isrChannel, FailedReplicaReporter failedReplicaReporter, LeaderEndpoints endpoints,
                          MetricRegistry metrics) {
        this(brokerId, config, logManager, time, scheduler, isrChannel, failedReplicaReporter, endpoints, metrics,
                LeaderFetchHandler.HIGH_WATERMARK_NEWS_DELAY_MS);
    }

    /** As above, with the time a parked replica fetch's high watermark news waits for records (tests). */
    ReplicaManager(int brokerId, ReplicationConfig config, LogManager logManager, Time time, Scheduler scheduler,
                   IsrChannel isrChannel, FailedReplicaReporter failedReplicaReporter, LeaderEndpoints endpoints,
                   MetricRegistry metrics, long highWatermarkNewsDelayMs) {
        this.brokerId = brokerId;
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.topicMetrics = new BrokerTopicMetrics(metrics);
        this.config = Objects.requireNonNull(config, "config");
        this.logManager = Objects.requireNonNull(logManager, "logManager");
        this.time = Objects.requireNonNull(time, "time");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.isrChangeSender = new IsrChangeSender(Objects.requireNonNull(isrChannel, "isrChannel"), scheduler,
                config.isrChangeTimeoutMs(), stats, this::afterLeaderStateChange);
        this.failedReplicaReporter = Objects.requireNonNull(failedReplicaReporter, "failedReplicaReporter");
        this.producePurgatory = new DelayedOperations<>("produce", scheduler);
        this.deleteRecordsPurgatory = new DelayedOperations<>("delete-records", scheduler);
        this.leaderQuota = new ReplicationQuota(config.leaderThrottledRate(), time);
        this.followerQuota = new ReplicationQuota(config.followerThrottledRate(), time);
        this.fetchHandler = new LeaderFetchHandler(this::partition, new DelayedOperations<>("replica-fetch", scheduler),
                leaderQuota, time, this::onFollowerFetched, this::isLive, highWatermarkNewsDelayMs);
        this.consumerFetchHandler = new ConsumerFetchHandler(this::partition, fetchHandler.purgatory(), offline::contains);
        this.fetcherManager = new ReplicaFetcherManager(brokerId, endpoints, config, time, followerQuota,
                new FetcherListener() {
                    @Override
                    public void onFailureChanged(TopicPartition tp, Optional<FailureReason> reason) {
                        failedReplicaReporter.report(tp, reason);
                    }

                    @Override
                    public void onStorageError(TopicPartition tp, RuntimeException error) {
                        reportStorageError(tp, error);
                    }

                    @Override
                    public void onAppended(TopicPartition tp, int bytes) {
                        topicMetrics.recordFollowerAppend(bytes);
                    }
                });
        ReplicationMetrics.register(metrics, this::partitions, stats, fetcherManager::statuses, purgatories());
    }

    /** Starts the periodic ISR shrink check (every half of replica.lag.time.max.ms, as in Kafka). */
    public void startup() {
        long period = Math.max(1, config.replicaLagTimeMaxMs() / 2);
        shrinkTask = scheduler.schedule("isr-expiration", this::maybeShrinkIsr, period, period);
    }

    public int brokerId() {
        return brokerId;
    }

    public ReplicationConfig config() {
        return config;
    }

    public Optional<Partition> partition(TopicPartition tp) {
        return Optional.ofNullable(partitions.get(tp));
    }

    public Collection<Partition> partitions() {
        return partitions.values();
    }

    public ReplicaFetcherManager fetcherManager() {
        return fetcherManager;
    }

    public ReplicationStats stats() {
        return stats;
    }

    /** Kafka's BrokerTopicMetrics of this broker. */
    public BrokerTopicMetrics topicMetrics() {
        return topicMetrics;
    }

    public ReplicationQuota leaderQuota() {
        return leaderQuota;
    }

    public ReplicationQuota followerQuota() {
        return followerQuota;
    }

    /**
     * The purgatories by Kafka's delayedOperation tag: Produce (acks=all), Fetch (replica and consumer
     * long polls share one, as in Kafka) and DeleteRecords.
     */
    public Map<String, DelayedOperations<TopicPartition>> purgatories() {
        return Map.of("Produce", producePurgatory, "Fetch", fetchHandler.purgatory(),
                "DeleteRecords", deleteRecordsPurgatory);
    }

    // ---------------------------------------------------------------- metadata

    /**
     * Applies the controller's state of a partition assigned to this broker: leads it when
     * {@code state.leaderId()} is this broker, otherwise follows the leader (or waits, with no leader).
     * Repeating a state is harmless.
     */
    public void applyPartitionState(LeaderAndIsr state, PartitionSettings settings) {
        TopicPartition tp = state.topicPartition();
        if (offline.contains(tp)) {
            log.debug("Not applying {} to {}: its log dir failed on this broker", state, tp);
            return;
        }
        Partition partition = partitions.computeIfAbsent(tp, k -> {
            // A log on disk of another topic id (one deleted while this broker was down) is set aside here and
            // the partition starts empty (docs/behaviours.md B131).
            Partition created = new Partition(k, brokerId, logManager.getOrCreateLog(k, state.topicId(),
                    settings.logOverrides()));
            ReplicationMetrics.registerPartition(metrics, created);
            return created;
        });
        if (state.leaderId() == brokerId) {
            fetcherManager.stopFollowing(tp);
            topicMetrics.leadershipChanged(tp, true);
            boolean advanced = partition.makeLeader(state, settings, config.replicaLagTimeMaxMs(), time.milliseconds());
            afterLeaderStateChange(tp, advanced);
            return;
        }
        boolean wasLeader = partition.isLeader();
        partition.makeFollower(state, settings);
        topicMetrics.leadershipChanged(tp, false);
        if (wasLeader) {
            completeAllWaiting(tp);
        }
        if (state.leaderId() == LeaderAndIsr.NO_LEADER) {
            fetcherManager.stopFollowing(tp);
        } else {
            fetcherManager.follow(tp, partition.log(), state.leaderId(), state.leaderEpoch(),
                    settings.outOfRangePolicy(), settings.followerThrottled());
        }
    }

    /**
     * A hosted partition's topic settings changed (AlterConfigs) while its leadership did not: applies
     * min.insync.replicas, the out-of-range policy, the throttles and the log overrides.
     */
    public void updateSettings(TopicPartition tp, PartitionSettings settings) {
        Partition partition = partitions.get(tp);
        if (partition == null) {
            return;
        }
        logManager.updateTopicConfig(tp.topic(), settings.logOverrides());
        boolean advanced = partition.updateSettings(settings);
        afterLeaderStateChange(tp, advanced);
        partition.metadata().filter(m -> m.leaderId() != brokerId && m.leaderId() != LeaderAndIsr.NO_LEADER)
                .ifPresent(m -> fetcherManager.follow(tp, partition.log(), m.leaderId(), m.leaderEpoch(),
                        settings.outOfRangePolicy(), settings.followerThrottled()));
    }

    /**
     * This broker no longer hosts {@code tp} (or stops): fetching and leading end, waiters are answered
     * NOT_LEADER_OR_FOLLOWER. The log stays; deleting it is the caller's (LogManager.deleteLog).
     */
    public void stopReplica(TopicPartition tp) {
        fetcherManager.stopFollowing(tp);
        Partition partition = partitions.remove(tp);
        if (partition != null) {
            partition.stop();
            topicMetrics.leadershipChanged(tp, false);
            ReplicationMetrics.removePartition(metrics, tp);
            completeAllWaiting(tp);
        }
    }

    /**
     * Where I/O errors on a local log are reported (the node takes the log dir offline). Called on the
     * thread that saw the error; the listener must hand heavy work elsewhere.
     */
    public void setStorageErrorListener(StorageErrorListener listener) {
        this.storageErrorListener = Objects.requireNonNull(listener, "listener");
    }

    void reportStorageError(TopicPartition tp, RuntimeException error) {
        log.error("Storage error on {}: {}", tp, error.getMessage());
        storageErrorListener.onStorageError(tp, error);
    }

    /**
     * The log dir of these partitions failed: they stop here (fetching, leading, waiters answered) and
     * answer KAFKA_STORAGE_ERROR from now on; metadata no longer brings them back until a restart.
     */
    public void markOffline(java.util.Collection<TopicPartition> lost) {
        for (TopicPartition tp : lost) {
            offline.add(tp);
            stopReplica(tp);
        }
    }

    public boolean isOffline(TopicPartition tp) {
        return offline.contains(tp);
    }

    /**
     * Brokers the controller considers alive (registered, not fenced). DeleteRecords waits only for live
     * followers; null (the default) counts every assigned replica as live.
     */
    public void updateLiveBrokers(Set<Integer> brokers) {
        this.liveBrokers = brokers == null ? null : Set.copyOf(brokers);
        for (TopicPartition tp : partitions.keySet()) {
            deleteRecordsPurgatory.checkAndComplete(tp);
        }
    }

    /** Whether the controller considers {@code brokerId} alive; every broker is, until told otherwise. */
    private boolean isLive(int brokerId) {
        Set<Integer> live = liveBrokers;
        return live == null || live.contains(brokerId);
    }

    // ---------------------------------------------------------------- replica fetch (leader side)

    /**
     * Answers a follower's replica fetch, long-polling as the request asks; at most fetch.max.bytes of
     * records whatever it asks for.
     */
    public CompletableFuture<Map<TopicPartition, FetchResponseData>> fetchForReplica(int replicaId,
            List<FollowerFetch> fetches, int minBytes, int maxBytes, int maxWaitMs) {
        int bounded = Math.min(maxBytes, config.servedFetchMaxBytes());
        return fetchHandler.fetch(replicaId, fetches, Math.min(minBytes, bounded), bounded, maxWaitMs)
                .thenApply(results -> {
                    // Counted as answered, after any long poll: the bytes that actually go to the follower.
                    results.forEach((tp, r) -> {
                        topicMetrics.recordReplicaFetch(tp.topic(), r.error(), r.records().sizeInBytes());
                        // A read that failed on this leader's disk takes its log dir offline (docs/behaviours.md B143).
                        if (r.error() == Errors.KAFKA_STORAGE_ERROR && partitions.containsKey(tp)) {
                            reportStorageError(tp, new io.tideline.common.errors.TidelineException(r.error(),
                                    "serving replica " + replicaId + ": " + r.error().defaultMessage()));
                        }
                    });
                    return results;
                });
    }

    /**
     * A consumer fetch at the leader: records below the high watermark, long-polling with
     * fetch.min.bytes / fetch.max.wait.ms; at most the broker's fetch.max.bytes whatever it asks for.
     */
    public CompletableFuture<Map<TopicPartition, ConsumerFetchResult>> fetchForConsumer(List<ConsumerFetch> fetches,
                                                                                     int minBytes, int maxBytes,
                                                                                     int maxWaitMs) {
        return consumerFetch(fetches, minBytes, maxBytes, maxWaitMs, false);
    }

    /**
     * {@link #fetchForConsumer}, answering each partition's records as the open segment bytes
     * ({@link ConsumerFetchResult#slice()}) instead of a copy in the heap, for a writer that sends them with a
     * file transfer. The caller owns every slice of the answer and must close it whether it is sent or not.
     */
    public CompletableFuture<Map<TopicPartition, ConsumerFetchResult>> fetchForConsumerSlices(List<ConsumerFetch> fetches,
                                                                                           int minBytes, int maxBytes,
                                                                                           int maxWaitMs) {
        return consumerFetch(fetches, minBytes, maxBytes, maxWaitMs, true);
    }

    private CompletableFuture<Map<TopicPartition, ConsumerFetchResult>> consumerFetch(List<ConsumerFetch> fetches,
            int minBytes, int maxBytes, int maxWaitMs, boolean slices) {
        int bounded = Math.min(maxBytes, config.servedFetchMaxBytes());
        return consumerFetchHandler.fetch(fetches, Math.min(minBytes, bounded), bounded, maxWaitMs, slices).thenApply(results -> {
            try {
                results.forEach((tp, r) -> {
                    topicMetrics.recordConsumerFetch(tp.topic(), r.error(), r.sizeInBytes());
                    if (r.error() == Errors.KAFKA_STORAGE_ERROR && partitions.containsKey(tp)) {
                        reportStorageError(tp, new io.tideline.common.errors.TidelineException(r.error(), r.message()));
                    }
                });
            } catch (RuntimeException e) {
                // The answer will not reach the caller: nobody else could close its slices.
                ConsumerFetchHandler.closeSlices(results);
                throw e;
            }
            return results;
        });
    }

    private void onFollowerFetched(Partition partition, Partition.FollowerFetchResult result) {
        TopicPartition tp = partition.topicPartition();
        if (result.highWatermarkAdvanced()) {
            afterLeaderStateChange(tp, true);
        }
        deleteRecordsPurgatory.checkAndComplete(tp);
        result.isrExpansion().ifPresent(p -> sendIsrChange(partition, result.leaderEpoch(), p));
    }

    // ---------------------------------------------------------------- produce

    /**
     * Appends to partitions this broker leads. acks 0 and 1 answer after the local append; acks=all
     * (-1) answers once the high watermark passed each partition's records, or with
     * NOT_ENOUGH_REPLICAS (nothing written), NOT_ENOUGH_REPLICAS_AFTER_APPEND, REQUEST_TIMED_OUT.
     */
    public CompletableFuture<Map<TopicPartition, ProduceResult>> appendRecords(Map<TopicPartition, MemoryRecords> records,
                                                                               int requiredAcks, long timeoutMs) {
        CompletableFuture<Map<TopicPartition, ProduceResult>> future = new CompletableFuture<>();
        if (requiredAcks != 0 && requiredAcks != 1 && requiredAcks != -1) {
            Map<TopicPartition, ProduceResult> invalid = new LinkedHashMap<>();
            records.keySet().forEach(tp -> invalid.put(tp, ProduceResult.error(Errors.INVALID_REQUIRED_ACKS,
                    "acks must be 0, 1 or -1 (all), got " + requiredAcks)));
            future.complete(invalid);
            return future;
        }
        DelayedProduce delayed = new DelayedProduce(timeoutMs, this::partition, future);
        Map<TopicPartition, ProduceResult> immediate = new LinkedHashMap<>();
        boolean anyAppended = false;
        for (Map.Entry<TopicPartition, MemoryRecords> e : records.entrySet()) {
            TopicPartition tp = e.getKey();
            Partition partition = partitions.get(tp);
            Partition.AppendResult result = partition == null
                    ? new Partition.AppendResult(offline.contains(tp)
                    ? ProduceResult.error(Errors.KAFKA_STORAGE_ERROR, "the log dir of " + tp + " failed on broker " + brokerId)
                    : ProduceResult.error(Errors.NOT_LEADER_OR_FOLLOWER, "broker " + brokerId + " does not host " + tp), -1,
                    false, 0, 0)
                    : partition.appendAsLeader(e.getValue(), requiredAcks);
            topicMetrics.recordProduce(tp.topic(), result.result().error(), result.records(), result.bytes());
            if (result.result().error() == Errors.KAFKA_STORAGE_ERROR && partition != null) {
                reportStorageError(tp, new io.tideline.common.errors.TidelineException(Errors.KAFKA_STORAGE_ERROR,
                        String.valueOf(result.result().message())));
            }
            if (result.result().error() == Errors.NONE) {
                anyAppended = true;
                fetchHandler.purgatory().checkAndComplete(tp);
                if (result.highWatermarkAdvanced()) {
                    afterLeaderStateChange(tp, true);
                }
            }
            immediate.put(tp, result.result());
            delayed.add(tp, result.result(), result.leaderEpoch());
        }
        if (requiredAcks != -1 || !anyAppended) {
            future.complete(immediate);
            return future;
        }
        producePurgatory.tryCompleteElseWatch(delayed, records.keySet());
        return future;
    }

    // ---------------------------------------------------------------- DeleteRecords

    /**
     * Moves the log start offset of partitions this broker leads (the beforeOffset rules,
     * docs/behaviours.md B23-B25) and answers each once every live replica's start offset reached the
     * target, with the low watermark.
     */
    public CompletableFuture<Map<TopicPartition, DeleteRecordsPartitionResult>> deleteRecords(
            Map<TopicPartition, Long> beforeOffsets, long timeoutMs) {
        CompletableFuture<Map<TopicPartition, DeleteRecordsPartitionResult>> future = new CompletableFuture<>();
        DelayedDeleteRecords delayed = new DelayedDeleteRecords(timeoutMs, this::lowWatermark, future);
        for (Map.Entry<TopicPartition, Long> e : beforeOffsets.entrySet()) {
            TopicPartition tp = e.getKey();
            Partition partition = partitions.get(tp);
            if (partition == null) {
                delayed.addAnswered(tp, offline.contains(tp)
                        ? DeleteRecordsPartitionResult.error(Errors.KAFKA_STORAGE_ERROR, "the log dir of " + tp + " failed")
                        : DeleteRecordsPartitionResult.error(Errors.NOT_LEADER_OR_FOLLOWER,
                        "broker " + brokerId + " does not host " + tp));
                continue;
            }
            DeleteRecordsResult local = partition.deleteRecordsOnLeader(e.getValue());
            if (local.error() == Errors.KAFKA_STORAGE_ERROR) {
                reportStorageError(tp, new io.tideline.common.errors.TidelineException(local.error(),
                        "DeleteRecords could not make the log start offset of " + tp + " durable"));
            }
            if (local.error() != Errors.NONE) {
                delayed.addAnswered(tp, DeleteRecordsPartitionResult.error(local.error(), local.error() == Errors.OFFSET_OUT_OF_RANGE
                        ? "offset " + e.getValue() + " is above the high watermark " + partition.log().highWatermark()
                        + " of " + tp + " (or a negative other than -1)"
                        : local.error().defaultMessage()));
                continue;
            }
            delayed.addWaiting(tp, local.lowWatermark());
            // Followers parked on this partition learn the new start offset now.
            fetchHandler.purgatory().checkAndComplete(tp);
        }
        deleteRecordsPurgatory.tryCompleteElseWatch(delayed, beforeOffsets.keySet());
        return future;
    }

    private Optional<Long> lowWatermark(TopicPartition tp) {
        Partition partition = partitions.get(tp);
        if (partition == null) {
            return Optional.empty();
        }
        Set<Integer> live = liveBrokers;
        return partition.lowWatermark(live == null ? Set.copyOf(partition.replicas()) : live);
    }

    // ---------------------------------------------------------------- ISR

    /** Proposes removing lagging followers of every led partition; run by the scheduler, callable by tests. */
    public void maybeShrinkIsr() {
        long now = time.milliseconds();
        for (Partition partition : partitions.values()) {
            partition.maybeShrinkIsr(now).ifPresent(p -> sendIsrChange(partition, p.leaderEpoch(), p.proposal()));
        }
    }

    private void sendIsrChange(Partition partition, int leaderEpoch, IsrProposal proposal) {
        isrChangeSender.send(partition, leaderEpoch, proposal);
    }

    /** After the ISR, the assignment or the high watermark changed: wake whoever waits on them. */
    private void afterLeaderStateChange(TopicPartition tp, boolean highWatermarkAdvanced) {
        producePurgatory.checkAndComplete(tp);
        deleteRecordsPurgatory.checkAndComplete(tp);
        if (highWatermarkAdvanced) {
            fetchHandler.purgatory().checkAndComplete(tp);
        }
    }

    private void completeAllWaiting(TopicPartition tp) {
        producePurgatory.checkAndComplete(tp);
        deleteRecordsPurgatory.checkAndComplete(tp);
        fetchHandler.purgatory().checkAndComplete(tp);
    }

    // ---------------------------------------------------------------- follower status

    public Optional<FollowerStatusView> followerStatus(TopicPartition tp) {
        return fetcherManager.status(tp);
    }

    /** This broker's view, as leader, of the followers of {@code tp}; empty when it does not lead it. */
    public Optional<LeaderView> leaderView(TopicPartition tp) {
        Partition partition = partitions.get(tp);
        return partition == null ? Optional.empty() : LeaderView.of(partition, time.milliseconds());
    }

    /** An operator asks to rebuild a FAILED replica here. */
    public Errors requestRebuild(TopicPartition tp) {
        return fetcherManager.requestRebuild(tp);
    }

    /** As {@link #requestRebuild(TopicPartition)}; {@code started} is told where the rebuild starts and ends. */
    public Errors requestRebuild(TopicPartition tp,
                                 java.util.function.Consumer<io.tideline.replication.follower.RebuildProgress> started) {
        return fetcherManager.requestRebuild(tp, started);
    }

    /** The local log of a hosted partition. */
    public Optional<Log> log(TopicPartition tp) {
        return partition(tp).map(Partition::log);
    }

    int pendingHighWatermarkChecks() {
        return fetchHandler.pendingHighWatermarkChecks();
    }

    @Override
    public void close() {
        Scheduler.Cancellable task = shrinkTask;
        if (task != null) {
            task.cancel();
        }
        fetcherManager.close();
        for (Partition partition : partitions.values()) {
            partition.stop();
            ReplicationMetrics.removePartition(metrics, partition.topicPartition());
        }
        producePurgatory.shutdown();
        deleteRecordsPurgatory.shutdown();
        fetchHandler.purgatory().shutdown();
        fetchHandler.close();
        partitions.clear();
        topicMetrics.close();
        ReplicationMetrics.unregister(metrics);
    }
}
