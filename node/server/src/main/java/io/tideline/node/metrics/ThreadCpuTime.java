package io.tideline.node.metrics;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;

/**
 * The CPU time of the threads one {@link ThreadFactory} makes, the busy time of a group of event-loop threads
 * (for {@link IdleRatioGauge}): an event loop never blocks but in its selector, so the CPU it uses is its busy
 * time, user and system alike. A thread that has ended no longer counts. Thread-safe.
 */
public final class ThreadCpuTime {
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final List<Thread> made = new CopyOnWriteArrayList<>();

    /** Whether this JVM measures the CPU time of its threads (HotSpot does on Linux, macOS and Windows). */
    public boolean supported() {
        return threads.isThreadCpuTimeSupported() && threads.isThreadCpuTimeEnabled();
    }

    /** {@code factory}, remembering each thread it makes. */
    public ThreadFactory track(ThreadFactory factory) {
        return r -> {
            Thread t = factory.newThread(r);
            made.add(t);
            return t;
        };
    }

    /** The CPU nanoseconds of the live threads made so far, in total. */
    public long cpuNanos() {
        long total = 0;
        for (Thread t : made) {
            long ns = threads.getThreadCpuTime(t.getId());
            if (ns > 0) {
                total += ns;
            }
        }
        return total;
    }
}
