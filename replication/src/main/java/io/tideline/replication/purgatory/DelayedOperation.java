package io.tideline.replication.purgatory;

import io.tideline.common.time.Scheduler;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A request parked until a condition holds or its timeout passes (an acks=all produce waiting for the
 * high watermark, a DeleteRecords waiting for followers' start offsets, a replica fetch waiting for
 * bytes). It completes exactly once: by {@link #tryComplete()} finding its condition met, by
 * {@link #forceComplete()} (leadership lost, shutdown), or by expiry.
 *
 * <p>{@link #tryComplete()} may run on any thread that changes what the operation waits for; it must
 * not be called while holding a partition lock that another operation's {@code tryComplete} could take,
 * so callers trigger {@link DelayedOperations#checkAndComplete} after releasing their locks.
 */
public abstract class DelayedOperation {
    private final long timeoutMs;
    private final AtomicBoolean completed = new AtomicBoolean();
    private volatile Scheduler.Cancellable timer;

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

    final void expire() {
        complete(true);
    }

    private boolean complete(boolean expired) {
        if (!completed.compareAndSet(false, true)) {
            return false;
        }
        Scheduler.Cancellable t = timer;
        if (t != null && !expired) {
            t.cancel();
        }
        onComplete(expired);
        return true;
    }

    final void setTimer(Scheduler.Cancellable timer) {
        this.timer = timer;
        if (isCompleted()) {
            timer.cancel();
        }
    }
}
