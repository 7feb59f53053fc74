package io.tideline.replication.follower;

/**
 * A rebuild in progress: it restarted the log at {@code startOffset} and is done once the log end
 * reaches {@code targetOffset} (the leader's high watermark when the rebuild began).
 */
public record RebuildProgress(long startOffset, long targetOffset, long currentOffset) {
    /** Fraction done in [0, 1]; 1 when there was nothing to copy. */
    public double fraction() {
        long total = targetOffset - startOffset;
        if (total <= 0) {
            return 1.0;
        }
        return Math.min(1.0, Math.max(0.0, (double) (currentOffset - startOffset) / total));
    }
}
