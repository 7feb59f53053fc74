package io.tideline.store.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.log.DeleteRecordsResult;
import io.tideline.store.log.Log;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.segment.LogFileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One checkpoint file that cannot be written while everything else can: its {@code .tmp} path is taken by a
 * directory, so opening it for writing fails (EISDIR) exactly where a full disk or an I/O error would fail it.
 * The dir goes offline, a clean stop leaves no marker there, and a DeleteRecords whose log-start-offset
 * checkpoint cannot be written is refused, never answered and then undone by the next start (docs/behaviours.md
 * B140, B78). Runs without root; {@link LogDirDiskFaultTest} does the same on a real full disk.
 */
class CheckpointWriteFailureTest {
    private static final TopicPartition TP = new TopicPartition("orders", 0);

    @TempDir
    Path root;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final List<LogManager> running = new ArrayList<>();
    private final List<String> offlineReports = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() {
        running.forEach(LogManager::closeWithoutShutdown);
    }

    private Path logDir() {
        return root.resolve("logs");
    }

    private LogManager start() throws IOException {
        Map<String, Object> props = new HashMap<>();
        props.put("log.dirs", logDir().toString());
        props.put("log.segment.bytes", 64 * 1024);
        props.put("log.retention.ms", -1);
        LogManager manager = new LogManager(StoreConfig.fromMap(props), "cluster-A", 1, time, scheduler,
                new MetricRegistry(), new Random(5));
        running.add(manager);
        manager.startup();
        manager.setLogDirFailureListener((dir, reason, lost) -> offlineReports.add(dir + " " + lost));
        return manager;
    }

    private void stop(LogManager manager) {
        manager.close();
        running.remove(manager);
    }

    private static void append(Log log, int batches) {
        for (int b = 0; b < batches; b++) {
            RecordBatchBuilder builder = new RecordBatchBuilder(0);
            for (int r = 0; r < 3; r++) {
                builder.append(1_000L, "key-" + r, "value-" + r);
            }
            log.appendAsLeader(builder.buildRecords(), 0);
        }
    }

    private void breakCheckpoint(String name) throws IOException {
        Files.createDirectories(logDir().resolve(name + ".tmp"));
    }

    private void repairCheckpoint(String name) throws IOException {
        Files.delete(logDir().resolve(name + ".tmp"));
    }

    @Test
    void aFailedPeriodicCheckpointTakesTheDirOfflineAndTheCleanStopWritesNoMarker() throws IOException {
        LogManager manager = start();
        append(manager.getOrCreateLog(TP, Map.of()), 10);
        breakCheckpoint(LogFileNames.REPLICATION_OFFSET_CHECKPOINT);

        manager.checkpointRecoveryPointsAndHighWatermarks();

        assertEquals(Set.of(logDir()), manager.offlineLogDirs());
        assertEquals(List.of(logDir() + " [" + TP + "]"), offlineReports);
        stop(manager);
        assertFalse(Files.exists(logDir().resolve(LogFileNames.CLEAN_SHUTDOWN_MARKER)));
    }

    /**
     * A node that stops interrupts its metadata publisher, which may be writing a checkpoint (it deletes a log);
     * the interrupted write fails with ClosedByInterruptException, and that is no disk fault (B146).
     */
    @Test
    void aCheckpointWriteOnAnInterruptedThreadLeavesTheDirOnlineAndTheStopWritesItAndTheMarker() throws IOException {
        LogManager manager = start();
        append(manager.getOrCreateLog(TP, Map.of()), 10);

        Thread.currentThread().interrupt();
        try {
            manager.checkpointRecoveryPointsAndHighWatermarks();
        } finally {
            assertTrue(Thread.interrupted(), "the interrupt is kept");
        }

        assertEquals(Set.of(), manager.offlineLogDirs());
        assertEquals(List.of(), offlineReports);
        stop(manager);
        assertTrue(Files.exists(logDir().resolve(LogFileNames.CLEAN_SHUTDOWN_MARKER)));
    }

    @Test
    void aCheckpointFailingAtTheCleanStopLeavesNoMarker() throws IOException {
        LogManager manager = start();
        append(manager.getOrCreateLog(TP, Map.of()), 10);
        breakCheckpoint(LogFileNames.RECOVERY_POINT_CHECKPOINT);

        stop(manager);

        assertFalse(Files.exists(logDir().resolve(LogFileNames.CLEAN_SHUTDOWN_MARKER)),
                "a clean-shutdown marker would make the next start trust checkpoints that were not written");
    }

    @Test
    void aDeleteRecordsWhoseCheckpointFailsIsRefusedAndNotUndoneAfterACleanStop() throws IOException {
        LogManager manager = start();
        append(manager.getOrCreateLog(TP, Map.of()), 10);
        assertEquals(DeleteRecordsResult.success(6), manager.deleteRecords(TP, 6));
        breakCheckpoint(LogFileNames.LOG_START_OFFSET_CHECKPOINT);

        DeleteRecordsResult answer = manager.deleteRecords(TP, 21);
        stop(manager);
        repairCheckpoint(LogFileNames.LOG_START_OFFSET_CHECKPOINT);

        long startOffset = start().getLog(TP).orElseThrow().logStartOffset();
        assertTrue(answer.error() != Errors.NONE || startOffset >= answer.lowWatermark(),
                "DeleteRecords answered " + answer + " but the log starts at " + startOffset + " after a restart");
        assertEquals(DeleteRecordsResult.error(Errors.KAFKA_STORAGE_ERROR), answer);
        assertEquals(6, startOffset, "the DeleteRecords answered before the fault stays");
        assertEquals(List.of(logDir() + " [" + TP + "]"), offlineReports);
    }
}
