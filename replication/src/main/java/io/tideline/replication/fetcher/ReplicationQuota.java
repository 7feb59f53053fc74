package io.tideline.replication.fetcher;

import io.tideline.common.time.Time;
import java.util.Objects;

/**
 * A bytes-per-second throttle for replication traffic (leader.replication.throttled.rate,
 * follower.replication.throttled.rate): a token bucket that may go into debt. Bytes already sent are
 * recorded whole (a batch is never split); while the bucket is in debt the quota is exceeded and
 * throttled partitions get no bytes, so over any stretch of a few seconds the rate stays within one
 * fetch of the configured value. The bucket holds at most a tenth of a second of tokens, which bounds
 * the burst after an idle period.
 *
 * <p>Thread-safe. {@link Long#MAX_VALUE} means unlimited (the default).
 */
public final class ReplicationQuota {
    public static final long UNLIMITED = Long.MAX_VALUE;

    private final Time time;
    private volatile long bytesPerSecond;
    private double tokens;
    private long lastRefillNanos;
    private long totalRecorded;

    public ReplicationQuota(long bytesPerSecond, Time time) {
        this.time = Objects.requireNonNull(time, "time");
        this.lastRefillNanos = time.nanoseconds();
        setRate(bytesPerSecond);
    }

    public static ReplicationQuota unlimited(Time time) {
        return new ReplicationQuota(UNLIMITED, time);
    }

    /** Changes the rate (dynamic config) from now on; the current debt is kept. */
    public synchronized void setRate(long newBytesPerSecond) {
        if (newBytesPerSecond <= 0) {
            throw new IllegalArgumentException("A replication throttle must be positive: " + newBytesPerSecond);
        }
        if (bytesPerSecond > 0 && !isUnlimited()) {
            // Time since the last refill ran at the old rate: settle it before the rate changes.
            refill();
        }
        this.bytesPerSecond = newBytesPerSecond;
        this.tokens = Math.min(tokens, capacity());
    }

    public long rate() {
        return bytesPerSecond;
    }

    public boolean isUnlimited() {
        return bytesPerSecond == UNLIMITED;
    }

    /** True while recorded bytes exceed what the rate allowed so far. */
    public synchronized boolean isExceeded() {
        if (isUnlimited()) {
            return false;
        }
        refill();
        return tokens < 0;
    }

    /** How long until the quota is no longer exceeded, in ms (0 if it is not). */
    public synchronized long throttleTimeMs() {
        if (isUnlimited()) {
            return 0;
        }
        refill();
        return tokens >= 0 ? 0 : (long) Math.ceil(-tokens * 1000.0 / bytesPerSecond);
    }

    /** Counts bytes that went out (or came in) for throttled replicas. */
    public synchronized void record(long bytes) {
        totalRecorded += bytes;
        if (isUnlimited()) {
            return;
        }
        refill();
        tokens -= bytes;
    }

    public synchronized long totalRecorded() {
        return totalRecorded;
    }

    private double capacity() {
        return Math.max(1.0, bytesPerSecond / 10.0);
    }

    private void refill() {
        long now = time.nanoseconds();
        long elapsed = now - lastRefillNanos;
        lastRefillNanos = now;
        if (elapsed > 0) {
            tokens = Math.min(capacity(), tokens + elapsed * (bytesPerSecond / 1e9));
        }
    }
}
