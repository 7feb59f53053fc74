package io.tideline.store.log;

import io.tideline.common.TopicPartition;
import io.tideline.common.time.Time;
import io.tideline.store.config.LogConfig;
import io.tideline.store.producer.ProducerStateManager;
import io.tideline.store.retention.DeletionReason;
import io.tideline.store.retention.RetentionPlan;
import io.tideline.store.segment.LogSegment;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retention of one {@link Log}: the {@link RetentionPlan} over its segments and the deletion of the prefix the plan
 * takes, which moves the log start offset. Every method runs with the log's lock held.
 */
final class LogRetention {
    /** Under {@link Log}'s name: one logger per partition log, whichever layer writes the line. */
    private static final Logger log = LoggerFactory.getLogger(Log.class);

    private final Log owner;
    private final TopicPartition topicPartition;
    private final Time time;
    private final LocalLog local;
    private final ProducerStateManager producerState;

    LogRetention(Log owner, Time time, LocalLog local, ProducerStateManager producerState) {
        this.owner = owner;
        this.topicPartition = owner.topicPartition();
        this.time = time;
        this.local = local;
        this.producerState = producerState;
    }

    /** See {@link Log#deleteOldSegments}. */
    int deleteOldSegments() {
        RetentionPlan plan = plan(time.milliseconds());
        return deleteSegments(plan.belowLogStartOffset(), DeletionReason.LOG_START_OFFSET_BREACH)
                + deleteSegments(plan.sizeBreached(), DeletionReason.RETENTION_SIZE_BREACH)
                + deleteSegments(plan.timeBreached(), DeletionReason.RETENTION_TIME_BREACH);
    }

    /** The closed segments wholly below the log start offset go at once, renamed and unlinked after the delay. */
    int deleteLogStartOffsetBreachedSegments() {
        return deleteSegments(plan(time.milliseconds()).belowLogStartOffset(), DeletionReason.LOG_START_OFFSET_BREACH);
    }

    /** The retention rules evaluated over the current segments as a pass at {@code nowMs} would. */
    private RetentionPlan plan(long nowMs) {
        List<RetentionPlan.SegmentFacts> facts = local.segmentFacts();
        LogConfig cfg = local.config();
        return RetentionPlan.evaluate(facts, owner.logStartOffset(), owner.highWatermark(), effectiveRetentionMs(cfg),
                effectiveRetentionBytes(cfg), nowMs, nowMs);
    }

    /** See {@link Log#retentionView}. */
    Log.RetentionView view(long passAtMs) {
        LogConfig cfg = local.config();
        return new Log.RetentionView(owner.logStartOffset(), owner.highWatermark(), local.logEndOffset(),
                effectiveRetentionMs(cfg), effectiveRetentionBytes(cfg), cfg.fileDeleteDelayMs(), plan(passAtMs));
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
        owner.startOffsetFollowsFirstSegment(segments.firstBaseOffset());
        local.deleteSegmentFiles(toDelete, reason, () -> producerState.deleteSnapshotsBefore(segments.firstBaseOffset()));
        log.info("Deleting {} segment(s) of {} ({}), base offsets {} to {}; log start offset is now {}", count,
                topicPartition, reason, toDelete.get(0).baseOffset(), toDelete.get(count - 1).baseOffset(),
                owner.logStartOffset());
        return count;
    }
}
