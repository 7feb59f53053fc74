package io.tideline.store.tools;

import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import java.util.PriorityQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The benchmarks' clock and scheduler in one: time moves only through {@link #advance}, and a task runs only
 * when an advance reaches its due time, on the advancing thread, in due-time order (submission order on a tie).
 * So a benchmark decides what a measured call includes: the unlinks after file.delete.delay.ms run inside the
 * advance it times, and the flush that a roll schedules never runs behind an append loop. Tests get the same
 * from test-support's MockTime and MockScheduler, which main code cannot depend on.
 * Single-threaded: a benchmark drives it from its own thread.
 */
final class SteppedClock implements Time, Scheduler {
    private static final Logger log = LoggerFactory.getLogger(SteppedClock.class);
    /** The default start: a fixed wall-clock time, so runs are repeatable. */
    private static final long START_MS = 1_700_000_000_000L;

    private final PriorityQueue<Task> due = new PriorityQueue<>();
    private long nowMs;
    private long submitted;

    SteppedClock() {
        this(START_MS);
    }

    SteppedClock(long startMs) {
        this.nowMs = startMs;
    }

    @Override
    public long milliseconds() {
        return nowMs;
    }

    @Override
    public long nanoseconds() {
        return nowMs * 1_000_000L;
    }

    @Override
    public void sleep(long ms) {
        advance(ms);
    }

    /** Moves the clock on by {@code ms}, then runs every task that has come due. */
    void advance(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("time does not go backwards: " + ms);
        }
        nowMs += ms;
        Task next;
        while ((next = due.peek()) != null && next.dueMs <= nowMs) {
            due.poll();
            try {
                next.work.run();
            } catch (RuntimeException e) {
                log.error("Scheduled task {} failed", next.name, e);
            }
            if (next.periodMs > 0 && !next.cancelled) {
                // Due one period after this run was due; queued again as the same object, which the handle
                // from schedule() removes.
                next.dueMs += next.periodMs;
                next.seq = submitted++;
                due.add(next);
            }
        }
    }

    @Override
    public Cancellable schedule(String name, Runnable task, long delayMs, long periodMs) {
        Task entry = new Task(name, task, nowMs + Math.max(0, delayMs), periodMs, submitted++);
        due.add(entry);
        return () -> {
            entry.cancelled = true;
            due.remove(entry);
        };
    }

    private static final class Task implements Comparable<Task> {
        final String name;
        final Runnable work;
        final long periodMs;
        long dueMs;
        long seq;
        boolean cancelled;

        Task(String name, Runnable work, long dueMs, long periodMs, long seq) {
            this.name = name;
            this.work = work;
            this.dueMs = dueMs;
            this.periodMs = periodMs;
            this.seq = seq;
        }

        @Override
        public int compareTo(Task o) {
            int c = Long.compare(dueMs, o.dueMs);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }
}
