package io.tideline.store.cleaner;

import io.tideline.common.TopicPartition;
import java.util.List;

/**
 * The operator's view of one compacted log (docs/behaviours.md B193), from the same evaluation the cleaner
 * chooses by ({@link LogToClean}).
 *
 * @param dirtyRatio             cleanable bytes / (clean + cleanable bytes)
 * @param firstDirtyOffset       where the next cleaning's dirty section starts
 * @param firstUncleanableOffset where it would end
 * @param cleanable              the cleaner would take the log now (ratio above min.cleanable.dirty.ratio, or
 *                               past max.compaction.lag.ms)
 * @param state                  IDLE, IN_PROGRESS, ABORTED, PAUSED or UNCLEANABLE
 * @param lastCleaningMs         when the last cleaning of it ended by the broker's clock, -1 if none since start
 * @param segments               what a cleaning now would do with each segment ({@link LogToClean#explain()})
 */
public record CleanerLogState(TopicPartition topicPartition, double dirtyRatio, long firstDirtyOffset,
                              long firstUncleanableOffset, long cleanableBytes, long compactionDelayMs,
                              boolean cleanable, String state, long lastCleaningMs,
                              List<LogToClean.SegmentVerdict> segments) {
}
