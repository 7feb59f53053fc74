package io.tideline.node.metrics;

import com.codahale.metrics.Gauge;
import io.tideline.common.time.Time;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The fraction of a group of threads' time spent idle, 0 (all busy) to 1 (all idle), as Kafka reports
 * {@code RequestHandlerAvgIdlePercent} and {@code NetworkProcessorAvgIdlePercent}: one minus the busy nanoseconds
 * the group accumulated over an interval, divided by the interval times the number of threads.
 *
 * <p>The interval ends at the read and starts at a sample between one and two {@code windowNanos} old (before
 * the first window has passed: at construction), so two scrapers or a JMX console reading at once see the same
 * recent figure and neither resets the other's. The injected {@link Time} measures the intervals; the busy
 * source is whatever the caller measures in (it must be nanoseconds on the same scale). Thread-safe.
 */
public final class IdleRatioGauge implements Gauge<Double> {
    /** Ten seconds: a reading covers 10 to 20 s, shorter than the usual 15-30 s scrape interval's rate window. */
    public static final long WINDOW_NANOS = 10_000_000_000L;

    private final LongSupplier busyNanos;
    private final IntSupplier threads;
    private final Time time;
    private final long windowNanos;
    private Sample older;
    private Sample newer;

    /**
     * @param busyNanos   the busy nanoseconds of all the group's threads since some fixed start; never decreases
     * @param threads     how many threads the group has
     * @param windowNanos the shortest interval a reading covers once the gauge is that old
     */
    public IdleRatioGauge(LongSupplier busyNanos, IntSupplier threads, Time time, long windowNanos) {
        if (windowNanos <= 0) {
            throw new IllegalArgumentException("windowNanos must be positive: " + windowNanos);
        }
        this.busyNanos = busyNanos;
        this.threads = threads;
        this.time = time;
        this.windowNanos = windowNanos;
        this.older = sample();
        this.newer = older;
    }

    @Override
    public synchronized Double getValue() {
        Sample now = sample();
        if (now.atNanos - newer.atNanos >= windowNanos) {
            older = newer;
            newer = now;
        }
        long elapsed = now.atNanos - older.atNanos;
        int n = threads.getAsInt();
        if (elapsed <= 0 || n <= 0) {
            // No time has passed to measure (or no thread to be busy): nothing was busy.
            return 1.0;
        }
        double busy = (double) (now.busyNanos - older.busyNanos) / ((double) elapsed * n);
        return Math.max(0.0, Math.min(1.0, 1.0 - busy));
    }

    private Sample sample() {
        return new Sample(time.nanoseconds(), busyNanos.getAsLong());
    }

    private record Sample(long atNanos, long busyNanos) {
    }
}
