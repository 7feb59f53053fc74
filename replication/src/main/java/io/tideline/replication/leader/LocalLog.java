package io.tideline.replication.leader;

/**
 * The view of the leader's own log that {@link LeaderState} needs: its bounds and the high watermark.
 * Kept this small so the leader logic is testable against an in-memory fake; {@link LogAdapter} backs it
 * with the store's {@code Log}.
 */
public interface LocalLog {

    long logStartOffset();

    long logEndOffset();

    long highWatermark();

    /**
     * Publishes a new high watermark. The implementation may clamp it to [logStartOffset, logEndOffset];
     * {@link LeaderState} only ever passes a value at or below the log end offset.
     */
    void updateHighWatermark(long newHighWatermark);
}
