package io.tideline.replication.server;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.replication.follower.DivergingEpoch;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerFetch;
import io.tideline.replication.leader.AppendStatus;
import io.tideline.replication.leader.IsrProposal;
import io.tideline.replication.leader.LeaderState;
import io.tideline.replication.leader.LogAdapter;
import io.tideline.replication.metrics.ReplicationMetrics;
import io.tideline.store.epoch.EpochEndOffset;
import io.tideline.store.log.DeleteRecordsResult;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import io.tideline.store.log.LogAppendInfo;
import io.tideline.store.log.ValidatedRecords;
import io.tideline.store.record.MemoryRecords;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition hosted on this broker: its log and, while this broker leads it, the {@link LeaderState}.
 * The follower side lives in the fetcher that owns it; here a follower partition only answers "not the
 * leader".
 *
 * <p>Thread-safety: every leader-state access holds {@link #lock}. Reads of the log for followers run
 * outside it (the log is safe to read concurrently). Methods never trigger delayed operations
 * themselves: they report what changed and the {@link ReplicaManager} triggers after releasing the lock,
 * so no thread ever holds two partition locks.
 */
public final class Partition implements ReplicationMetrics.HostedPartition {
    private static final Logger log = LoggerFactory.getLogger(Partition.class);

    private final TopicPartition topicPartition;
    private final int localBrokerId;
    private final Log localLog;
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicLong offsetOutOfRangeAnswers = new AtomicLong();

    // Guarded by lock.
    private LeaderAndIsr metadata;
    private PartitionSettings settings;
    private LeaderState leaderState;

    Partition(TopicPartition topicPartition, int localBrokerId, Log localLog) {
        this.topicPartition = Objects.requireNonNull(topicPartition, "topicPartition");
        this.localBrokerId = localBrokerId;
        this.localLog = Objects.requireNonNull(localLog, "localLog");
    }

    @Override
    public TopicPartition topicPartition() {
        return topicPartition;
    }

    public Log log() {
        return localLog;
    }

    // ---------------------------------------------------------------- role changes

    /**
     * Leads at {@code state}'s leader epoch. A repeated call at the same leader epoch applies a newer
     * partition epoch (ISR or assignment change committed by the controller).
     *
     * @return whether the high watermark advanced
     */
    boolean makeLeader(LeaderAndIsr state, PartitionSettings newSettings, long replicaLagTimeMaxMs, long nowMs) {
        lock.lock();
        try {
            this.settings = newSettings;
            if (leaderState != null && leaderState.leaderEpoch() == state.leaderEpoch()) {
                this.metadata = state;
                if (!state.replicas().equals(leaderState.replicas())) {
                    return leaderState.onAssignmentCommitted(state.replicas(), state.isr(), state.partitionEpoch(), nowMs);
                }
                return leaderState.onIsrChangeCommitted(state.isr(), state.partitionEpoch());
            }
            if (metadata != null && state.leaderEpoch() < metadata.leaderEpoch()) {
                log.info("Ignoring leadership of {} at epoch {}: already at epoch {}", topicPartition, state.leaderEpoch(),
                        metadata.leaderEpoch());
                return false;
            }
            this.metadata = state;
            // Replication owns the high watermark from now on; it moves only when the ISR has the records.
            localLog.stopFollowingLogEndWithHighWatermark();
            long epochStart = localLog.logEndOffset();
            leaderState = new LeaderState(localBrokerId, state.leaderEpoch(), epochStart, state.partitionEpoch(),
                    state.replicas(), state.isr(), newSettings.minInsyncReplicas(), replicaLagTimeMaxMs,
                    new LogAdapter(localLog), nowMs);
            log.info("Leading {} at epoch {} from offset {} (ISR {}, replicas {}, high watermark {})", topicPartition,
                    state.leaderEpoch(), epochStart, state.isr(), state.replicas(), localLog.highWatermark());
            return leaderState.maybeAdvanceHighWatermark();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The topic's settings changed without a leadership change.
     *
     * @return whether the high watermark advanced (a lower min.insync.replicas)
     */
    boolean updateSettings(PartitionSettings newSettings) {
        lock.lock();
        try {
            this.settings = newSettings;
            return leaderState != null && leaderState.updateMinInsyncReplicas(newSettings.minInsyncReplicas());
        } finally {
            lock.unlock();
        }
    }

    /** Stops leading (if it did) and records the new leader. */
    void makeFollower(LeaderAndIsr state, PartitionSettings newSettings) {
        lock.lock();
        try {
            if (leaderState != null) {
                log.info("{} stops leading at epoch {}: {} leads at epoch {}", topicPartition, leaderState.leaderEpoch(),
                        state.leaderId(), state.leaderEpoch());
            }
            this.metadata = state;
            this.settings = newSettings;
            this.leaderState = null;
        } finally {
            lock.unlock();
        }
    }

    /** No longer hosted here (or the broker stops). */
    void stop() {
        lock.lock();
        try {
            leaderState = null;
            metadata = null;
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- state views

    @Override
    public boolean isLeader() {
        lock.lock();
        try {
            return leaderState != null;
        } finally {
            lock.unlock();
        }
    }

    public Optional<LeaderAndIsr> metadata() {
        lock.lock();
        try {
            return Optional.ofNullable(metadata);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean leaderless() {
        lock.lock();
        try {
            return metadata != null && metadata.leaderId() < 0;
        } finally {
            lock.unlock();
        }
    }

    /** The ISR the leader works with (committed), empty when not the leader. */
    @Override
    public List<Integer> isr() {
        lock.lock();
        try {
            return leaderState == null ? List.of() : leaderState.isr();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public List<Integer> replicas() {
        lock.lock();
        try {
            return metadata == null ? List.of() : metadata.replicas();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int minInsyncReplicas() {
        lock.lock();
        try {
            return settings == null ? 1 : settings.minInsyncReplicas();
        } finally {
            lock.unlock();
        }
    }

    public Optional<PartitionSettings> settings() {
        lock.lock();
        try {
            return Optional.ofNullable(settings);
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code reader} on the leader state under the lock; empty when not the leader. */
    public <T> Optional<T> withLeaderState(java.util.function.Function<LeaderState, T> reader) {
        lock.lock();
        try {
            return leaderState == null ? Optional.empty() : Optional.ofNullable(reader.apply(leaderState));
        } finally {
            lock.unlock();
        }
    }

    /** OFFSET_OUT_OF_RANGE answers this leader gave, to followers and consumers. */
    @Override
    public long offsetOutOfRangeAnswers() {
        return offsetOutOfRangeAnswers.get();
    }

    void recordOffsetOutOfRange() {
        offsetOutOfRangeAnswers.incrementAndGet();
    }

    // ---------------------------------------------------------------- follower fetches (leader side)

    /** What a follower's fetch did at the leader, besides the data to send. */
    record FollowerFetchResult(FetchResponseData response, boolean highWatermarkAdvanced,
                               Optional<IsrProposal> isrExpansion, int leaderEpoch, boolean followerStateChanged) {
    }

    /**
     * Validates a follower's fetch, records its position and reads its records.
     *
     * @param throttled      bytes to this follower are over the leader's throttle: answer without records
     * @param recordPosition false when a parked fetch is read again to answer it: its position was recorded
     *                       when it arrived, and recording it again could move the follower back, since the
     *                       follower may have fetched further since (its fetcher was replaced and abandoned
     *                       the parked request), as Kafka updates follower state only on the first read
     */
    FollowerFetchResult fetchForFollower(int replicaId, FollowerFetch fetch, int maxBytes, boolean minOneMessage,
                                         boolean throttled, boolean recordPosition, boolean eligibleForIsr,
                                         long nowMs) {
        long hw;
        long lso;
        long leo;
        boolean hwAdvanced;
        Optional<IsrProposal> expansion;
        int epoch;
        lock.lock();
        try {
            Optional<FetchResponseData> refused = validate(replicaId, fetch);
            if (refused.isPresent()) {
                return new FollowerFetchResult(refused.get(), false, Optional.empty(), -1, false);
            }
            epoch = leaderState.leaderEpoch();
            hw = localLog.highWatermark();
            lso = localLog.logStartOffset();
            leo = localLog.logEndOffset();
            Optional<DivergingEpoch> diverging = divergingEpoch(fetch, lso);
            if (diverging.isPresent()) {
                // The follower must truncate before its position means anything: do not record it.
                return new FollowerFetchResult(new FetchResponseData(Errors.NONE, MemoryRecords.EMPTY, hw, lso, leo,
                        diverging), false, Optional.empty(), epoch, false);
            }
            if (fetch.fetchOffset() < lso || fetch.fetchOffset() > leo) {
                offsetOutOfRangeAnswers.incrementAndGet();
                log.info("Replica {} of {} fetched offset {} outside [{}, {}]: OFFSET_OUT_OF_RANGE", replicaId,
                        topicPartition, fetch.fetchOffset(), lso, leo);
                return new FollowerFetchResult(FetchResponseData.error(Errors.OFFSET_OUT_OF_RANGE, hw, lso, leo), false,
                        Optional.empty(), epoch, false);
            }
            // What the follower has written, not where it reads from: a fetch sent ahead (pipelining) reads
            // past records the follower is still appending, and they must not count for the high watermark.
            hwAdvanced = recordPosition
                    && leaderState.onFollowerFetch(replicaId, fetch.logEndOffset(), fetch.logStartOffset(), nowMs);
            // A fenced or unknown broker is not proposed (the controller would refuse it: INELIGIBLE_REPLICA).
            expansion = recordPosition && eligibleForIsr ? leaderState.maybeExpandIsr(replicaId) : Optional.empty();
            hw = localLog.highWatermark();
            // An in-sync follower is never throttled (Kafka's rule): the throttle slows catch-up, not acks.
            if (throttled && leaderState.isr().contains(replicaId)) {
                throttled = false;
            }
        } finally {
            lock.unlock();
        }
        MemoryRecords records = MemoryRecords.EMPTY;
        if (!throttled && fetch.fetchOffset() < leo) {
            try (FetchDataInfo info = localLog.read(fetch.fetchOffset(), Math.max(1, Math.min(maxBytes, fetch.maxBytes())),
                    leo, minOneMessage)) {
                records = info.records().toMemoryRecords();
            } catch (TidelineException e) {
                // The start offset moved (retention) between the check and the read: the follower retries.
                return new FollowerFetchResult(FetchResponseData.error(e.error(), hw, localLog.logStartOffset(),
                        localLog.logEndOffset()), hwAdvanced, expansion, epoch, recordPosition);
            } catch (IOException e) {
                log.error("Reading {} for replica {} failed", topicPartition, replicaId, e);
                return new FollowerFetchResult(FetchResponseData.error(Errors.KAFKA_STORAGE_ERROR, hw, lso, leo),
                        hwAdvanced, expansion, epoch, recordPosition);
            }
        }
        return new FollowerFetchResult(FetchResponseData.records(records, hw, lso, leo), hwAdvanced, expansion, epoch,
                recordPosition);
    }

    /** The fencing checks of a follower fetch; empty when it may proceed. Holds the lock. */
    private Optional<FetchResponseData> validate(int replicaId, FollowerFetch fetch) {
        long hw = localLog.highWatermark();
        long lso = localLog.logStartOffset();
        long leo = localLog.logEndOffset();
        int knownEpoch = metadata == null ? -1 : metadata.leaderEpoch();
        Errors error = Errors.NONE;
        if (fetch.currentLeaderEpoch() >= 0 && fetch.currentLeaderEpoch() < knownEpoch) {
            error = Errors.FENCED_LEADER_EPOCH;
        } else if (fetch.currentLeaderEpoch() > knownEpoch) {
            error = Errors.UNKNOWN_LEADER_EPOCH;
        } else if (leaderState == null || !leaderState.follower(replicaId).isPresent()) {
            error = Errors.NOT_LEADER_OR_FOLLOWER;
        }
        if (error == Errors.NONE) {
            return Optional.empty();
        }
        return Optional.of(FetchResponseData.error(error, hw, lso, leo));
    }

    /**
     * Kafka's divergence check: the follower's last fetched epoch must end here at or after its fetch
     * offset, else it answers with where that epoch (or the largest one below it) ends here.
     */
    private Optional<DivergingEpoch> divergingEpoch(FollowerFetch fetch, long lso) {
        if (fetch.lastFetchedEpoch() < 0) {
            return Optional.empty();
        }
        EpochEndOffset end = localLog.endOffsetForEpoch(fetch.lastFetchedEpoch());
        if (end.epoch() < 0 || end.endOffset() < 0) {
            // The epoch is older than anything here: only records below our start offset can carry it.
            return fetch.fetchOffset() > lso ? Optional.of(new DivergingEpoch(-1, lso)) : Optional.empty();
        }
        if (end.epoch() < fetch.lastFetchedEpoch() || end.endOffset() < fetch.fetchOffset()) {
            return Optional.of(new DivergingEpoch(end.epoch(), end.endOffset()));
        }
        return Optional.empty();
    }

    // ---------------------------------------------------------------- produce

    /**
     * The result of a leader append and what it changed; {@code records} and {@code bytes} are what was appended
     * (0 on an error), for BrokerTopicMetrics.
     */
    record AppendResult(ProduceResult result, int leaderEpoch, boolean highWatermarkAdvanced, int records, int bytes) {
        static AppendResult failed(ProduceResult result, int leaderEpoch) {
            return new AppendResult(result, leaderEpoch, false, 0, 0);
        }
    }

    /**
     * Appends as leader. With acks=all, NOT_ENOUGH_REPLICAS when the committed ISR is below
     * min.insync.replicas, before anything is written.
     */
    AppendResult appendAsLeader(MemoryRecords records, int requiredAcks) {
        // The records are checked and walked (decompressed) before the partition's lock, which fetches and ISR
        // changes share (docs/behaviours.md B122); the leadership and min.insync.replicas checks answer first, a
        // refusal of the records after them.
        ValidatedRecords validated = null;
        TidelineException invalid = null;
        try {
            validated = localLog.validateForLeader(records);
        } catch (TidelineException e) {
            invalid = e;
        }
        lock.lock();
        try {
            if (leaderState == null) {
                return AppendResult.failed(ProduceResult.error(Errors.NOT_LEADER_OR_FOLLOWER,
                        "broker " + localBrokerId + " does not lead " + topicPartition + currentLeaderHint()), -1);
            }
            if (requiredAcks == -1 && leaderState.checkEnoughReplicasForAppend() != Errors.NONE) {
                return AppendResult.failed(ProduceResult.error(Errors.NOT_ENOUGH_REPLICAS, "ISR " + leaderState.isr()
                        + " is below min.insync.replicas=" + leaderState.minInsyncReplicas() + " for " + topicPartition),
                        leaderState.leaderEpoch());
            }
            if (invalid != null) {
                return AppendResult.failed(ProduceResult.error(invalid.error(), invalid.getMessage()),
                        leaderState.leaderEpoch());
            }
            LogAppendInfo info;
            try {
                info = localLog.appendAsLeader(validated, leaderState.leaderEpoch());
            } catch (TidelineException e) {
                return AppendResult.failed(ProduceResult.error(e.error(), e.getMessage()), leaderState.leaderEpoch());
            }
            boolean advanced = leaderState.maybeAdvanceHighWatermark();
            // A duplicate waits for the high watermark like its original: it is answered at once when that is
            // committed already, and like the original would be (NOT_LEADER_OR_FOLLOWER, timeout) when not.
            return new AppendResult(new ProduceResult(Errors.NONE, info.firstOffset(), info.lastOffset(),
                    localLog.logStartOffset(), null, info.logAppendTime(), info.duplicate()), leaderState.leaderEpoch(),
                    advanced, info.numRecords(), info.validBytes());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Where an acks=all append ending at {@code lastOffset} under {@code leaderEpoch} stands: NOT_LEADER_OR_FOLLOWER
     * once leadership moved on (its records may be truncated by the new leader).
     */
    Optional<Errors> appendCompletion(long lastOffset, int leaderEpoch) {
        lock.lock();
        try {
            if (leaderState == null || leaderState.leaderEpoch() != leaderEpoch) {
                return Optional.of(Errors.NOT_LEADER_OR_FOLLOWER);
            }
            AppendStatus status = leaderState.checkAppendCompleted(lastOffset);
            return status == AppendStatus.PENDING ? Optional.empty() : Optional.of(status.error());
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- DeleteRecords

    /**
     * Moves the leader's log start offset as docs/behaviours.md B24 says; the result's low watermark is the
     * leader's own.
     */
    DeleteRecordsResult deleteRecordsOnLeader(long beforeOffset) {
        lock.lock();
        try {
            if (leaderState == null) {
                return DeleteRecordsResult.error(Errors.NOT_LEADER_OR_FOLLOWER);
            }
            try {
                return localLog.deleteRecords(beforeOffset);
            } catch (TidelineException e) {
                // KAFKA_STORAGE_ERROR when the new start offset could not be made durable (docs/behaviours.md B140).
                return DeleteRecordsResult.error(e.error());
            }
        } finally {
            lock.unlock();
        }
    }

    /** The DeleteRecords low watermark over the live replicas; empty when not the leader. */
    Optional<Long> lowWatermark(Set<Integer> liveBrokers) {
        lock.lock();
        try {
            return leaderState == null ? Optional.empty() : Optional.of(leaderState.lowWatermark(liveBrokers));
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- ISR

    /** An ISR proposal and the leader epoch of the leader state that made it (what AlterPartition must carry). */
    record EpochProposal(int leaderEpoch, IsrProposal proposal) {
    }

    /**
     * A shrink proposal for followers lagging beyond replica.lag.time.max.ms, with the epoch it was made at,
     * read under the same lock: an epoch read separately could belong to an earlier leadership, the
     * controller would refuse it as fenced, and the answer, ignored as stale, would leave the proposal
     * pending in the new leader state for good (no ISR change could be proposed any more).
     */
    Optional<EpochProposal> maybeShrinkIsr(long nowMs) {
        lock.lock();
        try {
            if (leaderState == null) {
                return Optional.empty();
            }
            int epoch = leaderState.leaderEpoch();
            return leaderState.maybeShrinkIsr(nowMs).map(p -> new EpochProposal(epoch, p));
        } finally {
            lock.unlock();
        }
    }

    int leaderEpoch() {
        lock.lock();
        try {
            return leaderState == null ? -1 : leaderState.leaderEpoch();
        } finally {
            lock.unlock();
        }
    }

    /** Whether {@code proposal}, made at {@code leaderEpoch}, is still this leader's pending ISR change. */
    boolean isIsrChangePending(int leaderEpoch, IsrProposal proposal) {
        lock.lock();
        try {
            return leaderState != null && leaderState.leaderEpoch() == leaderEpoch
                    && leaderState.pendingIsrChange().filter(proposal::equals).isPresent();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The controller judged the proposal made at {@code leaderEpoch}. Ignored if leadership moved on since. A
     * commit applies; INELIGIBLE_REPLICA (the controller evaluated it at the partition epoch it was made at
     * and did not apply it) forgets it; any other refusal leaves it pending until newer metadata ends it, as
     * it may have been committed by another send (docs/behaviours.md B152).
     *
     * @return whether the high watermark advanced
     */
    boolean onIsrChangeAnswered(int leaderEpoch, IsrProposal proposal, IsrChangeResult result) {
        lock.lock();
        try {
            if (leaderState == null || leaderState.leaderEpoch() != leaderEpoch) {
                return false;
            }
            if (result.error() == Errors.NONE) {
                if (metadata != null && result.partitionEpoch() > metadata.partitionEpoch()) {
                    metadata = new LeaderAndIsr(topicPartition, metadata.topicId(), metadata.leaderId(),
                            metadata.leaderEpoch(), result.partitionEpoch(), metadata.replicas(), result.isr());
                }
                return leaderState.onIsrChangeCommitted(result.isr(), result.partitionEpoch());
            }
            if (result.error() == Errors.INELIGIBLE_REPLICA
                    && leaderState.pendingIsrChange().filter(proposal::equals).isPresent()) {
                leaderState.onIsrChangeFailed();
                return leaderState.maybeAdvanceHighWatermark();
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    private String currentLeaderHint() {
        if (metadata == null || metadata.leaderId() < 0) {
            return "";
        }
        return " (leader is " + metadata.leaderId() + " at epoch " + metadata.leaderEpoch() + ")";
    }

    @Override
    public String toString() {
        return "Partition(" + topicPartition + ", leader=" + (leaderState != null) + ")";
    }
}
