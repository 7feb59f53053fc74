package io.tideline.tools.cli;

import io.tideline.common.time.Time;

/**
 * Paces sends to about {@code --throughput} records per second: record n is not sent before
 * {@code start + n / rate}. The sender sleeps only once it is at least {@link #MIN_SLEEP_NS} ahead, so
 * that a high rate costs a few sleeps per second rather than one per record, and a sender that fell
 * behind (a slow answer, a full send window) catches up at full speed instead of being held back.
 * A negative rate sends as fast as possible. Used by one thread.
 */
final class Throttle {
    private static final long MIN_SLEEP_NS = 2_000_000;

    private final double recordsPerSecond;
    private final long startNs;
    private final Time time;

    Throttle(double recordsPerSecond, Time time) {
        this.recordsPerSecond = recordsPerSecond;
        this.time = time;
        this.startNs = time.nanoseconds();
    }

    /** Waits, if need be, until {@code sent} records are due. */
    void pace(long sent) {
        if (recordsPerSecond < 0) {
            return;
        }
        long dueNs = startNs + (long) (sent * 1e9 / recordsPerSecond);
        long aheadNs = dueNs - time.nanoseconds();
        if (aheadNs >= MIN_SLEEP_NS) {
            time.sleep(aheadNs / 1_000_000);
        }
    }
}
