package io.tideline.store.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.log.DeleteRecordsResult;
import io.tideline.store.log.Log;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.segment.LogFileNames;
import io.tideline.testsupport.disk.SmallFileSystem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk under a log dir, for real: a 4 MiB tmpfs (root only, see {@link SmallFileSystem}). A checkpoint
 * that cannot be written takes the dir offline, a clean stop leaves no clean-shutdown marker over it, and a
 * DeleteRecords whose checkpoint cannot be written is refused rather than answered and undone by the next start
 * (docs/behaviours.md B140, B78). Appends that find the disk full fail with KAFKA_STORAGE_ERROR and never as
 * the InternalError of a store into a mapped hole (B142).
 */
class LogDirDiskFaultTest {
    private static final TopicPartition TP = new TopicPartition("orders", 0);

    @TempDir
    Path root;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final List<LogManager> running = new ArrayList<>();
    private final List<String> offlineReports = new CopyOnWriteArrayList<>();
    private SmallFileSystem disk;

    @BeforeEach
    void mountSmallDisk() throws IOException {
        disk = SmallFileSystem.mount(root.resolve("disk"), 4);
    }

    @AfterEach
    void unmount() throws IOException {
        try {
            for (LogManager manager : running) {
                manager.closeWithoutShutdown();
            }
        } finally {
            disk.close();
        }
    }

    private Path logDir() {
        return disk.path().resolve("logs");
    }

    private LogManager start() throws IOException {
        Map<String, Object> props = new HashMap<>();
        props.put("log.dirs", logDir().toString());
        props.put("log.segment.bytes", 64 * 1024);
        props.put("log.index.interval.bytes", 100);
        props.put("log.retention.ms", -1);
        LogManager manager = new LogManager(StoreConfig.fromMap(props), "cluster-A", 1, time, scheduler,
                new MetricRegistry(), new Random(5));
        running.add(manager);
        manager.startup();
        manager.setLogDirFailureListener((dir, reason, lost) -> offlineReports.add(dir + " " + lost));
        return manager;
    }

    private static void append(Log log, int batches) {
        for (int b = 0; b < batches; b++) {
            RecordBatchBuilder builder = new RecordBatchBuilder(0);
            for (int r = 0; r < 3; r++) {
                builder.append(1_000L, "key-" + r, "value-" + r + "-0123456789");
            }
            log.appendAsLeader(builder.buildRecords(), 0);
        }
    }

    @Test
    void aCheckpointThatCannotBeWrittenTakesTheDirOfflineAndACleanStopLeavesNoMarker() throws IOException {
        LogManager manager = start();
        Log log = manager.getOrCreateLog(TP, Map.of());
        append(log, 20);
        disk.fill();

        manager.checkpointRecoveryPointsAndHighWatermarks();

        assertEquals(java.util.Set.of(logDir()), manager.offlineLogDirs(), "the dir whose checkpoint failed is offline");
        assertEquals(List.of(logDir() + " [" + TP + "]"), offlineReports, "the listener heard of it once, with its partitions");
        assertTrue(manager.getLog(TP).isEmpty());
        manager.close();
        running.remove(manager);
        assertFalse(Files.exists(logDir().resolve(LogFileNames.CLEAN_SHUTDOWN_MARKER)),
                "no clean-shutdown marker over checkpoints that could not be written");
    }

    @Test
    void aDeleteRecordsWhoseCheckpointCannotBeWrittenIsRefusedAndOneAnsweredSurvivesACleanStop() throws IOException {
        LogManager manager = start();
        Log log = manager.getOrCreateLog(TP, Map.of());
        append(log, 20);
        assertEquals(DeleteRecordsResult.success(15), manager.deleteRecords(TP, 15));
        disk.fill();

        DeleteRecordsResult answer;
        try {
            answer = manager.deleteRecords(TP, 30);
        } catch (TidelineException e) {
            answer = DeleteRecordsResult.error(e.error());
        }
        manager.close();
        running.remove(manager);
        disk.free();

        LogManager again = start();
        long startOffset = again.getLog(TP).orElseThrow().logStartOffset();
        if (answer.error() == Errors.NONE) {
            assertTrue(startOffset >= answer.lowWatermark(), "DeleteRecords answered " + answer
                    + " but the log starts at " + startOffset + " after a clean stop and a start: undone");
        }
        assertEquals(Errors.KAFKA_STORAGE_ERROR, answer.error(), "a DeleteRecords that is not durable is refused");
        assertEquals(15, startOffset, "the one answered before the disk filled stays");
        assertEquals(List.of(logDir() + " [" + TP + "]"), offlineReports, "the dir went offline");
    }

    @Test
    void appendsOnAFullDiskFailWithAStorageErrorNeverAnInternalError() throws IOException {
        LogManager manager = start();
        Log log = manager.getOrCreateLog(TP, Map.of());
        append(log, 1);
        // The .log's last page has room left, so small appends still fit there after the fill; each one adds an
        // index entry (index.interval.bytes=100), which needs an index page of its own.
        disk.fill();
        int appended = 0;
        Throwable failure = null;
        try {
            for (int i = 0; i < 10_000; i++) {
                append(log, 1);
                appended++;
            }
        } catch (Throwable t) {
            failure = t;
        }
        assertTrue(failure instanceof TidelineException te && te.error() == Errors.KAFKA_STORAGE_ERROR,
                "after " + appended + " appends: " + failure);
        // What was appended before the disk filled up is still readable through the index.
        long last = log.logEndOffset() - 1;
        try (var read = log.read(last, 1 << 20, log.logEndOffset(), true)) {
            assertTrue(read.records().toMemoryRecords().batches().stream().anyMatch(b -> b.lastOffset() >= last));
        }
    }
}
