package io.tideline.common.time;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The production scheduler: a small pool of daemon threads. Thread-safe. */
public final class ThreadPoolScheduler implements Scheduler, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ThreadPoolScheduler.class);

    private final ScheduledThreadPoolExecutor executor;

    public ThreadPoolScheduler(String threadNamePrefix, int threads) {
        AtomicInteger counter = new AtomicInteger();
        ThreadFactory factory = r -> {
            Thread t = new Thread(r, threadNamePrefix + "-" + counter.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        executor = new ScheduledThreadPoolExecutor(threads, factory);
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public Cancellable schedule(String name, Runnable task, long delayMs, long periodMs) {
        Runnable guarded = () -> {
            try {
                task.run();
            } catch (Throwable t) {
                log.error("Scheduled task {} failed", name, t);
            }
        };
        ScheduledFuture<?> future = periodMs > 0
                ? executor.scheduleAtFixedRate(guarded, Math.max(0, delayMs), periodMs, TimeUnit.MILLISECONDS)
                : executor.schedule(guarded, Math.max(0, delayMs), TimeUnit.MILLISECONDS);
        return () -> future.cancel(false);
    }

    /** Stops accepting work, lets a running task finish, and drops the delayed ones. */
    @Override
    public void close() {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
