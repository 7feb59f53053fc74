package io.tideline.common.time;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A scheduler whose tasks run on the thread that advances its {@link MockTime}, in due-time order;
 * the clock is already at or past a task's due time when it runs, and tasks due at the same time
 * run in submission order. Periodic
 * tasks are rescheduled from their due time, so jumping a day runs an hourly task 24 times.
 * Thread-safe; tasks never run concurrently with each other.
 */
public final class MockScheduler implements Scheduler {
    private final MockTime time;
    private final PriorityQueue<Entry> queue = new PriorityQueue<>();
    private final List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    private long sequence;
    private boolean running;

    public MockScheduler(MockTime time) {
        this.time = time;
        time.addListener(now -> tick());
    }

    @Override
    public synchronized Cancellable schedule(String name, Runnable task, long delayMs, long periodMs) {
        Entry entry = new Entry(name, task, time.milliseconds() + Math.max(0, delayMs), periodMs, sequence++);
        queue.add(entry);
        return () -> {
            synchronized (MockScheduler.this) {
                entry.cancelled = true;
                queue.remove(entry);
            }
        };
    }

    /** Runs every task due at the current mock time (also called on every clock advance). */
    public void tick() {
        synchronized (this) {
            if (running) {
                return; // a task advanced the clock; the outer loop picks up what became due
            }
            running = true;
        }
        try {
            while (true) {
                Entry next;
                synchronized (this) {
                    next = queue.peek();
                    if (next == null || next.dueMs > time.milliseconds()) {
                        return;
                    }
                    queue.poll();
                }
                try {
                    next.task.run();
                } catch (RuntimeException | AssertionError e) {
                    // The Scheduler contract: a failing task is reported and keeps its schedule. Tests
                    // see the failure through failures() instead of an exception out of advance().
                    failures.add(e);
                }
                synchronized (this) {
                    if (next.periodMs > 0 && !next.cancelled) {
                        // Re-queue the same entry: the handle returned by schedule() must still cancel it.
                        next.dueMs += next.periodMs;
                        next.seq = sequence++;
                        queue.add(next);
                    }
                }
            }
        } finally {
            synchronized (this) {
                running = false;
            }
        }
    }

    /** Exceptions thrown by tasks so far, oldest first. */
    public List<Throwable> failures() {
        return List.copyOf(failures);
    }

    public synchronized List<String> pendingTaskNames() {
        List<String> names = new ArrayList<>();
        for (Entry e : queue) {
            names.add(e.name);
        }
        return names;
    }

    private static final class Entry implements Comparable<Entry> {
        final String name;
        final Runnable task;
        long dueMs; // changed only while the entry is out of the queue
        final long periodMs;
        long seq;
        volatile boolean cancelled;

        Entry(String name, Runnable task, long dueMs, long periodMs, long seq) {
            this.name = name;
            this.task = task;
            this.dueMs = dueMs;
            this.periodMs = periodMs;
            this.seq = seq;
        }

        @Override
        public int compareTo(Entry o) {
            int c = Long.compare(dueMs, o.dueMs);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }
}
