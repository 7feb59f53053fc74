package io.tideline.store.retention;

import java.util.Objects;

/**
 * One reason why a segment is still on disk, or when it will leave. Each kind names the rule of
 * docs/behaviours.md it comes from, so an operator asking "why is my data still here" can read the
 * rule itself.
 *
 * @param kind   what holds the segment (or that it is due)
 * @param atMs   when the reason ends, epoch ms: the retention.ms deadline, the next retention pass for a
 *               due segment, the unlink time of a renamed one; -1 when it does not end by itself
 * @param offset the offset the reason is about: the high watermark, or the base offset of the older
 *               segment that blocks this one; -1 otherwise
 * @param bytes  the bytes the reason concerns: what the log holds above retention.bytes once the next
 *               pass is done (0 when it is within it), the bytes a deleted file still holds; -1 otherwise
 */
public record RetentionReason(Kind kind, long atMs, long offset, long bytes) {

    public RetentionReason {
        Objects.requireNonNull(kind, "kind");
    }

    static RetentionReason of(Kind kind) {
        return new RetentionReason(kind, -1, -1, -1);
    }

    /** The reasons, with the rule each one applies. */
    public enum Kind {
        /** The last segment takes the appends and is never deleted, whatever its age (B9). */
        ACTIVE_SEGMENT("B9", false),
        /** Its range reaches the high watermark: only segments wholly below it can go (B9). */
        NOT_BELOW_HIGH_WATERMARK("B9", false),
        /** Its newest record is inside retention.ms until {@code atMs} (B11). */
        WITHIN_RETENTION_MS("B11", false),
        /** retention.ms is -1: time does not delete anything (B14). */
        RETENTION_MS_DISABLED("B14", false),
        /**
         * Deleting it would take the log below retention.bytes (B12); {@code bytes} is what the log holds
         * above retention.bytes after the pass, less than this segment.
         */
        NEEDED_FOR_RETENTION_BYTES("B12", false),
        /** retention.bytes is -1: size does not delete anything (B14). */
        RETENTION_BYTES_DISABLED("B14", false),
        /** The rule would take it, but an older segment ({@code offset}) must stay: only a prefix goes (B10). */
        BLOCKED_BY_OLDER_SEGMENT("B10", false),
        /** Wholly below the log start offset: the next pass ({@code atMs}) deletes it (B13, B28). */
        DUE_BELOW_LOG_START_OFFSET("B13", true),
        /** The log exceeds retention.bytes by at least this segment: the next pass deletes it (B12). */
        DUE_RETENTION_BYTES("B12", true),
        /** Its newest record is older than retention.ms: the next pass deletes it (B11). */
        DUE_RETENTION_MS("B11", true),
        /** Deleted and renamed {@code .deleted}; its files are unlinked at {@code atMs} (B17). */
        AWAITING_UNLINK("B17", false),
        /** Unlinked, but a reader still holds its file open: {@code bytes} stay in use until it closes (B19). */
        DELETED_HELD_OPEN("B19", false);

        private final String rule;
        private final boolean due;

        Kind(String rule, boolean due) {
            this.rule = rule;
            this.due = due;
        }

        /** The rule of docs/behaviours.md, e.g. "B11". */
        public String rule() {
            return rule;
        }

        /** True for the kinds that mean the next retention pass deletes the segment. */
        public boolean due() {
            return due;
        }
    }
}
