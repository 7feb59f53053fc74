package io.tideline.store.checkpoint;

/**
 * One line of a leader epoch checkpoint: the first offset written under {@code epoch}.
 *
 * @param epoch       the leader epoch, non-negative
 * @param startOffset the first offset of that epoch in this log, non-negative
 */
public record EpochEntry(int epoch, long startOffset) {

    public EpochEntry {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0: " + epoch);
        }
        if (startOffset < 0) {
            throw new IllegalArgumentException("startOffset must be >= 0: " + startOffset);
        }
    }
}
