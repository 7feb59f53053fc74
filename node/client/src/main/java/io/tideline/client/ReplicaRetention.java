package io.tideline.client;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import java.util.List;
import java.util.Optional;

/**
 * Why each segment of one broker's replica of a partition is still on disk (explainRetention), as of the
 * broker's next retention pass; on error ({@code error} not NONE) only the partition, the broker and the
 * message are set. Times are epoch milliseconds; docs/behaviours.md B59 lists the reasons. {@code compaction} is
 * the cleaner's view with its segment verdicts (B193), empty on error or when the broker could not evaluate it.
 */
public record ReplicaRetention(TopicPartition partition, int brokerId, Errors error, String message, String logDir,
                               long nowMs, long nextRetentionPassMs, long retentionCheckIntervalMs,
                               long logStartOffset, long highWatermark, long logEndOffset, long retentionMs,
                               long retentionBytes, long fileDeleteDelayMs, List<Segment> segments,
                               Optional<LogCompaction> compaction) {

    public ReplicaRetention {
        segments = List.copyOf(segments);
    }

    public boolean isSuccess() {
        return error == Errors.NONE;
    }

    /**
     * A segment: {@code status} KEPT, DUE (the next pass deletes it), AWAITING_UNLINK or DELETED_HELD_OPEN;
     * {@code endOffset} -1 once it is out of the log.
     */
    public record Segment(long baseOffset, long endOffset, long sizeBytes, long largestTimestamp, String status,
                          List<Reason> reasons) {
        public Segment {
            reasons = List.copyOf(reasons);
        }
    }

    /** {@code kind} as in B59, {@code rule} the rule it applies ("B11"); -1 for what does not apply. */
    public record Reason(String kind, String rule, long atMs, long offset, long bytes) {
    }
}
