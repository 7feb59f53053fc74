package io.tideline.replication.follower;

/**
 * Why a replica is FAILED: it asked for {@code fetchOffset} but the leader only holds
 * [{@code leaderLogStartOffset}, {@code leaderLogEndOffset}); {@code sinceMs} is when that was seen.
 */
public record FailureReason(long fetchOffset, long leaderLogStartOffset, long leaderLogEndOffset, long sinceMs,
                            String message) {
}
