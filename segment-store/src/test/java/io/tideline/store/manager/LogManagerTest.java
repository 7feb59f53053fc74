package io.tideline.store.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.store.checkpoint.OffsetCheckpointFile;
import io.tideline.store.dir.DeletedOpenFile;
import io.tideline.store.dir.InconsistentMetaPropertiesException;
import io.tideline.store.dir.LogDirInUseException;
import io.tideline.store.dir.MetaProperties;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.retention.DeletionReason;
import io.tideline.store.segment.LogFileNames;
import io.tideline.store.segment.LogSegment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogManagerTest {
    private static final String CLUSTER = "cluster-A";
    private static final TopicPartition TP = new TopicPartition("orders", 0);

    @TempDir
    Path root;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final List<LogManager> running = new ArrayList<>();

    @AfterEach
    void tearDown() {
        for (LogManager manager : running) {
            manager.closeWithoutShutdown();
        }
    }

    // ------------------------------------------------------------------ helpers

    private Path logDir() {
        return root.resolve("data");
    }

    private Map<String, Object> props(Path... dirs) {
        Map<String, Object> props = new HashMap<>();
        props.put("log.dirs", String.join(",", Stream.of(dirs).map(Path::toString).toList()));
        props.put("log.segment.bytes", 1024);
        props.put("log.index.interval.bytes", 100);
        props.put("log.retention.ms", -1);
        return props;
    }

    private LogManager manager(Map<String, Object> props, int nodeId, MetricRegistry metrics) {
        LogManager manager = new LogManager(io.tideline.store.config.StoreConfig.fromMap(props), CLUSTER, nodeId, time,
                scheduler, metrics, new Random(5));
        running.add(manager);
        return manager;
    }

    private LogManager start(Map<String, Object> props, int nodeId, MetricRegistry metrics) throws IOException {
        LogManager manager = manager(props, nodeId, metrics);
        manager.startup();
        return manager;
    }

    private LogManager start() throws IOException {
        return start(props(logDir()), 1, new MetricRegistry());
    }

    private void close(LogManager manager) {
        manager.close();
        running.remove(manager);
    }

    private void append(Log log, int batches, long timestamp) {
        for (int b = 0; b < batches; b++) {
            long first = log.logEndOffset();
            RecordBatchBuilder builder = new RecordBatchBuilder(0);
            for (int r = 0; r < 3; r++) {
                builder.append(timestamp, "key-" + (first + r), "value-" + (first + r));
            }
            log.appendAsLeader(builder.buildRecords(), 0);
        }
    }

    private void append(Log log, int batches) {
        append(log, batches, time.milliseconds());
    }

    @SuppressWarnings("unchecked")
    private static <T> T gauge(MetricRegistry metrics, String name) {
        Gauge<?> gauge = metrics.getGauges().get(name);
        if (gauge == null) {
            throw new AssertionError("no gauge " + name + " in " + metrics.getGauges().keySet());
        }
        return (T) gauge.getValue();
    }

    private static List<String> namesIn(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    // ------------------------------------------------------------------ the previous shutdown

    private LogDirectory.PreviousShutdown previousShutdownOf(Path dir) throws IOException {
        try (LogDirectory d = new LogDirectory(dir, io.tideline.store.dir.LogDirLock.acquire(dir))) {
            return d.previousShutdown;
        }
    }

    @Test
    void aNewLogDirIsReportedNewNotUnclean() throws IOException {
        assertEquals(LogDirectory.PreviousShutdown.NONE, previousShutdownOf(logDir()));
        assertEquals("new directory", LogDirectory.PreviousShutdown.NONE.description());
    }

    @Test
    void aLogDirLeftWithLogsButNoMarkerIsUncleanAndOneClosedCleanlyIsClean() throws IOException {
        LogManager crashed = start();
        append(crashed.getOrCreateLog(TP, Map.of()), 2);
        crashed.closeWithoutShutdown();
        running.remove(crashed);
        assertEquals(LogDirectory.PreviousShutdown.UNCLEAN, previousShutdownOf(logDir()));
        assertEquals("after an unclean shutdown", LogDirectory.PreviousShutdown.UNCLEAN.description());

        close(start());
        assertEquals(LogDirectory.PreviousShutdown.CLEAN, previousShutdownOf(logDir()));
        assertEquals("after a clean shutdown", LogDirectory.PreviousShutdown.CLEAN.description());
    }

    // ------------------------------------------------------------------ locking and stamping

    @Test
    void secondManagerCannotOpenALogDirInUseAndTheFirstKeepsWorking() throws IOException {
        LogManager first = start();
        Log log = first.getOrCreateLog(TP, Map.of());
        append(log, 2);

        LogManager second = manager(props(logDir()), 1, new MetricRegistry());
        LogDirInUseException e = assertThrows(LogDirInUseException.class, second::startup);
        assertEquals(Errors.KAFKA_STORAGE_ERROR, e.error());
        assertTrue(e.getMessage().contains(logDir().getFileName().toString()), e.getMessage());

        append(log, 1);
        assertEquals(9, log.logEndOffset());
        try (FetchDataInfo fetch = log.read(0, 10_000, log.highWatermark(), true)) {
            assertEquals(9, fetch.records().toMemoryRecords().records().size());
        }
        close(first);

        LogManager third = start();
        assertEquals(9, third.getLog(TP).orElseThrow().logEndOffset(), "once released, the dir opens again");
    }

    @Test
    void logDirIsStampedAndADifferentNodeIdRefusesToStart() throws IOException {
        LogManager first = start();
        MetaProperties stamp = MetaProperties.read(logDir()).orElseThrow();
        assertEquals(CLUSTER, stamp.clusterId());
        assertEquals(1, stamp.nodeId());
        assertFalse(stamp.directoryId().isEmpty());
        close(first);

        LogManager wrongNode = manager(props(logDir()), 2, new MetricRegistry());
        InconsistentMetaPropertiesException e = assertThrows(InconsistentMetaPropertiesException.class,
                wrongNode::startup);
        assertTrue(e.getMessage().contains("node.id"), e.getMessage());

        LogManager again = start(); // the refused start released the lock
        assertEquals(stamp, MetaProperties.read(logDir()).orElseThrow(), "the stamp never changes");
        close(again);
    }

    @Test
    void newLogsGoToTheLeastLoadedLogDir() throws IOException {
        Path a = root.resolve("a");
        Path b = root.resolve("b");
        LogManager manager = start(props(a, b), 1, new MetricRegistry());
        for (int p = 0; p < 6; p++) {
            manager.getOrCreateLog(new TopicPartition("spread", p), Map.of());
        }
        long inA = manager.allLogs().stream().filter(l -> l.dir().getParent().equals(a)).count();
        long inB = manager.allLogs().stream().filter(l -> l.dir().getParent().equals(b)).count();
        assertEquals(3, inA);
        assertEquals(3, inB);
        assertNotEquals(MetaProperties.read(a).orElseThrow().directoryId(),
                MetaProperties.read(b).orElseThrow().directoryId());
        close(manager);

        LogManager restarted = start(props(a, b), 1, new MetricRegistry());
        assertEquals(6, restarted.allLogs().size(), "every partition directory of both dirs is loaded");
        for (Log log : restarted.allLogs()) {
            assertTrue(Files.isDirectory(log.dir()));
        }
    }

    // ------------------------------------------------------------------ topic overrides

    @Test
    void topicOverridesApplyToTheLogsOfThatTopicOnly() throws IOException {
        Map<String, Object> props = props(logDir());
        props.put("log.segment.bytes", 1_000_000);
        LogManager manager = start(props, 1, new MetricRegistry());
        Log small = manager.getOrCreateLog(new TopicPartition("small", 0), Map.of("segment.bytes", 1024));
        Log big = manager.getOrCreateLog(new TopicPartition("big", 0), Map.of());
        assertEquals(1024, small.config().segmentBytes());
        assertEquals(1_000_000, big.config().segmentBytes());

        append(small, 40);
        append(big, 40);
        assertTrue(small.numberOfSegments() > 3, "small rolls at 1 KiB: " + small.numberOfSegments());
        assertEquals(1, big.numberOfSegments());
    }

    @Test
    void newDefaultsReachOpenLogsUnderTheirTopicOverridesAndTheNextRetentionPassActsOnThem() throws IOException {
        LogManager manager = start();
        Log plain = manager.getOrCreateLog(new TopicPartition("plain", 0), Map.of());
        Log own = manager.getOrCreateLog(new TopicPartition("own", 0), Map.of("retention.ms", 3_600_000L));
        append(plain, 40);
        append(own, 40);
        int segments = plain.numberOfSegments();
        assertTrue(segments > 3, "rolled at 1 KiB: " + segments);
        time.advance(600_000); // two retention passes under retention.ms=-1: nothing goes
        assertEquals(segments, plain.numberOfSegments());

        manager.updateDefaults(manager.defaults().withOverrides(Map.of("retention.ms", 60_000L)));
        assertEquals(60_000L, plain.config().retentionMs(), "no override: the new default");
        assertEquals(3_600_000L, own.config().retentionMs(), "the topic's own value stays");
        assertEquals(1024, own.config().segmentBytes(), "the other defaults are kept under the override");
        assertEquals(60_000L, manager.getOrCreateLog(new TopicPartition("later", 0), Map.of()).config().retentionMs(),
                "a log created afterwards starts with the new default");

        time.advance(300_000); // the next scheduled pass
        assertEquals(1, plain.numberOfSegments(), "only the active segment is left");
        assertTrue(plain.logStartOffset() > 0);
        assertEquals(0, own.logStartOffset(), "one hour has not passed for the topic with its own retention");
    }

    @Test
    void invalidTopicOverrideIsRefusedWithInvalidConfigNamingTheKey() throws IOException {
        LogManager manager = start();
        TopicPartition tp = new TopicPartition("bad", 0);
        TidelineException e = assertThrows(TidelineException.class,
                () -> manager.getOrCreateLog(tp, Map.of("segment.bytes", 1)));
        assertEquals(Errors.INVALID_CONFIG, e.error());
        assertTrue(e.getMessage().contains("segment.bytes"), e.getMessage());
        assertTrue(manager.getLog(tp).isEmpty(), "no log is created with a refused config");
        assertFalse(Files.exists(logDir().resolve(tp.directoryName())));

        TidelineException notANumber = assertThrows(TidelineException.class,
                () -> manager.getOrCreateLog(tp, Map.of("retention.ms", "a week")));
        assertEquals(Errors.INVALID_CONFIG, notANumber.error());
        assertTrue(notANumber.getMessage().contains("retention.ms"), notANumber.getMessage());
    }

    // ------------------------------------------------------------------ metrics

    @Test
    void perLogGaugesReportTheLogsOffsetsSegmentsAndSize() throws IOException {
        MetricRegistry metrics = new MetricRegistry();
        LogManager manager = start(props(logDir()), 1, metrics);
        Log log = manager.getOrCreateLog(TP, Map.of());
        append(log, 30);
        manager.deleteRecords(TP, 10);

        assertEquals("kafka.log:type=Log,name=LogStartOffset,topic=orders,partition=0",
                LogMetrics.name("LogStartOffset", TP));
        assertEquals(10L, (long) gauge(metrics, LogMetrics.name("LogStartOffset", TP)));
        assertEquals(90L, (long) gauge(metrics, LogMetrics.name("LogEndOffset", TP)));
        assertEquals(90L, (long) gauge(metrics, LogMetrics.name("HighWatermark", TP)));
        assertEquals(log.numberOfSegments(), (int) gauge(metrics, LogMetrics.name("NumLogSegments", TP)));
        assertTrue(log.numberOfSegments() > 1);
        long size = Files.list(log.dir()).filter(p -> p.toString().endsWith(".log")).mapToLong(p -> {
            try {
                return Files.size(p);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }).sum();
        assertEquals(size, (long) gauge(metrics, LogMetrics.name("Size", TP)));

        append(log, 1);
        assertEquals(93L, (long) gauge(metrics, LogMetrics.name("LogEndOffset", TP)), "gauges are live");
    }

    @Test
    void pendingDeletionGaugesCountRenamedSegmentsUntilTheyAreUnlinked() throws IOException {
        MetricRegistry metrics = new MetricRegistry();
        LogManager manager = start(props(logDir()), 1, metrics);
        Log log = manager.getOrCreateLog(TP, Map.of());
        append(log, 30);
        List<LogSegment> segments = log.segments();
        assertTrue(segments.size() >= 4);
        long expectedBytes = segments.get(0).size() + segments.get(1).size();
        assertEquals(0, (int) gauge(metrics, LogMetrics.PENDING_DELETION_SEGMENTS));

        assertEquals(0L, (long) gauge(metrics, LogMetrics.DELETED_SEGMENTS + DeletionReason.LOG_START_OFFSET_BREACH));

        manager.deleteRecords(TP, segments.get(2).baseOffset());
        assertEquals(2, (int) gauge(metrics, LogMetrics.PENDING_DELETION_SEGMENTS));
        assertEquals(expectedBytes, (long) gauge(metrics, LogMetrics.PENDING_DELETION_BYTES));
        assertEquals(2L, (long) gauge(metrics, LogMetrics.DELETED_SEGMENTS + DeletionReason.LOG_START_OFFSET_BREACH),
                "retention deletions counted by the rule that fired");
        assertEquals(0L, (long) gauge(metrics, LogMetrics.DELETED_SEGMENTS + DeletionReason.RETENTION_TIME_BREACH));
        List<String> files = namesIn(log.dir());
        assertTrue(files.contains("00000000000000000000.log.deleted"), files.toString());
        assertFalse(files.contains("00000000000000000000.log"), files.toString());

        time.advance(59_999); // file.delete.delay.ms defaults to 60 s
        assertEquals(2, (int) gauge(metrics, LogMetrics.PENDING_DELETION_SEGMENTS));
        time.advance(1);
        assertEquals(0, (int) gauge(metrics, LogMetrics.PENDING_DELETION_SEGMENTS));
        assertEquals(0L, (long) gauge(metrics, LogMetrics.PENDING_DELETION_BYTES));
        assertTrue(namesIn(log.dir()).stream().noneMatch(n -> n.endsWith(LogFileNames.DELETED_SUFFIX)),
                namesIn(log.dir()).toString());
    }

    @Test
    void deletedOpenFilesGaugeShowsASegmentHeldOpenByAReaderAfterItsUnlink() throws IOException {
        MetricRegistry metrics = new MetricRegistry();
        LogManager manager = start(props(logDir()), 1, metrics);
        Log log = manager.getOrCreateLog(TP, Map.of());
        append(log, 30);
        long secondBase = log.segments().get(1).baseOffset();
        assertEquals(0, (int) gauge(metrics, LogMetrics.DELETED_OPEN_FILES));

        FetchDataInfo fetch = log.read(0, 100_000, log.highWatermark(), true); // a slow consumer's read
        manager.deleteRecords(TP, secondBase);
        time.advance(60_000); // renamed, then unlinked
        assertFalse(Files.exists(log.dir().resolve("00000000000000000000.log.deleted")));

        List<DeletedOpenFile> held = manager.deletedButOpenFiles();
        assertTrue((int) gauge(metrics, LogMetrics.DELETED_OPEN_FILES) > 0, "held: " + held);
        assertTrue((long) gauge(metrics, LogMetrics.DELETED_OPEN_BYTES) > 0);
        assertTrue(held.stream().anyMatch(f -> f.path().getFileName().toString().startsWith("00000000000000000000.log")),
                held.toString());

        List<Record> records = fetch.records().toMemoryRecords().records(); // the read still completes
        assertEquals(0, records.get(0).offset());
        assertEquals(secondBase - 1, records.get(records.size() - 1).offset());
        fetch.close();
        assertEquals(0, (int) gauge(metrics, LogMetrics.DELETED_OPEN_FILES), manager.deletedButOpenFiles().toString());
    }

    // ------------------------------------------------------------------ lifecycle

    @Test
    void deleteLogRemovesItsDirectoryGaugesAndCheckpointEntries() throws IOException {
        MetricRegistry metrics = new MetricRegistry();
        LogManager manager = start(props(logDir()), 1, metrics);
        Log log = manager.getOrCreateLog(TP, Map.of());
        Log other = manager.getOrCreateLog(new TopicPartition("other", 0), Map.of());
        append(log, 10);
        append(other, 1);
        manager.checkpointAll();

        manager.deleteLog(TP);
        assertFalse(Files.exists(logDir().resolve(TP.directoryName())));
        assertTrue(manager.getLog(TP).isEmpty());
        assertTrue(metrics.getGauges().keySet().stream().noneMatch(n -> n.contains("topic=orders,")),
                metrics.getGauges().keySet().toString());
        assertEquals(Map.of(new TopicPartition("other", 0), 0L),
                new OffsetCheckpointFile(logDir().resolve(LogFileNames.LOG_START_OFFSET_CHECKPOINT)).read());
        close(manager);

        LogManager restarted = start();
        assertTrue(restarted.getLog(TP).isEmpty(), "a deleted log does not come back");
        assertEquals(1, restarted.allLogs().size());
    }

    @Test
    void closeWritesTheCleanShutdownMarkerAndCheckpointsAndStartupRemovesTheMarker() throws IOException {
        LogManager manager = start();
        Path marker = logDir().resolve(LogFileNames.CLEAN_SHUTDOWN_MARKER);
        assertFalse(Files.exists(marker));
        Log log = manager.getOrCreateLog(TP, Map.of());
        append(log, 10);
        manager.deleteRecords(TP, 4);
        close(manager);

        assertTrue(Files.exists(marker));
        assertEquals(".kafka_cleanshutdown", marker.getFileName().toString());
        assertEquals(Map.of(TP, 4L),
                new OffsetCheckpointFile(logDir().resolve(LogFileNames.LOG_START_OFFSET_CHECKPOINT)).read());
        assertEquals(Map.of(TP, 30L),
                new OffsetCheckpointFile(logDir().resolve(LogFileNames.RECOVERY_POINT_CHECKPOINT)).read());
        assertEquals(Map.of(TP, 30L),
                new OffsetCheckpointFile(logDir().resolve(LogFileNames.REPLICATION_OFFSET_CHECKPOINT)).read());
        assertEquals("0\n1\norders 0 30\n",
                Files.readString(logDir().resolve(LogFileNames.RECOVERY_POINT_CHECKPOINT)));

        LogManager restarted = start();
        assertFalse(Files.exists(marker), "removed at startup, so a crash from now on is seen as unclean");
        assertEquals(0, restarted.getLog(TP).orElseThrow().recoveredSegmentsOnLoad());
        assertEquals(4, restarted.getLog(TP).orElseThrow().logStartOffset());
    }

    @Test
    void aStartOffsetMovedByDeleteRecordsInsideASegmentSurvivesACrash() throws IOException {
        LogManager crashed = start();
        Log log = crashed.getOrCreateLog(TP, Map.of());
        append(log, 3);
        assertEquals(1, log.numberOfSegments(), "offset 4 lies inside the only segment, so no segment is deleted");

        assertEquals(4, crashed.deleteRecords(TP, 4).lowWatermark());
        crashed.closeWithoutShutdown();
        running.remove(crashed);

        Log reopened = start().getLog(TP).orElseThrow();
        assertEquals(4, reopened.logStartOffset(), "the deleted records must not come back after a crash");
    }

    @Test
    void aStartOffsetAFollowerAdoptedSurvivesACrash() throws IOException {
        LogManager crashed = start();
        Log log = crashed.getOrCreateLog(TP, Map.of());
        append(log, 2);

        assertTrue(log.maybeIncrementLogStartOffset(5, "follower adopts the leader's log start offset"));
        crashed.closeWithoutShutdown();
        running.remove(crashed);

        assertEquals(5, start().getLog(TP).orElseThrow().logStartOffset());
    }

    @Test
    void crashLeavesNoCleanShutdownMarker() throws IOException {
        LogManager manager = start();
        append(manager.getOrCreateLog(TP, Map.of()), 3);
        manager.closeWithoutShutdown();
        running.remove(manager);
        assertFalse(Files.exists(logDir().resolve(LogFileNames.CLEAN_SHUTDOWN_MARKER)));
        LogManager restarted = start();
        assertTrue(restarted.getLog(TP).orElseThrow().recoveredSegmentsOnLoad() > 0);
    }

    @Test
    void retentionRunsOnItsScheduleWhenTheMockClockAdvances() throws IOException {
        Map<String, Object> props = props(logDir());
        props.put("log.retention.ms", 3_600_000L);
        props.put("log.retention.check.interval.ms", 300_000L);
        LogManager manager = start(props, 1, new MetricRegistry());
        Log log = manager.getOrCreateLog(TP, Map.of());
        append(log, 30, time.milliseconds());
        int before = log.numberOfSegments();
        assertTrue(before > 2);

        time.advance(3_600_000L); // records are now one hour old: not yet past retention.ms
        assertEquals(before, log.numberOfSegments());
        time.advance(300_000L);   // the next retention pass finds them expired
        assertEquals(1, log.numberOfSegments(), "every closed segment expired; the active one stays");
        assertEquals(log.activeSegment().baseOffset(), log.logStartOffset());
    }

    @Test
    void closedManagerCancelsItsPeriodicTasksEvenAfterTheyHaveRun() throws IOException {
        LogManager manager = start();
        Log log = manager.getOrCreateLog(TP, Map.of());
        append(log, 3);
        time.advance(600_000L); // retention and both checkpoint tasks have run and been rescheduled
        assertTrue(scheduler.pendingTaskNames().contains("kafka-log-retention"), scheduler.pendingTaskNames().toString());
        close(manager);
        Path checkpoint = logDir().resolve(LogFileNames.LOG_START_OFFSET_CHECKPOINT);
        Files.delete(checkpoint);
        time.advance(600_000L);
        assertFalse(Files.exists(checkpoint), "a closed manager must not write checkpoints any more");
        assertTrue(scheduler.pendingTaskNames().stream().noneMatch(n -> n.startsWith("kafka-")),
                scheduler.pendingTaskNames().toString());
    }
}
