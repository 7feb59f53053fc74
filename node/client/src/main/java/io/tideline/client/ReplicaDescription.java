package io.tideline.client;

import java.util.Optional;

/**
 * One replica of a partition as {@link TidelineAdmin#describeReplicas} reports it: the leader's view of its
 * followers (log end, lag, catch-up rate) joined with what each follower says of itself (FAILED, REBUILDING).
 *
 * @param state                   see {@link ReplicaState}
 * @param reason                  why it is in that state, one line (empty when IN_SYNC and nothing to say)
 * @param sinceMs                 when it entered that state, epoch milliseconds (-1 when unknown)
 * @param logEndOffset            its log end offset as the leader last saw it (-1 when unknown)
 * @param lagOffsets              the leader's log end offset minus {@code logEndOffset} (0 when caught up)
 * @param lagBytes                the bytes of the leader's log from {@code logEndOffset} to its end
 * @param catchUpBytesPerSecond   how fast it has been closing in, over the leader's recent window (0 when not
 *                                fetching)
 * @param catchUpOffsetsPerSecond the same in offsets
 * @param failure                 FAILED, as its broker reported it: the fetch offset and the leader's bounds it
 *                                saw (empty in other states, or when only the controller's record is known)
 * @param rebuild                 REBUILDING: its progress (empty in other states)
 */
public record ReplicaDescription(int brokerId, ReplicaState state, String reason, long sinceMs, long logEndOffset,
                                 long lagOffsets, long lagBytes, double catchUpBytesPerSecond,
                                 double catchUpOffsetsPerSecond, Optional<Failure> failure,
                                 Optional<Rebuild> rebuild) {

    public ReplicaDescription {
        failure = failure == null ? Optional.empty() : failure;
        rebuild = rebuild == null ? Optional.empty() : rebuild;
    }

    /** Without FAILED or REBUILDING details. */
    public ReplicaDescription(int brokerId, ReplicaState state, String reason, long sinceMs, long logEndOffset,
                              long lagOffsets, long lagBytes, double catchUpBytesPerSecond,
                              double catchUpOffsetsPerSecond) {
        this(brokerId, state, reason, sinceMs, logEndOffset, lagOffsets, lagBytes, catchUpBytesPerSecond,
                catchUpOffsetsPerSecond, Optional.empty(), Optional.empty());
    }

    /**
     * Why a replica is FAILED: it asked for {@code fetchOffset} and the leader held only
     * [{@code leaderLogStartOffset}, {@code leaderLogEndOffset}).
     */
    public record Failure(long fetchOffset, long leaderLogStartOffset, long leaderLogEndOffset) {
    }

    /**
     * A rebuild in progress: it restarted the log at {@code startOffset} and is done at {@code targetOffset}
     * (the leader's high watermark when it began); {@code currentOffset} is its log end now.
     */
    public record Rebuild(long startOffset, long targetOffset, long currentOffset) {
        /** Percent done, 0 to 100; 100 when there was nothing to copy. */
        public double percent() {
            long total = targetOffset - startOffset;
            if (total <= 0) {
                return 100.0;
            }
            return Math.min(100.0, Math.max(0.0, (currentOffset - startOffset) * 100.0 / total));
        }
    }

    /**
     * The estimated time until it has caught up, in milliseconds, from its lag and catch-up rate; -1 when it
     * is not closing in.
     */
    public long estimatedMillisLeft() {
        if (lagBytes <= 0 && lagOffsets <= 0) {
            return 0;
        }
        if (lagBytes > 0 && catchUpBytesPerSecond > 0) {
            return (long) Math.ceil(lagBytes * 1000.0 / catchUpBytesPerSecond);
        }
        if (lagOffsets > 0 && catchUpOffsetsPerSecond > 0) {
            return (long) Math.ceil(lagOffsets * 1000.0 / catchUpOffsetsPerSecond);
        }
        return -1;
    }
}
