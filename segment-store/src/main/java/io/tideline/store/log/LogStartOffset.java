package io.tideline.store.log;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.OffsetOutOfRangeException;
import io.tideline.common.time.Time;
import io.tideline.store.config.LogConfig;
import io.tideline.store.epoch.LeaderEpochCache;
import io.tideline.store.producer.ProducerStateManager;
import io.tideline.store.retention.DeletionReason;
import io.tideline.store.retention.RetentionPlan;
import io.tideline.store.segment.LogSegment;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start offset of one {@link Log} and everything that moves it forward: DeleteRecords, a follower adopting its
 * leader's start offset, and retention, which deletes the closed segments the {@link RetentionPlan} takes. It only
 * moves forward, never past the high watermark. Changes run under the log's lock, which this class shares; the
 * listener that persists a moved offset runs outside it.
 */
final class LogStartOffset {
    /** Under {@link Log}'s name: one logger per partition log, whichever layer writes the line. */
    private static final Logger log = LoggerFactory.getLogger(Log.class);

    private final Log owner;
    private final TopicPartition topicPartition;
    private final Time time;
    private final ReentrantLock lock;
    private final LocalLog local;
    private final ProducerStateManager producerState;
    private final LeaderEpochCache epochCache;
    private volatile long value;
    private volatile Log.LogStartOffsetListener listener = moved -> { };

    LogStartOffset(Log owner, long value, Time time, ReentrantLock lock, LocalLog local,
                   ProducerStateManager producerState, LeaderEpochCache epochCache) {
        this.owner = owner;
        this.topicPartition = owner.topicPartition();
        this.value = value;
        this.time = time;
        this.lock = lock;
        this.local = local;
        this.producerState = producerState;
        this.epochCache = epochCache;
    }

    long value() {
        return value;
    }

    /** Under the lock: a full truncation restarts the log at {@code offset}, wherever the start was. */
    void resetTo(long offset) {
        value = offset;
    }

    void setListener(Log.LogStartOffsetListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    // ---------------------------------------------------------------- DeleteRecords and a leader's start offset

    /** See {@link Log#deleteRecords}. */
    DeleteRecordsResult deleteRecords(long beforeOffset) {
        DeleteRecordsResult result;
        lock.lock();
        try {
            local.ensureOpen();
            if (!local.config().delete()) {
                // A compact-only log keeps the latest record of every key; a prefix cut would lose keys (B221).
                return DeleteRecordsResult.error(Errors.POLICY_VIOLATION);
            }
            long hw = owner.highWatermark();
            long target = beforeOffset == -1L ? hw : beforeOffset;
            if (beforeOffset < -1L || target > hw) {
                return DeleteRecordsResult.error(Errors.OFFSET_OUT_OF_RANGE);
            }
            if (beforeOffset == 0L || target <= value) {
                return DeleteRecordsResult.success(value);
            }
            maybeIncrement(target, "DeleteRecords");
            result = DeleteRecordsResult.success(value);
        } finally {
            lock.unlock();
        }
        // The answer goes out only once the new start offset is durable (docs/behaviours.md B78).
        listener.logStartOffsetMoved(owner);
        return result;
    }

    /** See {@link Log#maybeIncrementLogStartOffset}. */
    boolean maybeIncrement(long newLogStartOffset, String reason) {
        lock.lock();
        try {
            local.ensureOpen();
            long hw = owner.highWatermark();
            if (newLogStartOffset > hw) {
                throw new OffsetOutOfRangeException("Log start offset increment for " + topicPartition + " (" + reason + ")",
                        newLogStartOffset, value, hw);
            }
            if (newLogStartOffset <= value) {
                return false;
            }
            log.info("Incremented the log start offset of {} to {} ({})", topicPartition, newLogStartOffset, reason);
            value = newLogStartOffset;
            epochCache.truncateFromStart(newLogStartOffset);
            // Closed segments now wholly below the start offset go at once (renamed, unlinked after the
            // delay), whoever moved it: DeleteRecords here, or a follower adopting its leader's.
            deleteSegments(plan(time.milliseconds()).belowLogStartOffset(), DeletionReason.LOG_START_OFFSET_BREACH);
        } finally {
            lock.unlock();
        }
        // Persisted outside the lock (a file write and an fsync); DeleteRecords, which holds the lock around
        // this call, persists it itself once it lets go.
        if (!lock.isHeldByCurrentThread()) {
            listener.logStartOffsetMoved(owner);
        }
        return true;
    }

    // ---------------------------------------------------------------- retention

    /** See {@link Log#deleteOldSegments}. */
    int deleteOldSegments() {
        lock.lock();
        try {
            if (local.isClosed()) {
                return 0;
            }
            RetentionPlan plan = plan(time.milliseconds());
            return deleteSegments(plan.belowLogStartOffset(), DeletionReason.LOG_START_OFFSET_BREACH)
                    + deleteSegments(plan.sizeBreached(), DeletionReason.RETENTION_SIZE_BREACH)
                    + deleteSegments(plan.timeBreached(), DeletionReason.RETENTION_TIME_BREACH);
        } finally {
            lock.unlock();
        }
    }

    /** See {@link Log#retentionView}. */
    Log.RetentionView retentionView(long passAtMs) {
        lock.lock();
        try {
            LogConfig cfg = local.config();
            return new Log.RetentionView(value, owner.highWatermark(), local.logEndOffset(), effectiveRetentionMs(cfg),
                    effectiveRetentionBytes(cfg), cfg.fileDeleteDelayMs(), plan(passAtMs));
        } finally {
            lock.unlock();
        }
    }

    /** The retention rules evaluated over the current segments as a pass at {@code nowMs} would. */
    private RetentionPlan plan(long nowMs) {
        List<RetentionPlan.SegmentFacts> facts = local.segmentFacts();
        LogConfig cfg = local.config();
        return RetentionPlan.evaluate(facts, value, owner.highWatermark(), effectiveRetentionMs(cfg),
                effectiveRetentionBytes(cfg), nowMs, nowMs);
    }

    /** retention.ms as retention applies it: unlimited unless cleanup.policy holds delete (B220). */
    private static long effectiveRetentionMs(LogConfig cfg) {
        return cfg.delete() ? cfg.retentionMs() : -1L;
    }

    /** retention.bytes as retention applies it: unlimited unless cleanup.policy holds delete (B220). */
    private static long effectiveRetentionBytes(LogConfig cfg) {
        return cfg.delete() ? cfg.retentionBytes() : -1L;
    }

    /** Takes the first {@code count} segments out of the log and hands them to the deleter. */
    private int deleteSegments(int count, DeletionReason reason) {
        if (count == 0) {
            return 0;
        }
        LogSegments segments = local.segments();
        List<LogSegment> toDelete = segments.snapshot().subList(0, count);
        // The map changes first, so no new read finds these segments; the start offset follows.
        for (LogSegment segment : toDelete) {
            segments.remove(segment.baseOffset());
        }
        long newStart = Math.max(value, segments.firstBaseOffset());
        if (newStart > value) {
            value = newStart;
            epochCache.truncateFromStart(newStart);
        }
        local.deleteSegmentFiles(toDelete, reason, () -> producerState.deleteSnapshotsBefore(segments.firstBaseOffset()));
        log.info("Deleting {} segment(s) of {} ({}), base offsets {} to {}; log start offset is now {}", count,
                topicPartition, reason, toDelete.get(0).baseOffset(), toDelete.get(count - 1).baseOffset(), value);
        return count;
    }
}
