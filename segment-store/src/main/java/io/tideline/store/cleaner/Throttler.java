package io.tideline.store.cleaner;

import io.tideline.common.time.Time;

/**
 * Holds the cleaner threads together to log.cleaner.io.max.bytes.per.second of reads plus writes
 * (docs/behaviours.md B192): bytes are counted from the start of a period on the injected clock, and a
 * thread that finds them a check interval or more ahead of the rate sleeps until they are within it.
 * Thread-safe: the threads share one throttler.
 */
public final class Throttler {
    private final double bytesPerSecond;
    private final long checkIntervalMs;
    private final Time time;
    private long periodStartMs;
    private long bytesInPeriod;
    private long throttledMs;

    public Throttler(double bytesPerSecond, long checkIntervalMs, Time time) {
        this.bytesPerSecond = bytesPerSecond;
        this.checkIntervalMs = checkIntervalMs;
        this.time = time;
        this.periodStartMs = time.milliseconds();
    }

    public synchronized void maybeThrottle(long bytes) {
        if (bytesPerSecond == Double.MAX_VALUE || bytesPerSecond <= 0 || Double.isInfinite(bytesPerSecond)) {
            return;
        }
        bytesInPeriod += bytes;
        long now = time.milliseconds();
        long elapsed = now - periodStartMs;
        // How far the threads are ahead of the rate: they sleep it off once it reaches a check interval, so a
        // clock that only moves when told to (tests) throttles exactly as a real one.
        long aheadMs = Math.round(bytesInPeriod * 1000.0 / bytesPerSecond) - elapsed;
        if (aheadMs >= checkIntervalMs) {
            throttledMs += aheadMs;
            time.sleep(aheadMs);
            periodStartMs = time.milliseconds();
            bytesInPeriod = 0;
        } else if (elapsed >= checkIntervalMs && aheadMs <= 0) {
            // Slower than the rate over a whole interval: no credit is carried into the next one.
            periodStartMs = now;
            bytesInPeriod = 0;
        }
    }

    /** Total time the throttler made threads sleep. */
    public synchronized long throttledMs() {
        return throttledMs;
    }
}
