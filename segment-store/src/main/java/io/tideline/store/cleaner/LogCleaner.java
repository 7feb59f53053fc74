package io.tideline.store.cleaner;

import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.store.config.CleanerConfig;
import io.tideline.store.log.Log;
import io.tideline.store.segment.SegmentSwap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log cleaner of one store (docs/behaviours.md B180-B193): log.cleaner.threads tasks on the store's
 * scheduler, each cleaning the filthiest compacted log ({@link LogCleanerManager}) and running again at once
 * after a cleaning, or after log.cleaner.backoff.ms when nothing was due. Each task owns a dedupe map of
 * log.cleaner.dedupe.buffer.size / threads bytes (at most 2 GiB, as in Kafka), allocated at its first
 * cleaning, and all share one I/O throttler. Time comes from the injected clock, so tests drive it with a
 * mock one.
 *
 * <p>Metrics (Kafka's names, kafka.log:type=LogCleaner and LogCleanerManager): {@link #maxDirtyPercent()},
 * {@link #cleanerRecopyPercent()}, {@link #maxCleanTimeSecs()}, {@link #maxBufferUtilizationPercent()},
 * {@link #maxCompactionDelaySecs()}, each over the last cleaning of every task.
 *
 * <p>Thread-safety: the tasks run on the scheduler's threads; the metric getters may be called from any.
 */
public final class LogCleaner implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LogCleaner.class);
    private static final long THROTTLE_CHECK_INTERVAL_MS = 300L;

    private final CleanerConfig config;
    private final LogCleanerManager manager;
    private final Scheduler scheduler;
    private final Time time;
    private final Throttler throttler;
    private final List<CleanerTask> tasks = new ArrayList<>();
    private volatile boolean running;

    public LogCleaner(CleanerConfig config, Supplier<Collection<Log>> logs, Time time, Scheduler scheduler) {
        this.config = config;
        this.manager = new LogCleanerManager(logs);
        this.scheduler = scheduler;
        this.time = time;
        this.throttler = new Throttler(config.maxIoBytesPerSecond(), THROTTLE_CHECK_INTERVAL_MS, time);
        for (int i = 0; i < config.threads(); i++) {
            tasks.add(new CleanerTask(i));
        }
    }

    public LogCleanerManager manager() {
        return manager;
    }

    public synchronized void startup() {
        running = true;
        for (CleanerTask task : tasks) {
            task.schedule(config.backoffMs());
        }
    }

    /** Runs one round of every task now (tests, and the operator's "clean now"); returns how many cleaned a log. */
    public int cleanNow() {
        int cleaned = 0;
        for (CleanerTask task : tasks) {
            cleaned += task.cleanFilthiestLog() ? 1 : 0;
        }
        return cleaned;
    }

    public double maxDirtyPercent() {
        return 100 * manager.dirtiestRatio();
    }

    public double maxCompactionDelaySecs() {
        return manager.maxCompactionDelayMs() / 1000.0;
    }

    public double cleanerRecopyPercent() {
        return lastStats().stream().mapToDouble(CleanerStats::recopyRatio).max().orElse(0) * 100;
    }

    public double maxCleanTimeSecs() {
        return lastStats().stream().mapToDouble(CleanerStats::elapsedSecs).max().orElse(0);
    }

    public double maxBufferUtilizationPercent() {
        return lastStats().stream().mapToDouble(CleanerStats::bufferUtilization).max().orElse(0) * 100;
    }

    private List<CleanerStats> lastStats() {
        List<CleanerStats> stats = new ArrayList<>();
        for (CleanerTask task : tasks) {
            CleanerStats last = task.lastStats;
            if (last != null) {
                stats.add(last);
            }
        }
        return stats;
    }

    @Override
    public synchronized void close() {
        running = false;
        for (CleanerTask task : tasks) {
            task.cancel();
        }
    }

    /** One of log.cleaner.threads: its map, its buffers and its schedule. */
    private final class CleanerTask {
        private final int index;
        private Cleaner cleaner;
        private Scheduler.Cancellable next;
        private volatile CleanerStats lastStats;

        CleanerTask(int index) {
            this.index = index;
        }

        synchronized void schedule(long delayMs) {
            if (running) {
                next = scheduler.scheduleOnce("kafka-log-cleaner-thread-" + index, this::run, delayMs);
            }
        }

        synchronized void cancel() {
            if (next != null) {
                next.cancel();
            }
        }

        private void run() {
            boolean cleaned = false;
            try {
                cleaned = cleanFilthiestLog();
            } finally {
                schedule(cleaned ? 0 : config.backoffMs());
            }
        }

        synchronized boolean cleanFilthiestLog() {
            Optional<LogToClean> grabbed = manager.grabFilthiestCompactedLog(time.milliseconds());
            if (grabbed.isEmpty()) {
                return false;
            }
            LogToClean cleanable = grabbed.get();
            Log target = cleanable.log();
            try {
                Cleaner.Result result = cleaner().clean(cleanable,
                        () -> manager.checkCleaningAborted(target.topicPartition()));
                lastStats = result.stats();
                manager.doneCleaning(target, result.endOffset(), time.milliseconds(),
                        result.stats().largestRemovedTombstoneOffset());
                return true;
            } catch (LogCleaningAbortedException e) {
                log.info("Cleaning of {} stopped: {}", target.topicPartition(), e.getMessage());
                manager.cleaningStopped(target.topicPartition(), false);
                return false;
            } catch (Exception e) {
                if (segmentsLeftTheLog(cleanable)) {
                    // A truncation or deletion closed a segment under the cleaning: it stops as if aborted (B189).
                    log.info("Cleaning of {} stopped: its segments changed ({})", target.topicPartition(), e.toString());
                    manager.cleaningStopped(target.topicPartition(), false);
                    return false;
                }
                // Kafka's rule: a log whose cleaning fails is left alone until the store restarts, and the
                // other logs are still cleaned.
                log.error("Cleaning of {} failed; it is not cleaned again until restart", target.topicPartition(), e);
                manager.cleaningStopped(target.topicPartition(), true);
                return false;
            }
        }

        private boolean segmentsLeftTheLog(LogToClean cleanable) {
            Log target = cleanable.log();
            if (target.isClosed()) {
                return true;
            }
            Set<Object> current = Collections.newSetFromMap(new IdentityHashMap<>());
            current.addAll(target.segments());
            return !current.containsAll(cleanable.view().closedSegments());
        }

        private Cleaner cleaner() {
            if (cleaner == null) {
                long perThread = Math.min(config.dedupeBufferSize() / config.threads(), Integer.MAX_VALUE);
                cleaner = new Cleaner(new OffsetMap((int) Math.max(perThread, OffsetMap.ENTRY_SIZE)),
                        config.ioBufferLoadFactor(), config.ioBufferSize(), throttler, time, SegmentSwap.StepListener.NONE);
            }
            return cleaner;
        }
    }
}
