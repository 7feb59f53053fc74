package io.tideline.replication.follower;

import io.tideline.common.errors.Errors;
import io.tideline.replication.follower.FetchOutcome.Kind;
import io.tideline.store.epoch.EpochEndOffset;
import io.tideline.store.log.Log;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;
import java.util.Optional;

/**
 * The follower side of one partition: what the fetcher does with each fetch response, over the local
 * {@link Log}. No network here; the fetcher sends a fetch at {@link #fetchOffset()} while
 * {@link #shouldFetch()} and hands the answer to {@link #onFetchResponse}.
 *
 * <p>Not thread-safe: the fetcher thread that serves this partition owns it (the {@code Log} takes its
 * own lock, so readers of the log are unaffected).
 *
 * <p>Rules (docs/behaviours.md B26, B39-B44):
 * <ul>
 *   <li>NONE with a diverging epoch: truncate to min(leader's end of that epoch, our end of it); the fetched
 *       records are not appended (B40).</li>
 *   <li>NONE: append with the leader's offsets and epochs, raise the high watermark to
 *       min(leader's, our log end) (never back), then the start offset to min(leader's start offset, our
 *       high watermark), deleting whole segments below it (B26, B39).</li>
 *   <li>OFFSET_OUT_OF_RANGE, our log end above the leader's: truncate to the leader's log end (B41).</li>
 *   <li>OFFSET_OUT_OF_RANGE, our log end below the leader's start offset: a new empty replica bootstraps at
 *       the leader's start offset; otherwise {@link OutOfRangePolicy#HALT} marks the replica FAILED and keeps
 *       its data, {@link OutOfRangePolicy#REBUILD} truncates fully and rebuilds (B42-B44).</li>
 *   <li>A truncation that cannot reach its offset (inside a local batch): the replica is FAILED, whatever the
 *       policy (B133).</li>
 *   <li>NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH and the rest: no change; back off.</li>
 * </ul>
 */
public final class FollowerPartition {
    private static final Logger log = LoggerFactory.getLogger(FollowerPartition.class);

    private final Log localLog;
    private final OutOfRangePolicy policy;
    private int leaderId;
    private int leaderEpoch;
    private ReplicaStatus status = ReplicaStatus.FETCHING;
    /** When {@link #status} was entered (the fetcher's clock); -1 for FETCHING since this object was made. */
    private long statusSinceMs = -1L;
    private FailureReason failureReason;
    private long rebuildStartOffset = -1L;
    private long rebuildTargetOffset = -1L;
    /** Never appended nor truncated since it was created empty: a replica added by a reassignment. */
    private boolean freshReplica;
    /** The leader's high watermark in the last response, the target of a rebuild an operator asks for. */
    private long lastLeaderHighWatermark = -1L;

    public FollowerPartition(Log localLog, int leaderId, int leaderEpoch, OutOfRangePolicy policy) {
        this.localLog = Objects.requireNonNull(localLog, "localLog");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.leaderId = leaderId;
        this.leaderEpoch = leaderEpoch;
        this.freshReplica = localLog.logEndOffset() == 0L && localLog.logStartOffset() == 0L && localLog.size() == 0L;
        // A replicated log's high watermark comes from the leader from now on, not from its own log end.
        localLog.stopFollowingLogEndWithHighWatermark();
    }

    // ---------------------------------------------------------------- accessors

    public Log log() {
        return localLog;
    }

    public int leaderId() {
        return leaderId;
    }

    public int leaderEpoch() {
        return leaderEpoch;
    }

    public OutOfRangePolicy policy() {
        return policy;
    }

    public ReplicaStatus status() {
        return status;
    }

    /** When the current status began (epoch ms, the broker's clock); -1 when FETCHING from the start. */
    public long statusSinceMs() {
        return statusSinceMs;
    }

    /** The offset of the next fetch: the local log end. */
    public long fetchOffset() {
        return localLog.logEndOffset();
    }

