package io.tideline.client;

import java.util.List;

/**
 * The log cleaner's view of one broker's replica (docs/behaviours.md B193), as describeLogDirs (without
 * {@code segments}) and explainRetention (with them) answer it. For a log whose {@code cleanupPolicy} lacks
 * compact ({@code compacted} false) the other fields are -1, false or empty; for a compacted log on a broker that
 * runs no cleaner {@code state} is NO_CLEANER and the numbers are -1.
 *
 * @param dirtyRatio       cleanable bytes over clean plus cleanable bytes, compared with
 *                         {@code minCleanableDirtyRatio} (B180)
 * @param cleanable        the cleaner would take the log now
 * @param state            IDLE, IN_PROGRESS, ABORTED, PAUSED, UNCLEANABLE or NO_CLEANER
 * @param lastCleaningMs   when the last cleaning ended (epoch ms, the broker's clock), -1 for none since it started
 * @param compactionDelayMs how long a dirty segment has waited past max.compaction.lag.ms, 0 if none
 */
public record LogCompaction(boolean compacted, String cleanupPolicy, double dirtyRatio, double minCleanableDirtyRatio,
                            long firstDirtyOffset, long firstUncleanableOffset, long cleanableBytes, boolean cleanable,
                            String state, long lastCleaningMs, long compactionDelayMs, List<SegmentVerdict> segments) {

    public LogCompaction {
        segments = List.copyOf(segments);
    }

    /** What a cleaning now does with one segment, and why; {@code sizeBytes} is -1 for the active segment. */
    public record SegmentVerdict(long baseOffset, long sizeBytes, String verdict) {
    }
}
