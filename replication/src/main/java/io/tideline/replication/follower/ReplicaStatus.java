package io.tideline.replication.follower;

/**
 * Where the follower side of one partition stands. The details that go with a status live on
 * {@link FollowerPartition}: {@link FollowerPartition#failureReason()} for FAILED and
 * {@link FollowerPartition#rebuildProgress()} for REBUILDING.
 */
public enum ReplicaStatus {
    /** Fetching normally from the leader (including a new replica that bootstrapped at the leader's start). */
    FETCHING,
    /**
     * Fell behind the leader's log start offset under policy {@code halt}: stopped fetching, keeps its
     * data, stays out of the ISR until an operator reassigns it or asks for a rebuild.
     */
    FAILED,
    /** Truncated fully and catching up from the leader's log start offset to the leader's high watermark. */
    REBUILDING
}
