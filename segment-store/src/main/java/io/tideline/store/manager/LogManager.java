package io.tideline.store.manager;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.store.cleaner.CleanerLogState;
import io.tideline.store.cleaner.LogCleaner;
import io.tideline.store.config.LogConfig;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.dir.DeletedOpenFile;
import io.tideline.store.dir.LogDirLock;
import io.tideline.store.dir.MetaProperties;
import io.tideline.store.log.DeleteRecordsResult;
import io.tideline.store.log.Log;
import io.tideline.store.retention.RetentionExplanation;
import io.tideline.store.retention.SegmentDeleter;
import io.tideline.store.segment.FileLayer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All logs of one broker across its log dirs. Locks and stamps each dir, opens every partition
 * directory found (recovering after an unclean stop), runs retention every
 * {@code log.retention.check.interval.ms}, writes the three checkpoints, and on close leaves each dir
 * with a clean-shutdown marker so the next start skips recovery.
 *
 * <p>Thread-safety: safe for concurrent use; the map of logs is concurrent and each log has its own lock.
 * The scheduler is not owned and is not closed here.
 */
public final class LogManager implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LogManager.class);

    private final StoreConfig config;
    private final String clusterId;
    private final int nodeId;
    private final Time time;
    private final Scheduler scheduler;
    private final MetricRegistry metrics;
    private final Random random;
    private final SegmentDeleter deleter;
    private final FileLayer files;
    private final Map<TopicPartition, Log> logs = new ConcurrentHashMap<>();
    private final Map<TopicPartition, LogDirectory> logDirOf = new ConcurrentHashMap<>();
    private final PartitionTopicIds topicIds = new PartitionTopicIds();
    private final DeletedLogDirs deletedDirs;
    private final TopicLogConfigs topicConfigs;
    private final LogCheckpoints checkpoints;
    private final LogDirReports reports;
    private final List<LogDirectory> dirs = new ArrayList<>();
    /** Dirs that failed (I/O error, disk full): their logs are gone from this manager until a restart. */
    private final Set<Path> offlineDirs = ConcurrentHashMap.newKeySet();
    private volatile LogDirFailureListener failureListener = (dir, reason, lost) -> { };
    private final PeriodicLogTasks tasks;
    private volatile boolean started;
    private volatile boolean closed;
    /** Compacts the logs whose cleanup.policy has compact (docs/behaviours.md B180); null with log.cleaner.threads=0. */
    private final LogCleaner cleaner;

    public LogManager(StoreConfig config, String clusterId, int nodeId, Time time, Scheduler scheduler,
                      MetricRegistry metrics, Random random) {
        this(config, clusterId, nodeId, time, scheduler, metrics, random, FileLayer.REAL);
    }

    /** As above, with every log's segment files reached through {@code files} (tests inject faults there). */
    public LogManager(StoreConfig config, String clusterId, int nodeId, Time time, Scheduler scheduler,
                      MetricRegistry metrics, Random random, FileLayer files) {
        this.files = files;
        this.config = config;
        this.clusterId = clusterId;
        this.nodeId = nodeId;
        this.time = time;
        this.scheduler = scheduler;
        this.metrics = metrics;
        this.random = random;
        this.deleter = new SegmentDeleter(scheduler);
        this.deletedDirs = new DeletedLogDirs(scheduler);
        this.topicConfigs = new TopicLogConfigs(config.logConfigDefaults());
        this.checkpoints = new LogCheckpoints(logs, logDirOf, this::markLogDirOffline);
        this.tasks = new PeriodicLogTasks(config, time, logs::values);
        this.reports = new LogDirReports(dirs, offlineDirs, logs, logDirOf, deleter);
        this.cleaner = config.cleanerConfig().threads() > 0
                ? new LogCleaner(config.cleanerConfig(), logs::values, time, scheduler) : null;
    }

    /** Locks, stamps and loads every log dir, then schedules retention and checkpoints. */
    public synchronized void startup() throws IOException {
        if (started) {
            return;
        }
        try {
            for (Path path : config.logDirs()) {
                LogDirLock lock = LogDirLock.acquire(path);
                LogDirectory dir = new LogDirectory(path, lock);
                dirs.add(dir);
                MetaProperties.ensure(path, clusterId, nodeId);
                loadLogs(dir);
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly();
            throw e;
        }
        LogMetrics.registerStore(metrics, deleter, this::deletedButOpenFiles);
        metrics.register(LogMetrics.OFFLINE_LOG_DIRECTORY_COUNT,
                (com.codahale.metrics.Gauge<Integer>) offlineDirs::size);
        tasks.schedule(scheduler, this::checkpointRecoveryPointsAndHighWatermarks, this::checkpointLogStartOffsets);
        if (cleaner != null) {
            CleanerMetrics.register(metrics, cleaner);
            cleaner.startup();
        }
        started = true;
    }

    /** The store's log cleaner, when log.cleaner.threads is above 0. */
    public Optional<LogCleaner> cleaner() {
        return Optional.ofNullable(cleaner);
    }

    /** The cleaner's view of a compacted log (docs/behaviours.md B193); empty when it is not compacted or no cleaner runs. */
    public Optional<CleanerLogState> describeCleaning(TopicPartition tp) throws IOException {
        Log l = logs.get(tp);
        if (l == null || cleaner == null) {
            return Optional.empty();
        }
        return cleaner.manager().describe(l, time.milliseconds());
    }

    /**
     * Every log forgets its producer ids idle past producer.id.expiration.ms (the scheduled
     * "PeriodicProducerExpirationCheck", Kafka's task name); returns how many were forgotten.
     */
    public int removeExpiredProducers() {
        return tasks.removeExpiredProducers();
    }

    /**
     * The log flusher (Kafka's "kafka-log-flusher"): fsyncs every log whose last flush is at least its
     * flush.ms old (B171). A log whose fsync fails refuses its next writes with KAFKA_STORAGE_ERROR, which
     * takes its dir offline; the other logs are still flushed. Returns how many logs were due.
     */
    public int flushDirtyLogs() {
        return tasks.flushDirtyLogs();
    }

    private void loadLogs(LogDirectory dir) throws IOException {
        Map<TopicPartition, Long> startOffsets = dir.logStartOffsets.read();
        Map<TopicPartition, Long> recoveryPoints = dir.recoveryPoints.read();
        Map<TopicPartition, Long> highWatermarks = dir.highWatermarks.read();
        deletedDirs.removeLeftovers(dir.path);
        List<Path> partitionDirs = new ArrayList<>();
        try (Stream<Path> children = Files.list(dir.path)) {
            for (Path child : (Iterable<Path>) children::iterator) {
                if (Files.isDirectory(child) && isPartitionDirName(child.getFileName().toString())) {
                    partitionDirs.add(child);
                }
            }
        }
        partitionDirs.sort(null);
        for (Path partitionDir : partitionDirs) {
            TopicPartition tp = TopicPartition.fromDirectoryName(partitionDir.getFileName().toString());
            if (logs.containsKey(tp)) {
                throw new IOException("Partition " + tp + " exists in two log dirs: " + logDirOf.get(tp).path + " and " + dir.path);
            }
            Log opened = Log.open(partitionDir, topicConfigs.forTopic(tp.topic()), time, scheduler, random, deleter,
                    startOffsets.getOrDefault(tp, 0L), recoveryPoints.getOrDefault(tp, 0L),
                    highWatermarks.getOrDefault(tp, -1L), dir.hadCleanShutdown, files);
            topicIds.load(tp, partitionDir);
            opened.setMaxProducerIds(config.producerIdMaxEntriesPerPartition());
            addLog(tp, opened, dir);
        }
        dir.clearCleanShutdownMarker();
        log.info("Loaded {} logs from {} ({})", partitionDirs.size(), dir.path, dir.previousShutdown.description());
    }

    private static boolean isPartitionDirName(String name) {
        // <topic>-<partition>; directories being deleted or moved end in another suffix and are skipped.
        int dash = name.lastIndexOf('-');
        return dash > 0 && dash < name.length() - 1 && name.substring(dash + 1).chars().allMatch(Character::isDigit);
    }

    private void addLog(TopicPartition tp, Log opened, LogDirectory dir) {
        opened.setLogStartOffsetListener(moved -> checkpointLogStartOffsets(dir, moved));
        logs.put(tp, opened);
        logDirOf.put(tp, dir);
        LogMetrics.register(metrics, opened);
    }

    /**
     * The log of {@code tp}, created in the log dir holding the fewest partitions if it does not exist.
     * {@code overrides} are the topic's config overrides (segment.bytes, retention.ms, ...). No topic id is checked
     * or written: callers with metadata use {@link #getOrCreateLog(TopicPartition, String, Map)}.
     */
    public Log getOrCreateLog(TopicPartition tp, Map<String, ?> overrides) {
        return getOrCreateLog(tp, null, overrides);
    }

    /**
     * The log of {@code tp} for topic {@code topicId}: the open log if it belongs to that topic (a log with no id
     * takes this one), else a new empty log, created in the log dir holding the fewest partitions, whose directory
     * holds {@code topicId} before any data. An open log of another topic id is closed, its directory renamed
     * for deletion, and never served (docs/behaviours.md B130-B132).
     *
     * @param topicId the topic's id in the metadata; null or empty checks and writes none
     */
    public Log getOrCreateLog(TopicPartition tp, String topicId, Map<String, ?> overrides) {
        ensureStarted();
        if (overrides != null && !overrides.isEmpty()) {
            updateTopicConfig(tp.topic(), overrides);
        }
        synchronized (this) {
            Log existing = logs.get(tp);
            if (existing != null) {
                try {
                    if (topicIds.check(tp, existing.dir(), topicId) != PartitionTopicIds.Verdict.OTHER_TOPIC) {
                        return existing;
                    }
                    replaceLogOfOtherTopic(tp, existing, topicId);
                } catch (IOException e) {
                    throw new io.tideline.common.errors.TidelineException(Errors.KAFKA_STORAGE_ERROR,
                            "Checking the topic id of " + tp + " in " + existing.dir() + " failed", e);
                }
            }
            LogDirectory dir = leastLoadedDir();
            try {
                Path partitionDir = dir.path.resolve(tp.directoryName());
                Files.createDirectories(partitionDir);
                topicIds.record(tp, partitionDir, topicId);
                Log created = Log.open(partitionDir, topicConfigs.forTopic(tp.topic()), time, scheduler,
                        random, deleter, 0L, 0L, -1L, true, files);
                created.setMaxProducerIds(config.producerIdMaxEntriesPerPartition());
                addLog(tp, created, dir);
                return created;
            } catch (IOException e) {
                topicIds.remove(tp);
                // A dir that cannot take a new log is faulty as a whole (docs/behaviours.md B145).
                markLogDirOffline(dir.path, "creating the log of " + tp + " failed: " + e);
                throw new io.tideline.common.errors.TidelineException(Errors.KAFKA_STORAGE_ERROR,
                        "Creating the log of " + tp + " in " + dir.path + " failed", e);
            }
        }
    }

    /**
     * The open log of {@code tp} belongs to another topic than {@code topicId} (a topic of the same name deleted
     * while this broker was down): its directory is renamed for deletion, then it leaves the manager and the
     * checkpoints are written without it, so that no offset of it is ever applied to the new log (B131). The
     * rename comes first: if it fails nothing has changed, and the next call tries again rather than creating
     * the new log over the old directory.
     */
    private void replaceLogOfOtherTopic(TopicPartition tp, Log existing, String topicId) throws IOException {
        String otherId = topicIds.get(tp).orElseThrow();
        Path renamed = deletedDirs.renameAndScheduleRemoval(existing.dir(), tp, otherId,
                existing.config().fileDeleteDelayMs());
        logs.remove(tp);
        LogDirectory dir = logDirOf.remove(tp);
        topicIds.remove(tp);
        LogMetrics.remove(metrics, tp);
        existing.abandon();
        log.warn("The log of {} in {} belongs to topic id {}, not {} as the metadata says: renamed to {} for "
                + "deletion; the partition starts empty here", tp, dir.path, otherId, topicId, renamed.getFileName());
        checkpointAll();
    }

    /** The topic id in the directory of {@code tp}'s open log; empty with no such log or no id. */
    public Optional<String> topicId(TopicPartition tp) {
        return logs.containsKey(tp) ? topicIds.get(tp) : Optional.empty();
    }

    /** Sets a topic's overrides and applies them to its open logs (validated: INVALID_CONFIG if bad). */
    public synchronized void updateTopicConfig(String topic, Map<String, ?> overrides) {
        LogConfig newConfig = topicConfigs.setOverrides(topic, overrides);
        for (Log l : logs.values()) {
            if (l.topicPartition().topic().equals(topic)) {
                l.updateConfig(newConfig);
            }
        }
    }

    /**
     * Replaces the broker-level defaults (dynamic broker configs) and applies them at once to every open
     * log, under its topic's overrides: a topic without its own retention.ms follows the new default at
     * the next retention pass, one with it keeps its own. Logs created later get them too.
     *
     * @throws io.tideline.common.config.ConfigException if a topic's overrides do not apply over them;
     *                                                    nothing is changed then
     */
    public synchronized void updateDefaults(LogConfig newDefaults) {
        List<String> topics = new ArrayList<>();
        for (Log l : logs.values()) {
            topics.add(l.topicPartition().topic());
        }
        Map<String, LogConfig> byTopic = topicConfigs.setDefaults(newDefaults, topics);
        for (Log l : logs.values()) {
            LogConfig c = byTopic.get(l.topicPartition().topic());
            if (c != null) {
                l.updateConfig(c);
            }
        }
    }

    /** The broker-level defaults in force (static, or as the last {@link #updateDefaults} set them). */
    public LogConfig defaults() {
        return topicConfigs.defaults();
    }

    private LogDirectory leastLoadedDir() {
        Map<LogDirectory, Integer> counts = new HashMap<>();
        for (LogDirectory d : onlineDirs()) {
            counts.put(d, 0);
        }
        if (counts.isEmpty()) {
            throw new io.tideline.common.errors.TidelineException(Errors.KAFKA_STORAGE_ERROR,
                    "Every log dir is offline: " + offlineDirs);
        }
        for (LogDirectory d : logDirOf.values()) {
            counts.computeIfPresent(d, (k, n) -> n + 1);
        }
        LogDirectory best = null;
        for (LogDirectory d : onlineDirs()) {
            if (best == null || counts.get(d) < counts.get(best)) {
                best = d;
            }
        }
        return best;
    }

    private List<LogDirectory> onlineDirs() {
        List<LogDirectory> online = new ArrayList<>();
        for (LogDirectory d : dirs) {
            if (!offlineDirs.contains(d.path)) {
                online.add(d);
            }
        }
        return online;
    }

    /** The log dir holding {@code tp}'s log, if this store has it. */
    public Optional<Path> logDir(TopicPartition tp) {
        LogDirectory d = logDirOf.get(tp);
        return d == null ? Optional.empty() : Optional.of(d.path);
    }

    /**
     * A log dir failed (an I/O error surfaced from one of its logs, or a checkpoint of it could not be
     * written): its logs are dropped without flushing (their files may be unreadable), no checkpoint or
     * clean-shutdown marker is written there again, and no new log goes there. The other dirs keep working.
     * Kafka's rule: a failed dir stays offline until the broker restarts. The {@link LogDirFailureListener} is
     * told once per dir, on the calling thread, after the dir is offline.
     *
     * @return the partitions that were in it (empty if it was offline already)
     */
    public List<TopicPartition> markLogDirOffline(Path dir, String reason) {
        if (Thread.currentThread().isInterrupted()) {
            // An interrupted thread's file I/O fails (ClosedByInterruptException) whatever the disk does: it is
            // the node stopping, not a disk fault (B146). A real fault is found again at the next start.
            log.warn("Not taking log dir {} offline for a failure on an interrupted thread: {}", dir, reason);
            return List.of();
        }
        List<TopicPartition> lost = takeOffline(dir, reason);
        if (lost == null) {
            return List.of();
        }
        try {
            failureListener.onLogDirOffline(dir, reason, lost);
        } catch (RuntimeException e) {
            log.error("The log dir failure listener failed for {}", dir, e);
        }
        return lost;
    }

    /** Null when the dir was offline already. */
    private synchronized List<TopicPartition> takeOffline(Path dir, String reason) {
        if (!offlineDirs.add(dir)) {
            return null;
        }
        List<TopicPartition> lost = new ArrayList<>();
        for (Map.Entry<TopicPartition, LogDirectory> e : List.copyOf(logDirOf.entrySet())) {
            if (e.getValue().path.equals(dir)) {
                lost.add(e.getKey());
            }
        }
        for (TopicPartition tp : lost) {
            Log l = logs.remove(tp);
            logDirOf.remove(tp);
            LogMetrics.remove(metrics, tp);
            if (l != null) {
                try {
                    l.abandon();
                } catch (RuntimeException e) {
                    log.warn("Releasing {} on failed dir {} failed: {}", tp, dir, e.toString());
                }
            }
        }
        log.error("Log dir {} is offline ({}); {} partitions lost here: {}", dir, reason, lost.size(), lost);
        return lost;
    }

    /** Told when a log dir goes offline, whoever found the fault (a log's reader or writer, a checkpoint). */
    @FunctionalInterface
    public interface LogDirFailureListener {
        /**
         * Called once per dir, on the thread that found the fault (a request, fetcher or scheduler thread, or the
         * one closing the store), without this manager's lock: hand slow work elsewhere.
         *
         * @param lost the partitions whose logs were in the dir and are gone from this manager now
         */
        void onLogDirOffline(Path dir, String reason, List<TopicPartition> lost);
    }

    /** Who hears of a dir going offline (the broker: it stops those replicas and tells the controller). */
    public void setLogDirFailureListener(LogDirFailureListener listener) {
        this.failureListener = java.util.Objects.requireNonNull(listener, "listener");
    }

    public Set<Path> offlineLogDirs() {
        return Set.copyOf(offlineDirs);
    }

    public Optional<Log> getLog(TopicPartition tp) {
        return Optional.ofNullable(logs.get(tp));
    }

    public Collection<Log> allLogs() {
        return List.copyOf(logs.values());
    }

    public List<Path> logDirs() {
        List<Path> paths = new ArrayList<>();
        for (LogDirectory d : dirs) {
            paths.add(d.path);
        }
        return paths;
    }

    /** DeleteRecords on a local log; UNKNOWN_TOPIC_OR_PARTITION if this store has no such log. */
    public DeleteRecordsResult deleteRecords(TopicPartition tp, long beforeOffset) {
        Log target = logs.get(tp);
        LogDirectory dir = logDirOf.get(tp);
        if (target == null || dir == null) {
            return DeleteRecordsResult.error(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        try {
            return target.deleteRecords(beforeOffset);
        } catch (io.tideline.common.errors.TidelineException e) {
            if (e.error() != Errors.KAFKA_STORAGE_ERROR) {
                throw e;
            }
            // The new start offset may be in memory and not on disk: refused, and the dir goes offline (B140).
            markLogDirOffline(dir.path, e.getMessage());
            return DeleteRecordsResult.error(Errors.KAFKA_STORAGE_ERROR);
        }
    }

    /** One retention pass over every log; returns the number of segments deleted. */
    public int cleanupLogs() {
        return tasks.cleanupLogs();
    }

    /** How many retention passes ({@link #cleanupLogs}) have run to the end since this store started. */
    public long retentionPassesCompleted() {
        return tasks.retentionPassesCompleted();
    }

    /** Removes a log and its directory (topic deleted, replica moved away). */
    public void deleteLog(TopicPartition tp) throws IOException {
        Log removed;
        synchronized (this) {
            removed = logs.remove(tp);
            logDirOf.remove(tp);
            topicIds.remove(tp);
        }
        if (removed == null) {
            return;
        }
        LogMetrics.remove(metrics, tp);
        if (cleaner != null) {
            // A cleaning of the log stops before its files go, and its checkpoint entry goes with it (B189).
            cleaner.manager().forget(removed);
        }
        removed.closeAndDelete();
        io.tideline.common.io.FileUtils.deleteRecursively(removed.dir());
        checkpointAll();
    }

    public void checkpointLogStartOffsets() {
        checkpoints.writeLogStartOffsets(onlineDirs());
    }

    /**
     * A log's start offset moved by DeleteRecords or a follower's adoption: its dir's checkpoint is written at
     * once, not at the next log.flush.start.offset.checkpoint.interval.ms, so a crash cannot bring the deleted
     * records back (docs/behaviours.md B78). When it cannot be written (the dir failed, the store is closed) the
     * move is not durable, so the call that moved it fails with KAFKA_STORAGE_ERROR and is never answered as
     * done (B140).
     */
    private void checkpointLogStartOffsets(LogDirectory dir, Log moved) {
        if (closed || !onlineDirs().contains(dir)) {
            throw new io.tideline.common.errors.TidelineException(Errors.KAFKA_STORAGE_ERROR, "The log start offset "
                    + moved.logStartOffset() + " of " + moved.topicPartition() + " cannot be made durable: "
                    + (closed ? "the log manager is closed" : "log dir " + dir.path + " is offline"));
        }
        if (!checkpoints.write(dir, dir.logStartOffsets, Log::logStartOffset)) {
            throw new io.tideline.common.errors.TidelineException(Errors.KAFKA_STORAGE_ERROR, "Writing the log start "
                    + "offset " + moved.logStartOffset() + " of " + moved.topicPartition() + " to " + dir.path
                    + " failed; the log dir is offline");
        }
    }

    public void checkpointRecoveryPointsAndHighWatermarks() {
        checkpoints.writeRecoveryPointsAndHighWatermarks(onlineDirs());
    }

    public void checkpointAll() {
        checkpointLogStartOffsets();
        checkpointRecoveryPointsAndHighWatermarks();
    }

    public SegmentDeleter deleter() {
        return deleter;
    }

    /** Files under our log dirs that are unlinked but still open or mapped: disk space not yet free. */
    public List<DeletedOpenFile> deletedButOpenFiles() {
        return reports.deletedButOpenFiles(logDirs());
    }


    /** When the next scheduled retention pass is due (every log.retention.check.interval.ms). */
    public long nextRetentionPassMs() {
        return tasks.nextRetentionPassMs();
    }

    /**
     * Why each segment of {@code tp}'s log is still on disk, as of the next retention pass (see
     * {@link RetentionExplanation}); empty if this store has no log of {@code tp}.
     */
    public Optional<RetentionExplanation> explainRetention(TopicPartition tp) {
        return reports.explainRetention(tp, time.milliseconds(), nextRetentionPassMs(),
                config.retentionCheckIntervalMs());
    }

    /**
     * Every log dir with the replicas in it that {@code include} selects (Kafka's DescribeLogDirs). A
     * failed dir is reported with KAFKA_STORAGE_ERROR and nothing in it.
     */
    public List<LogDirDescription> describeLogDirs(java.util.function.Predicate<TopicPartition> include) {
        return reports.describeLogDirs(include);
    }

    private void ensureStarted() {
        if (!started || closed) {
            throw new IllegalStateException("LogManager is " + (closed ? "closed" : "not started"));
        }
    }

    /**
     * Clean shutdown: stops the tasks, flushes and closes every log, writes the checkpoints, unlinks
     * segments waiting for deletion and leaves the clean-shutdown marker in each dir whose checkpoints were
     * written: a dir whose checkpoint write failed is offline by then and gets none, so the next start
     * recovers it rather than trusting stale checkpoints (docs/behaviours.md B140).
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        stopTasksAndMetrics();
        boolean allClosed = true;
        for (Log l : logs.values()) {
            try {
                l.close();
            } catch (RuntimeException e) {
                allClosed = false;
                log.error("Closing {} failed", l.topicPartition(), e);
            }
        }
        checkpointAll();
        deleter.unlinkAllNow();
        for (LogDirectory dir : onlineDirs()) {
            try {
                if (allClosed) {
                    dir.writeCleanShutdownMarker();
                }
            } catch (IOException e) {
                log.error("Writing the clean-shutdown marker of {} failed", dir.path, e);
            }
        }
        closeQuietly();
    }

    /**
     * Simulates a crash for tests and benchmarks: releases files and locks without flushing, without
     * checkpoints and without the clean-shutdown marker.
     */
    public synchronized void closeWithoutShutdown() {
        stopTasksAndMetrics();
        for (Log l : logs.values()) {
            l.abandon();
        }
        closeQuietly();
    }

    /** First step of both ways of closing: no task runs and no gauge reads a log from now on. */
    private void stopTasksAndMetrics() {
        closed = true;
        tasks.cancel();
        if (cleaner != null) {
            cleaner.close();
            CleanerMetrics.remove(metrics);
        }
        for (TopicPartition tp : logs.keySet()) {
            LogMetrics.remove(metrics, tp);
        }
        LogMetrics.removeStore(metrics);
    }

    private void closeQuietly() {
        for (LogDirectory dir : dirs) {
            dir.close();
        }
    }
}