    /** False once FAILED: the fetcher leaves this partition out of its fetches. */
    public boolean shouldFetch() {
        return status != ReplicaStatus.FAILED;
    }

    /** Why the replica is FAILED; empty in any other status. */
    public Optional<FailureReason> failureReason() {
        return Optional.ofNullable(failureReason);
    }

    /** Progress of the rebuild; empty unless REBUILDING. */
    public Optional<RebuildProgress> rebuildProgress() {
        if (status != ReplicaStatus.REBUILDING) {
            return Optional.empty();
        }
        return Optional.of(new RebuildProgress(rebuildStartOffset, rebuildTargetOffset, localLog.logEndOffset()));
    }

    /** A new leader or leader epoch from metadata; epochs never go back. */
    public void updateLeader(int newLeaderId, int newLeaderEpoch) {
        if (newLeaderEpoch < leaderEpoch) {
            throw new IllegalArgumentException("Leader epoch " + newLeaderEpoch + " is older than " + leaderEpoch
                    + " for " + localLog.topicPartition());
        }
        this.leaderId = newLeaderId;
        this.leaderEpoch = newLeaderEpoch;
    }

    // ---------------------------------------------------------------- fetch responses

    public FetchOutcome onFetchResponse(FetchResponseData data, long nowMs) {
        Objects.requireNonNull(data, "data");
        if (status == ReplicaStatus.FAILED) {
            // A late answer to a fetch sent before the failure: a FAILED replica keeps its data untouched.
            return FetchOutcome.of(Kind.FAILED, fetchOffset(), data.error(), "replica is FAILED: " + failureReason.message());
        }
        if (data.error() == Errors.NONE) {
            lastLeaderHighWatermark = data.leaderHighWatermark();
            if (data.divergingEpoch().isPresent()) {
                return truncateDivergingEpoch(data.divergingEpoch().get(), data, nowMs);
            }
            return append(data, nowMs);
        }
        if (data.error() == Errors.OFFSET_OUT_OF_RANGE) {
            lastLeaderHighWatermark = data.leaderHighWatermark();
            return onOffsetOutOfRange(data, nowMs);
        }
        return FetchOutcome.of(Kind.BACKOFF, fetchOffset(), data.error(),
                "back off and wait for metadata (" + data.error() + ")");
    }

    /**
     * Operator action on a FAILED replica: truncate fully at the leader's start offset recorded in the
     * failure and rebuild up to the leader's last known high watermark. If the leader's start offset has
     * moved on since, the next answer is OFFSET_OUT_OF_RANGE and the rebuild restarts there.
     *
     * @param nowMs when the operator asked: the REBUILDING status dates from it
     * @return where the rebuild starts and ends (equal when there is nothing to copy: FETCHING at once)
     */
    public RebuildProgress requestRebuild(long nowMs) {
        if (status != ReplicaStatus.FAILED) {
            throw new IllegalStateException("Only a FAILED replica can be rebuilt; " + localLog.topicPartition() + " is "
                    + status);
        }
        FailureReason reason = failureReason;
        log.info("Rebuild of {} requested by an operator (was FAILED: {})", localLog.topicPartition(), reason.message());
        startRebuild(reason.leaderLogStartOffset(), Math.max(lastLeaderHighWatermark, reason.leaderLogStartOffset()),
                nowMs);
        return new RebuildProgress(rebuildStartOffset, rebuildTargetOffset, localLog.logEndOffset());
    }

