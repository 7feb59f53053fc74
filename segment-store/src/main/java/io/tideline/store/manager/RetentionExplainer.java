package io.tideline.store.manager;

import io.tideline.store.log.Log;
import io.tideline.store.retention.RetentionExplanation;
import io.tideline.store.retention.RetentionReason;
import io.tideline.store.retention.SegmentDeleter;
import io.tideline.store.retention.SegmentDeleter.HeldOpen;
import io.tideline.store.retention.SegmentDeleter.PendingUnlink;
import io.tideline.store.retention.SegmentRetention;
import io.tideline.store.retention.SegmentRetention.Status;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Puts a {@link RetentionExplanation} together: the log's own segments as the next retention pass would
 * judge them ({@link Log#retentionView}, the pass's own evaluation), then the segments of the partition
 * already out of the log, from the deleter's bookkeeping. Stateless.
 */
final class RetentionExplainer {
    private RetentionExplainer() {
    }

    /**
     * When the next pass of a task run every {@code intervalMs} since {@code scheduledAtMs} is due:
     * strictly after {@code nowMs}, since a pass due at {@code nowMs} has already run (schedulers run a
     * task once the clock reaches its due time). A pass that runs late (the previous one overran) runs
     * at once, so the answer is then a little early.
     */
    static long nextPassMs(long scheduledAtMs, long intervalMs, long nowMs) {
        if (nowMs < scheduledAtMs) {
            return scheduledAtMs + intervalMs;
        }
        return scheduledAtMs + intervalMs * ((nowMs - scheduledAtMs) / intervalMs + 1);
    }

    static RetentionExplanation explain(Log log, Path logDir, SegmentDeleter deleter, long nowMs, long nextPassMs,
                                        long intervalMs) {
        Log.RetentionView view = log.retentionView(nextPassMs);
        List<SegmentRetention> segments = new ArrayList<>(view.plan().segments());
        for (PendingUnlink p : deleter.pending(log.topicPartition())) {
            segments.add(new SegmentRetention(p.baseOffset(), -1, p.sizeBytes(), p.largestTimestamp(),
                    Status.AWAITING_UNLINK, List.of(new RetentionReason(RetentionReason.Kind.AWAITING_UNLINK,
                    p.unlinkAtMs(), -1, p.sizeBytes()))));
        }
        for (HeldOpen h : deleter.heldOpen(log.topicPartition())) {
            segments.add(new SegmentRetention(h.baseOffset(), -1, h.sizeBytes(), h.largestTimestamp(),
                    Status.DELETED_HELD_OPEN, List.of(new RetentionReason(RetentionReason.Kind.DELETED_HELD_OPEN,
                    -1, -1, h.sizeBytes()))));
        }
        // Out-of-log segments are older than the log's unless a truncation dropped a tail: by offset, and
        // for one offset the oldest state first (unlinked, renamed, then the one in the log).
        segments.sort(Comparator.comparingLong(SegmentRetention::baseOffset)
                .thenComparing(s -> -s.status().ordinal()));
        return new RetentionExplanation(log.topicPartition(), logDir, nowMs, nextPassMs, intervalMs,
                view.logStartOffset(), view.highWatermark(), view.logEndOffset(), view.retentionMs(),
                view.retentionBytes(), view.fileDeleteDelayMs(), segments);
    }
}
