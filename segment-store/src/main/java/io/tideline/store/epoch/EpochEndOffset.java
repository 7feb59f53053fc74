package io.tideline.store.epoch;

/**
 * The answer to "where does my epoch end?": the largest epoch the log has at or below the one asked
 * for, and the offset just past its last record; both -1 when the log has no such epoch.
 */
public record EpochEndOffset(int epoch, long endOffset) {
    public static final EpochEndOffset UNDEFINED = new EpochEndOffset(LeaderEpochCache.UNDEFINED_EPOCH,
            LeaderEpochCache.UNDEFINED_OFFSET);
}
