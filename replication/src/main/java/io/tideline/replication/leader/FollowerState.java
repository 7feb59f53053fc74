package io.tideline.replication.leader;

/**
 * What the leader knows of one follower, updated on each of its fetches. Not thread-safe; owned by
 * {@link LeaderState} under the partition lock.
 */
public final class FollowerState {
    /** Kafka's UnknownOffset: the follower has not fetched since this leadership began. */
    public static final long UNKNOWN_OFFSET = -1L;

    private final int replicaId;
    private long logEndOffset = UNKNOWN_OFFSET;
    private long logStartOffset = UNKNOWN_OFFSET;
    private long lastCaughtUpTimeMs;
    private long lastFetchTimeMs;
    private long lastFetchLeaderLogEndOffset = UNKNOWN_OFFSET;
    private final CatchUpRate catchUpRate = new CatchUpRate();

    FollowerState(int replicaId, long lastCaughtUpTimeMs) {
        this.replicaId = replicaId;
        this.lastCaughtUpTimeMs = lastCaughtUpTimeMs;
    }

    /**
     * Kafka's caught-up rule (docs/behaviours.md B34): a fetch at or past the leader's end offset now means
     * the follower was caught up now; a fetch at or past the end offset the leader had at the previous
     * fetch means it was caught up at the previous fetch time (it has everything that existed then).
     */
    void onFetch(long fetchOffset, long followerLogStartOffset, long leaderLogEndOffset, long nowMs) {
        if (fetchOffset >= leaderLogEndOffset) {
            lastCaughtUpTimeMs = Math.max(lastCaughtUpTimeMs, nowMs);
        } else if (lastFetchLeaderLogEndOffset != UNKNOWN_OFFSET && fetchOffset >= lastFetchLeaderLogEndOffset) {
            lastCaughtUpTimeMs = Math.max(lastCaughtUpTimeMs, lastFetchTimeMs);
        }
        logEndOffset = fetchOffset;
        logStartOffset = followerLogStartOffset;
        lastFetchLeaderLogEndOffset = leaderLogEndOffset;
        lastFetchTimeMs = nowMs;
        catchUpRate.record(nowMs, fetchOffset);
    }

    /** Its log end's recent progress, for replicas --describe. */
    public CatchUpRate catchUpRate() {
        return catchUpRate;
    }

    public int replicaId() {
        return replicaId;
    }

    public long logEndOffset() {
        return logEndOffset;
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    public long lastCaughtUpTimeMs() {
        return lastCaughtUpTimeMs;
    }

    public long lastFetchTimeMs() {
        return lastFetchTimeMs;
    }

    public long lastFetchLeaderLogEndOffset() {
        return lastFetchLeaderLogEndOffset;
    }

    @Override
    public String toString() {
        return "FollowerState(replica=" + replicaId + ", leo=" + logEndOffset + ", lso=" + logStartOffset
                + ", lastCaughtUp=" + lastCaughtUpTimeMs + ", lastFetch=" + lastFetchTimeMs
                + ", leaderLeoAtLastFetch=" + lastFetchLeaderLogEndOffset + ")";
    }
}
