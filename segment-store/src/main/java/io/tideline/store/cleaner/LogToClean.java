package io.tideline.store.cleaner;

import io.tideline.store.log.Log;
import io.tideline.store.segment.LogSegment;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * One compacted log as the cleaner sees it at one moment: where its dirty section starts and where the
 * cleanable part of it ends, and the bytes on each side (docs/behaviours.md B180, B181). A pure
 * evaluation of a {@link Log.CleanerView}, shared by the cleaner's choice of a log and the operator's view.
 *
 * @param firstDirtyOffset       the cleaner checkpoint, or the log start offset when there is none or it is
 *                               outside the log
 * @param firstUncleanableOffset the lowest of the active segment's base offset, the high watermark and the base
 *                               of the first dirty segment newer than min.compaction.lag.ms; never below
 *                               firstDirtyOffset
 * @param cleanBytes             bytes of the segments below the first dirty offset
 * @param cleanableBytes         bytes of the segments from the first dirty offset up to the first uncleanable
 *                               segment
 * @param compactionDelayMs      how long the oldest dirty segment has waited past max.compaction.lag.ms, 0 if
 *                               none has
 * @param checkpointReset        the checkpointed offset was outside the log and is reset
 */
public record LogToClean(Log log, Log.CleanerView view, long firstDirtyOffset, long firstUncleanableOffset,
                         long cleanBytes, long cleanableBytes, long compactionDelayMs, boolean checkpointReset) {

    public static LogToClean evaluate(Log log, Log.CleanerView view, OptionalLong checkpoint, long nowMs) {
        long start = view.logStartOffset();
        long checkpointed = checkpoint.orElse(start);
        boolean reset = checkpointed < start || checkpointed > view.logEndOffset();
        long firstDirty = reset ? start : checkpointed;
        List<LogSegment> closed = view.closedSegments();
        long uncleanable = Math.min(view.activeBaseOffset(), view.highWatermark());
        long minLag = Math.max(view.config().minCompactionLagMs(), 0L);
        long maxLag = Math.max(view.config().maxCompactionLagMs(), 0L);
        long oldestDirtyFirstTimestamp = Long.MAX_VALUE;
        for (int i = 0; i < closed.size(); i++) {
            LogSegment segment = closed.get(i);
            long end = i + 1 < closed.size() ? closed.get(i + 1).baseOffset() : view.activeBaseOffset();
            if (end <= firstDirty) {
                continue;
            }
            if (minLag > 0 && segment.maxTimestampSoFar() > nowMs - minLag) {
                uncleanable = Math.min(uncleanable, segment.baseOffset());
            }
            long first = segment.firstBatchTimestamp();
            if (first > 0) {
                oldestDirtyFirstTimestamp = Math.min(oldestDirtyFirstTimestamp, first);
            }
        }
        uncleanable = Math.max(firstDirty, uncleanable);
        // The cleanable bytes end at the first segment that is not wholly below the first uncleanable offset.
        long firstUncleanableSegmentBase = view.activeBaseOffset();
        for (LogSegment segment : closed) {
            if (segment.baseOffset() >= uncleanable || segmentEnd(closed, segment, view) > uncleanable) {
                firstUncleanableSegmentBase = segment.baseOffset();
                break;
            }
        }
        long clean = 0;
        long cleanable = 0;
        for (LogSegment segment : closed) {
            long end = segmentEnd(closed, segment, view);
            if (end <= firstDirty) {
                clean += segment.size();
            } else if (segment.baseOffset() < firstUncleanableSegmentBase) {
                cleanable += segment.size();
            }
        }
        long cleanUntil = nowMs - maxLag;
        long delay = oldestDirtyFirstTimestamp < cleanUntil ? cleanUntil - oldestDirtyFirstTimestamp : 0L;
        return new LogToClean(log, view, firstDirty, uncleanable, clean, cleanable, delay, reset);
    }

    private static long segmentEnd(List<LogSegment> closed, LogSegment segment, Log.CleanerView view) {
        int i = closed.indexOf(segment);
        return i + 1 < closed.size() ? closed.get(i + 1).baseOffset() : view.activeBaseOffset();
    }

    /** What a cleaning now would do with one segment, and why (B193). */
    public record SegmentVerdict(long baseOffset, long sizeBytes, String verdict) {
    }

    /**
     * One verdict per segment, from this evaluation: clean (below the first dirty offset: rewritten by the next
     * cleaning, keeping only what no later record of its key replaces), dirty (mapped and rewritten), or kept
     * uncleaned with the bound that stops it (the active segment, the high watermark, min.compaction.lag.ms).
     */
    public List<SegmentVerdict> explain() {
        List<SegmentVerdict> verdicts = new ArrayList<>();
        List<LogSegment> closed = view.closedSegments();
        for (LogSegment segment : closed) {
            long end = segmentEnd(closed, segment, view);
            String verdict;
            if (end <= firstDirtyOffset) {
                verdict = "clean: rewritten by the next cleaning, keeping records no later record of their key replaces";
            } else if (end <= firstUncleanableOffset) {
                verdict = "dirty: its keys are mapped and it is rewritten by the next cleaning";
            } else if (segment.baseOffset() < firstUncleanableOffset) {
                verdict = "partly dirty: mapped and rewritten up to offset " + firstUncleanableOffset;
            } else if (segment.baseOffset() >= view.highWatermark()) {
                verdict = "kept uncleaned: at or above the high watermark " + view.highWatermark();
            } else {
                verdict = "kept uncleaned: newer than min.compaction.lag.ms (" + view.config().minCompactionLagMs()
                        + " ms), or after such a segment";
            }
            verdicts.add(new SegmentVerdict(segment.baseOffset(), segment.size(), verdict));
        }
        verdicts.add(new SegmentVerdict(view.activeBaseOffset(), -1, "kept uncleaned: the active segment"));
        return verdicts;
    }

    public long totalBytes() {
        return cleanBytes + cleanableBytes;
    }

    /** cleanableBytes / totalBytes: what min.cleanable.dirty.ratio is compared with (B180). */
    public double cleanableRatio() {
        return totalBytes() == 0 ? 0 : (double) cleanableBytes / totalBytes();
    }

    /** A dirty segment waited past max.compaction.lag.ms: the log is cleaned whatever its ratio (B180). */
    public boolean needCompactionNow() {
        return compactionDelayMs > 0;
    }

    /** Whether the cleaner takes this log now: Kafka's test in the same order. */
    public boolean cleanable() {
        return totalBytes() > 0 && ((needCompactionNow() && cleanableBytes > 0)
                || cleanableRatio() > view.config().minCleanableDirtyRatio());
    }
}
