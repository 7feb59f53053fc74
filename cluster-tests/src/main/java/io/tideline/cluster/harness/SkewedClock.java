package io.tideline.cluster.harness;

import io.tideline.common.time.Time;
import java.time.Duration;

/**
 * One node's clock in the harness: the cluster's {@link Time} with an offset on its wall clock, so a test can
 * set one node seconds ahead of or behind the others, as NTP drift or a bad host clock does. Only
 * {@link #milliseconds()} moves: monotonic time is local to a process and never compared across nodes, and
 * record timestamps, retention and the controller's session deadlines all read the wall clock. Safe for
 * concurrent use: the offset is one volatile field.
 */
public final class SkewedClock implements Time {
    private final Time base;
    private volatile long offsetMs;

    public SkewedClock(Time base) {
        this.base = base;
    }

    /** Sets this clock {@code offset} ahead of the cluster's (behind when negative); zero puts it right. */
    public void skew(Duration offset) {
        this.offsetMs = offset.toMillis();
    }

    public Duration skew() {
        return Duration.ofMillis(offsetMs);
    }

    @Override
    public long milliseconds() {
        return base.milliseconds() + offsetMs;
    }

    @Override
    public long nanoseconds() {
        return base.nanoseconds();
    }

    @Override
    public void sleep(long ms) {
        base.sleep(ms);
    }
}
