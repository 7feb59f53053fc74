package io.tideline.replication.follower;

/** The leader's answer to a fetch whose last fetched epoch diverged: its epoch {@code epoch} ends at {@code endOffset}. */
public record DivergingEpoch(int epoch, long endOffset) {
}
