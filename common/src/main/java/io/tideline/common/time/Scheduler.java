package io.tideline.common.time;

/**
 * Runs background work (retention passes, delayed unlinks, checkpoint flushes). Components get a
 * scheduler they do not own, so a test can hand them test-support's {@code MockScheduler} driven by
 * {@code MockTime}.
 */
public interface Scheduler {

    /**
     * Runs {@code task} after {@code delayMs}, then every {@code periodMs} if it is positive.
     * A task that throws is logged and, if periodic, keeps its schedule.
     */
    Cancellable schedule(String name, Runnable task, long delayMs, long periodMs);

    default Cancellable scheduleOnce(String name, Runnable task, long delayMs) {
        return schedule(name, task, delayMs, -1);
    }

    interface Cancellable {
        void cancel();
    }
}
