package io.tideline.store.retention;

import java.util.List;
import java.util.Objects;

/**
 * One segment of a replica as retention sees it, with the reasons it is still on disk.
 *
 * @param baseOffset       its base offset (the file name)
 * @param endOffset        the base offset of the next segment (the log end offset for the active one);
 *                         -1 for a segment already out of the log
 * @param sizeBytes        bytes of its {@code .log}
 * @param largestTimestamp its largest record timestamp, epoch ms (-1 when its batches carry none)
 * @param status           in the log (kept or due), or on its way out
 * @param reasons          why it is still there; for a due segment, the rule that deletes it
 */
public record SegmentRetention(long baseOffset, long endOffset, long sizeBytes, long largestTimestamp, Status status,
                               List<RetentionReason> reasons) {

    public SegmentRetention {
        Objects.requireNonNull(status, "status");
        reasons = List.copyOf(reasons);
    }

    public enum Status {
        /** In the log, and no rule deletes it at the next pass. */
        KEPT,
        /** In the log, and the next retention pass deletes it (if nothing changes before). */
        DUE,
        /** Out of the log, renamed {@code .deleted}, waiting for file.delete.delay.ms. */
        AWAITING_UNLINK,
        /** Unlinked, and a reader still holds the file open. */
        DELETED_HELD_OPEN
    }
}
