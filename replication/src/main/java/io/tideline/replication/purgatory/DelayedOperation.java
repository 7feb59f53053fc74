package io.tideline.replication.purgatory;

import io.tideline.common.time.Scheduler;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A request parked until a condition holds or its timeout passes (an acks=all produce waiting for the
 * high watermark, a DeleteRecords waiting for followers' start offsets, a replica fetch waiting for
 * bytes). It completes exactly once: by {@link #tryComplete()} finding its condition met, by
 * {@link #forceComplete()} (leadership lost, shutdown), or by expiry.
 *
 * <p>Whichever way it completes, it then leaves every watcher set it joined and its timer is cancelled,
 * so a completed operation (and the answer it built, which may hold megabytes of records) is never
 * retained by the purgatory: a replica fetch over one busy and several idle partitions completes through
 * the busy one, and the idle partitions' keys, which nobody checks, must not keep it.
 *
 * <p>{@link #tryComplete()} may run on any thread that changes what the operation waits for; it must
 * not be called while holding a partition lock that another operation's {@code tryComplete} could take,
 * so callers trigger {@link DelayedOperations#checkAndComplete} after releasing their locks.
 */
public abstract class DelayedOperation {
    private final long timeoutMs;
    private final AtomicBoolean completed = new AtomicBoolean();
    private volatile Scheduler.Cancellable timer;
    /** Set by the purgatory before the operation joins any watcher set; removes it from all of them. */
    private volatile Runnable unwatch;

    protected DelayedOperation(long timeoutMs) {
        this.timeoutMs = timeoutMs;
    }

    public long timeoutMs() {
        return timeoutMs;
    }

    public boolean isCompleted() {
        return completed.get();
    }

    /**
     * Checks the condition and calls {@link #forceComplete()} if it holds. Implementations are called
     * under this operation's monitor, never concurrently with each other.
     *
     * @return whether the operation is complete now
     */
    protected abstract boolean tryComplete();

    /**
     * Builds and sends the answer. Runs once, on the thread that completed the operation.
     *
     * @param expired true when the timeout passed before the condition held
     */
    protected abstract void onComplete(boolean expired);

    /** Completes now whatever the condition; false if it was already complete. */
    public final boolean forceComplete() {
        return complete(false);
    }

    final synchronized boolean maybeTryComplete() {
        return isCompleted() || tryComplete();
    }

    /** The timeout passed: completes as expired; false if something completed it first. */
    final boolean expire() {
        return complete(true);
    }

    private boolean complete(boolean expired) {
        if (!completed.compareAndSet(false, true)) {
            return false;
        }
        Scheduler.Cancellable t = timer;
        timer = null;
        if (t != null && !expired) {
            t.cancel();
        }
        try {
            onComplete(expired);
        } finally {
            Runnable u = unwatch;
            unwatch = null;
            if (u != null) {
                u.run();
            }
        }
        return true;
    }

    final void setUnwatch(Runnable unwatch) {
        this.unwatch = unwatch;
    }

    final void setTimer(Scheduler.Cancellable timer) {
        this.timer = timer;
        if (isCompleted()) {
            // Completed between the last check and here: complete() saw no timer to cancel.
            this.timer = null;
            timer.cancel();
        }
    }
}
