package io.tideline.tools.cli;

import io.tideline.client.ReplicaRetention.Reason;

/** The sentences {@code explain-retention} prints for each reason kind (docs/behaviours.md B59). Stateless. */
final class RetentionText {
    private RetentionText() {
    }

    /** One reason as a sentence ending with its rule, times in ISO-8601. */
    static String reason(Reason r) {
        String text = switch (r.kind()) {
            case "ACTIVE_SEGMENT" -> "the active segment, never deleted";
            case "NOT_BELOW_HIGH_WATERMARK" -> "not wholly below the high watermark " + r.offset();
            case "WITHIN_RETENTION_MS" -> "its newest record is inside retention.ms until " + TextTable.time(r.atMs());
            case "RETENTION_MS_DISABLED" -> "retention.ms is -1";
            case "NEEDED_FOR_RETENTION_BYTES" -> "needed to stay within retention.bytes (" + r.bytes()
                    + " bytes over it after the pass)";
            case "RETENTION_BYTES_DISABLED" -> "retention.bytes is -1";
            case "BLOCKED_BY_OLDER_SEGMENT" -> "the older segment " + r.offset() + " stays, and only a prefix goes";
            case "DUE_BELOW_LOG_START_OFFSET" -> "due: wholly below the log start offset; the retention pass at "
                    + TextTable.time(r.atMs()) + " deletes it";
            case "DUE_RETENTION_BYTES" -> "due: the log is over retention.bytes by at least this segment; the retention "
                    + "pass at " + TextTable.time(r.atMs()) + " deletes it";
            case "DUE_RETENTION_MS" -> "due: its newest record is older than retention.ms; the retention pass at "
                    + TextTable.time(r.atMs()) + " deletes it";
            case "AWAITING_UNLINK" -> "renamed .deleted; unlinked at " + TextTable.time(r.atMs());
            case "DELETED_HELD_OPEN" -> "unlinked, but a reader still holds it open (" + r.bytes() + " bytes in use)";
            default -> r.kind();
        };
        return text + " (" + r.rule() + ")";
    }
}