    private FetchOutcome append(FetchResponseData data, long nowMs) {
        int bytes = 0;
        if (data.records().sizeInBytes() > 0) {
            // Throws (and changes nothing) if the batches do not start at our log end: the fetcher's bug.
            localLog.appendAsFollower(data.records());
            bytes = data.records().sizeInBytes();
            freshReplica = false;
        }
        long logEnd = localLog.logEndOffset();
        long newHw = Math.min(data.leaderHighWatermark(), logEnd);
        if (newHw > localLog.highWatermark()) {
            localLog.updateHighWatermark(newHw);
        }
        long newStart = Math.min(data.leaderLogStartOffset(), localLog.highWatermark());
        // The store deletes whole segments below the new start offset its usual way (renamed to .deleted
        // now, unlinked after file.delete.delay.ms); the follower's own retention runs on its schedule.
        localLog.maybeIncrementLogStartOffset(newStart, "follower adopts the leader's log start offset");
        if (status == ReplicaStatus.REBUILDING && logEnd >= rebuildTargetOffset) {
            log.info("Rebuild of {} caught up to {} (started at {})", localLog.topicPartition(), rebuildTargetOffset,
                    rebuildStartOffset);
            status = ReplicaStatus.FETCHING;
            statusSinceMs = nowMs;
            rebuildStartOffset = -1L;
            rebuildTargetOffset = -1L;
        }
        return FetchOutcome.appended(bytes, logEnd);
    }

    private FetchOutcome truncateDivergingEpoch(DivergingEpoch diverging, FetchResponseData data, long nowMs) {
        EpochEndOffset local = localLog.endOffsetForEpoch(diverging.epoch());
        long target = diverging.endOffset();
        if (local.endOffset() >= 0) {
            target = Math.min(target, local.endOffset());
        }
        String why = "diverging epoch " + diverging.epoch() + " ends at " + diverging.endOffset()
                + " on the leader, at " + local.endOffset() + " (epoch " + local.epoch() + ") here";
        if (!truncateTail(target, why)) {
            return failUnreachableTruncation(target, why, data, nowMs);
        }
        return FetchOutcome.truncated(localLog.logEndOffset(), Errors.NONE,
                "truncated to " + localLog.logEndOffset() + " (diverging epoch " + diverging.epoch() + ")");
    }

    private FetchOutcome onOffsetOutOfRange(FetchResponseData data, long nowMs) {
        long fetchOffset = fetchOffset();
        if (fetchOffset > data.leaderLogEndOffset()) {
            // Ahead of the leader (after an unclean election): drop what the leader does not have (30).
            String why = "log end " + fetchOffset + " is ahead of the leader's " + data.leaderLogEndOffset();
            if (!truncateTail(data.leaderLogEndOffset(), why)) {
                return failUnreachableTruncation(data.leaderLogEndOffset(), why, data, nowMs);
            }
            return FetchOutcome.truncated(localLog.logEndOffset(), Errors.OFFSET_OUT_OF_RANGE,
                    "truncated to the leader's log end " + data.leaderLogEndOffset());
        }
        if (fetchOffset >= data.leaderLogStartOffset()) {
            // In range by the bounds that came back: the leader's log moved between its check and its answer.
            return FetchOutcome.of(Kind.BACKOFF, fetchOffset, Errors.OFFSET_OUT_OF_RANGE,
                    "fetch offset " + fetchOffset + " is within the leader's [" + data.leaderLogStartOffset() + ", "
                            + data.leaderLogEndOffset() + ") now; retry");
        }
        long leaderStart = data.leaderLogStartOffset();
        if (freshReplica && localLog.logEndOffset() == 0L && localLog.size() == 0L) {
            // A replica added by a reassignment starts at the leader's start offset: bootstrap, not a failure.
            localLog.truncateFullyAndStartAt(leaderStart);
            log.info("New replica of {} starts at the leader's log start offset {}", localLog.topicPartition(), leaderStart);
            return FetchOutcome.of(Kind.BOOTSTRAPPED, leaderStart, Errors.OFFSET_OUT_OF_RANGE,
                    "new empty replica starts at the leader's log start offset " + leaderStart);
        }
        if (status == ReplicaStatus.REBUILDING || policy == OutOfRangePolicy.REBUILD) {
            // Under REBUILDING the leader's start offset moved on again (or the operator's rebuild began
            // below it): restart the rebuild there, whatever the policy.
            startRebuild(leaderStart, data.leaderHighWatermark(), nowMs);
            return FetchOutcome.of(Kind.REBUILDING, leaderStart, Errors.OFFSET_OUT_OF_RANGE,
                    "log end " + fetchOffset + " below the leader's log start offset " + leaderStart
                            + ": rebuilding from " + leaderStart + " to " + rebuildTargetOffset);
        }
        String message = "fetch offset " + fetchOffset + " is below the leader's log start offset " + leaderStart
                + " (leader " + leaderId + " holds [" + leaderStart + ", " + data.leaderLogEndOffset()
                + ")); replica halted (replica.fetch.out.of.range.policy=halt), data kept";
        failureReason = new FailureReason(fetchOffset, leaderStart, data.leaderLogEndOffset(), nowMs, message);
        status = ReplicaStatus.FAILED;
        statusSinceMs = nowMs;
        log.error("Replica of {} FAILED: {}", localLog.topicPartition(), message);
        return FetchOutcome.of(Kind.FAILED, fetchOffset, Errors.OFFSET_OUT_OF_RANGE, message);
    }

