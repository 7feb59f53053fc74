package io.tideline.store.retention;

import io.tideline.common.TopicPartition;
import java.nio.file.Path;
import java.util.List;

/**
 * Why each segment of one replica is still on disk: the answer to "why is my data still here"
 * (docs/behaviours.md B9-B19, docs/storage.md "Explaining retention"). The segments of the log are
 * evaluated by {@link RetentionPlan} as of the next retention pass, so the ones marked due are those
 * that pass deletes if nothing is appended, truncated or reconfigured before it runs; the segments
 * already out of the log (waiting for their unlink, or unlinked and held open by a reader) follow
 * from the store's own bookkeeping.
 *
 * @param nowMs                    when the explanation was made
 * @param nextRetentionPassMs      when the next retention pass is due (every log.retention.check.interval.ms)
 * @param segments                 every segment, ordered by base offset: those still in the log and those on
 *                                 their way out
 */
public record RetentionExplanation(TopicPartition topicPartition, Path logDir, long nowMs, long nextRetentionPassMs,
                                   long retentionCheckIntervalMs, long logStartOffset, long highWatermark,
                                   long logEndOffset, long retentionMs, long retentionBytes, long fileDeleteDelayMs,
                                   List<SegmentRetention> segments) {

    public RetentionExplanation {
        segments = List.copyOf(segments);
    }
}
