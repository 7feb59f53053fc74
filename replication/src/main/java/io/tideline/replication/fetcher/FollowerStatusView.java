package io.tideline.replication.fetcher;

import io.tideline.replication.follower.FailureReason;
import io.tideline.replication.follower.RebuildProgress;
import io.tideline.replication.follower.ReplicaStatus;
import java.util.Optional;

/**
 * A consistent snapshot of a follower replica, published by its fetcher thread after every change.
 *
 * @param lag           the leader's high watermark in the last answer minus the local log end (0 when ahead)
 * @param statusSinceMs when {@code status} began (the broker's clock); -1 when FETCHING from the start
 */
public record FollowerStatusView(int leaderId, int leaderEpoch, ReplicaStatus status, Optional<FailureReason> failure,
                                 Optional<RebuildProgress> rebuild, long logEndOffset, long lag, long statusSinceMs) {
}