    private void startRebuild(long leaderStart, long leaderHighWatermark, long nowMs) {
        localLog.truncateFullyAndStartAt(leaderStart);
        freshReplica = false;
        failureReason = null;
        rebuildStartOffset = leaderStart;
        rebuildTargetOffset = Math.max(leaderStart, leaderHighWatermark);
        // After a full truncation the high watermark is the new start offset (docs/behaviours.md B43).
        status = rebuildTargetOffset > leaderStart ? ReplicaStatus.REBUILDING : ReplicaStatus.FETCHING;
        statusSinceMs = nowMs;
        log.warn("Rebuilding {}: truncated fully, restarting at {}, catching up to {}", localLog.topicPartition(),
                leaderStart, rebuildTargetOffset);
    }

    /**
     * Drops the tail at or above {@code offset}. Below the local high watermark this should not happen:
     * a record at or below the high watermark is on every ISR member, and any leader elected cleanly has
     * it, so its diverging epoch (or log end) never points below an in-sync follower's high watermark.
     * After an unclean election it can; the leader's log is the truth then, so truncate anyway, loudly.
     *
     * @return false when the log end stays above {@code offset}: the offset falls inside a local batch, which is
     *         kept whole (only the batches after it are gone)
     */
    private boolean truncateTail(long offset, String why) {
        long hw = localLog.highWatermark();
        localLog.truncateTo(offset);
        freshReplica = false;
        if (localLog.logEndOffset() > offset) {
            return false;
        }
        if (offset < hw) {
            log.warn("Truncating {} to {}, below its high watermark {} ({}); expected only after an unclean election",
                    localLog.topicPartition(), offset, hw, why);
        } else {
            log.info("Truncating {} to {} ({})", localLog.topicPartition(), offset, why);
        }
        return true;
    }

    /**
     * A truncation that cannot reach its offset would be asked for again by every fetch, forever: the
     * leader's epoch ends (and log end) are boundaries of batches a follower copies whole, so an offset
     * inside a local batch means this log is not a copy of the leader's (a directory of an older topic of
     * the same name, say). The replica is FAILED with the reason, in one log line, and keeps its log; an
     * operator's rebuild (B74) or a reassignment ends it (docs/behaviours.md B133).
     */
    private FetchOutcome failUnreachableTruncation(long target, String why, FetchResponseData data, long nowMs) {
        long logEnd = localLog.logEndOffset();
        String message = "truncation to " + target + " (" + why + ") cannot make progress: offset " + target
                + " lies inside a local batch ending at " + logEnd + ", so this log is not the leader's (leader "
                + leaderId + " holds [" + data.leaderLogStartOffset() + ", " + data.leaderLogEndOffset()
                + ")); replica halted, its log kept up to there";
        failureReason = new FailureReason(logEnd, data.leaderLogStartOffset(), data.leaderLogEndOffset(), nowMs, message);
        status = ReplicaStatus.FAILED;
        statusSinceMs = nowMs;
        log.error("Replica of {} FAILED: {}", localLog.topicPartition(), message);
        return FetchOutcome.of(Kind.FAILED, logEnd, data.error(), message);
    }
}
