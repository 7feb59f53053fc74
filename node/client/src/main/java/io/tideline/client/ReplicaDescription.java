package io.tideline.client;

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
 */
public record ReplicaDescription(int brokerId, ReplicaState state, String reason, long sinceMs, long logEndOffset,
                                 long lagOffsets, long lagBytes, double catchUpBytesPerSecond,
                                 double catchUpOffsetsPerSecond) {

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
