package io.tideline.node.metrics;

import io.tideline.common.time.Time;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;

/**
 * An executor that runs each task on {@code delegate} and adds the time it ran to a total, the busy time of the
 * pool behind it (for {@link IdleRatioGauge}). A task counts when it ends, so one running across a reading counts
 * in the next. The injected {@link Time} measures the tasks. Thread-safe.
 */
public final class BusyTimeExecutor implements Executor {
    private final Executor delegate;
    private final Time time;
    private final LongAdder busyNanos = new LongAdder();

    public BusyTimeExecutor(Executor delegate, Time time) {
        this.delegate = delegate;
        this.time = time;
    }

    @Override
    public void execute(Runnable task) {
        delegate.execute(() -> {
            long start = time.nanoseconds();
            try {
                task.run();
            } finally {
                busyNanos.add(time.nanoseconds() - start);
            }
        });
    }

    /** Nanoseconds the tasks that have ended ran for, in total. */
    public long busyNanos() {
        return busyNanos.sum();
    }
}
