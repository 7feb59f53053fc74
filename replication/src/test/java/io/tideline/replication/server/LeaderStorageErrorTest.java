package io.tideline.replication.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerFetch;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.manager.LogManager;
import io.tideline.store.segment.LogFileNames;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader whose disk fails it while it serves a follower, or while it moves a log start offset for
 * DeleteRecords, reports the storage error, so the broker takes the log dir offline (docs/behaviours.md B143).
 * The read fault is real: the segment file loses its tail under the leader (as a failing disk or another
 * process truncating it would), so the bytes the log wrote are no longer there to read.
 */
class LeaderStorageErrorTest {
    private static final int LEADER = 1;
    private static final int FOLLOWER = 2;
    private static final TopicPartition TP = new TopicPartition("orders", 0);

    @TempDir
    Path dir;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final List<String> storageErrors = new CopyOnWriteArrayList<>();
    private LogManager logManager;
    private ReplicaManager manager;

    @BeforeEach
    void lead() throws Exception {
        Map<String, Object> store = new HashMap<>();
        store.put("log.dirs", dir.toString());
        store.put("log.retention.check.interval.ms", Long.MAX_VALUE / 4);
        MetricRegistry metrics = new MetricRegistry();
        logManager = new LogManager(StoreConfig.fromMap(store), "storage-error-test", LEADER, time, scheduler, metrics,
                new Random(1));
        logManager.startup();
        manager = new ReplicaManager(LEADER, ReplicationConfig.fromMap(Map.of("replica.lag.time.max.ms", 3_600_000)),
                logManager, time, scheduler, (tp, topicId, epoch, proposal) ->
                        CompletableFuture.completedFuture(IsrChangeResult.refused(Errors.REQUEST_TIMED_OUT)),
                (tp, reason) -> { }, id -> Optional.empty(), metrics);
        manager.setStorageErrorListener((tp, e) -> storageErrors.add(tp + ": " + e.getMessage()));
        manager.applyPartitionState(new LeaderAndIsr(TP, "id-orders", LEADER, 0, 0, List.of(LEADER, FOLLOWER),
                List.of(LEADER, FOLLOWER)), PartitionSettings.defaults());
        for (int i = 0; i < 10; i++) {
            assertEquals(Errors.NONE, manager.appendRecords(Map.of(TP, TestBatches.of(5, time.milliseconds())), 1, 1000)
                    .join().get(TP).error());
        }
    }

    @AfterEach
    void close() {
        manager.close();
        logManager.closeWithoutShutdown();
    }

    @Test
    void aReadErrorWhileServingAFollowerIsReportedAsAStorageError() throws Exception {
        Path segment = LogFileNames.logFile(dir.resolve(TP.directoryName()), 0);
        try (FileChannel file = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            file.truncate(Files.size(segment) / 2);
        }

        FetchResponseData answer = manager.fetchForReplica(FOLLOWER,
                List.of(new FollowerFetch(TP, 0, 0, -1, 0, 0, 1 << 20)), 1, 1 << 20, 0).join().get(TP);

        assertEquals(Errors.KAFKA_STORAGE_ERROR, answer.error(), answer.toString());
        assertEquals(1, storageErrors.size(), "the leader reports the failed read: " + storageErrors);
        assertTrue(storageErrors.get(0).startsWith(TP + ": "), storageErrors.toString());
    }

    @Test
    void aDeleteRecordsThatCannotBeMadeDurableIsAStorageErrorReported() throws Exception {
        // The follower has everything: the high watermark is at the log end, so offset 20 may be deleted.
        manager.fetchForReplica(FOLLOWER, List.of(new FollowerFetch(TP, 0, 50, 0, 0, 0, 1 << 20)), 1, 1 << 20, 0).join();
        assertEquals(50, manager.log(TP).orElseThrow().highWatermark());
        // The log-start-offset checkpoint's tmp path is taken by a directory: its write fails as on a bad disk.
        Files.createDirectories(dir.resolve(LogFileNames.LOG_START_OFFSET_CHECKPOINT + ".tmp"));

        DeleteRecordsPartitionResult answer = manager.deleteRecords(Map.of(TP, 20L), 1000).join().get(TP);

        assertEquals(Errors.KAFKA_STORAGE_ERROR, answer.error(), answer.toString());
        assertEquals(java.util.Set.of(dir), logManager.offlineLogDirs());
        assertEquals(1, storageErrors.size(), "reported: " + storageErrors);
    }
}
