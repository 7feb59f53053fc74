package io.tideline.store.manager;

import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.log.Log;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's scheduled work over every log, under Kafka's task names: retention, the checkpoints, the log flusher
 * and producer id expiration. A failure of one log is logged and the others still get their turn.
 */
final class PeriodicLogTasks {
    /** Under {@link LogManager}'s name: its lines, whichever class writes them. */
    private static final Logger log = LoggerFactory.getLogger(LogManager.class);

    private final StoreConfig config;
    private final Time time;
    private final Supplier<Collection<Log>> logs;
    private final List<Scheduler.Cancellable> tasks = new ArrayList<>();
    /** When the retention task was scheduled: its passes are due every interval from here. */
    private volatile long retentionScheduledAtMs;
    /** Retention passes run to the end: lets a caller wait for a pass instead of for a time. */
    private final AtomicLong retentionPasses = new AtomicLong();

    PeriodicLogTasks(StoreConfig config, Time time, Supplier<Collection<Log>> logs) {
        this.config = config;
        this.time = time;
        this.logs = logs;
    }

    /** Schedules every task; the two checkpoint writers are the manager's. */
    void schedule(Scheduler scheduler, Runnable checkpointRecoveryPointsAndHighWatermarks,
                  Runnable checkpointLogStartOffsets) {
        long retentionInterval = config.retentionCheckIntervalMs();
        retentionScheduledAtMs = time.milliseconds();
        tasks.add(scheduler.schedule("kafka-log-retention", this::cleanupLogs, retentionInterval, retentionInterval));
        if (config.offsetCheckpointIntervalMs() > 0) {
            tasks.add(scheduler.schedule("kafka-recovery-point-checkpoint", checkpointRecoveryPointsAndHighWatermarks,
                    config.offsetCheckpointIntervalMs(), config.offsetCheckpointIntervalMs()));
        }
        if (config.startOffsetCheckpointIntervalMs() > 0) {
            tasks.add(scheduler.schedule("kafka-log-start-offset-checkpoint", checkpointLogStartOffsets,
                    config.startOffsetCheckpointIntervalMs(), config.startOffsetCheckpointIntervalMs()));
        }
        if (config.flushSchedulerIntervalMs() < Long.MAX_VALUE) {
            // B171: at the default (Long.MAX_VALUE) the flusher never runs, as in Kafka, and flush.ms has no effect.
            tasks.add(scheduler.schedule("kafka-log-flusher", this::flushDirtyLogs, config.flushSchedulerIntervalMs(),
                    config.flushSchedulerIntervalMs()));
        }
        long expirationCheck = config.producerIdExpirationCheckIntervalMs();
        tasks.add(scheduler.schedule("PeriodicProducerExpirationCheck", this::removeExpiredProducers,
                expirationCheck, expirationCheck));
    }

    void cancel() {
        for (Scheduler.Cancellable task : tasks) {
            task.cancel();
        }
    }

    /** See {@link LogManager#removeExpiredProducers}. */
    int removeExpiredProducers() {
        long now = time.milliseconds();
        int removed = 0;
        for (Log l : logs.get()) {
            try {
                removed += l.removeExpiredProducers(now, config.producerIdExpirationMs());
            } catch (RuntimeException e) {
                log.warn("Producer id expiration of {} failed: {}", l.topicPartition(), e.toString());
            }
        }
        return removed;
    }

    /** See {@link LogManager#flushDirtyLogs}. */
    int flushDirtyLogs() {
        long now = time.milliseconds();
        int due = 0;
        for (Log l : logs.get()) {
            try {
                if (l.flushIfDue(now)) {
                    due++;
                }
            } catch (RuntimeException e) {
                log.error("Flush of {} failed", l.topicPartition(), e);
            }
        }
        return due;
    }

    /** See {@link LogManager#cleanupLogs}. */
    int cleanupLogs() {
        int deleted = 0;
        long start = time.nanoseconds();
        for (Log l : logs.get()) {
            try {
                deleted += l.deleteOldSegments();
            } catch (RuntimeException e) {
                log.error("Retention of {} failed", l.topicPartition(), e);
            }
        }
        if (deleted > 0) {
            log.info("Retention pass deleted {} segments in {} ms", deleted, (time.nanoseconds() - start) / 1_000_000);
        }
        retentionPasses.incrementAndGet();
        return deleted;
    }

    long retentionPassesCompleted() {
        return retentionPasses.get();
    }

    /** When the next scheduled retention pass is due (every log.retention.check.interval.ms). */
    long nextRetentionPassMs() {
        return RetentionExplainer.nextPassMs(retentionScheduledAtMs, config.retentionCheckIntervalMs(),
                time.milliseconds());
    }
}
