package io.tideline.replication.follower;

/**
 * Why a replica is FAILED: at {@code fetchOffset} (its log end) it could not go on from the leader's log, which
 * held [{@code leaderLogStartOffset}, {@code leaderLogEndOffset}): the fetch offset lay below that range (B42), or
 * a truncation the leader asked for could not be made (B133). {@code sinceMs} is when that was seen.
 */
public record FailureReason(long fetchOffset, long leaderLogStartOffset, long leaderLogEndOffset, long sinceMs,
                            String message) {
}
