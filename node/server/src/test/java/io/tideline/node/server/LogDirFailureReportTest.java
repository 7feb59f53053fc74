package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.node.metadata.ImageReplayer;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.FailedReplica;
import io.tideline.proto.metadata.MetadataRecord;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.TopicRecord;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.server.FailedReplicaReporter;
import io.tideline.replication.server.LeaderAndIsr;
import io.tideline.replication.server.PartitionSettings;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.manager.LogManager;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report of a failed log dir is sent until the controller acknowledges it, with a backoff that doubles
 * from {@link LogDirFailureHandler#INITIAL_BACKOFF_MS} to {@link LogDirFailureHandler#MAX_BACKOFF_MS}, each
 * attempt with the broker epoch of its moment (docs/behaviours.md B144). The controller here refuses the first
 * attempts the ways a real one does (a timeout, STALE_BROKER_EPOCH while the broker re-registers, no leader).
 */
class LogDirFailureReportTest {
    private static final TopicPartition TP = new TopicPartition("orders", 0);

    @TempDir
    Path dir;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final List<Long> attemptsAtMs = new CopyOnWriteArrayList<>();
    private final List<Long> epochs = new CopyOnWriteArrayList<>();
    private final List<List<FailedReplica>> reports = new CopyOnWriteArrayList<>();
    private final AtomicLong brokerEpoch = new AtomicLong(7);
    private LogManager logManager;
    private ReplicaManager replicaManager;
    private LogDirFailureHandler handler;

    @BeforeEach
    void setUp() throws Exception {
        logManager = new LogManager(StoreConfig.fromMap(Map.of("log.dirs", dir.toString())), "c", 1, time, scheduler,
                new MetricRegistry(), new Random(1));
        logManager.startup();
        replicaManager = new ReplicaManager(1, ReplicationConfig.fromMap(Map.of()), logManager, time, scheduler,
                (tp, id, epoch, proposal) -> new CompletableFuture<>(), FailedReplicaReporter.NONE,
                broker -> Optional.empty(), new MetricRegistry());
        replicaManager.applyPartitionState(new LeaderAndIsr(TP, "t1", 1, 0, 0, List.of(1, 2), List.of(1, 2)),
                PartitionSettings.defaults());
        MetadataImage image = ImageReplayer.replay(MetadataImage.EMPTY, List.of(
                MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName("orders").setTopicId("t1")).build(),
                MetadataRecord.newBuilder().setPartition(PartitionRecord.newBuilder().setTopicId("t1").setPartition(0)
                        .addReplicas(1).addReplicas(2).addIsr(1).addIsr(2).setLeader(1)).build()), 5, 1);
        handler = new LogDirFailureHandler(1, logManager, replicaManager, this::controller, brokerEpoch::get,
                () -> image, scheduler);
        logManager.setLogDirFailureListener(handler::onLogDirOffline);
    }

    @AfterEach
    void tearDown() {
        handler.close();
        replicaManager.close();
        logManager.closeWithoutShutdown();
    }

    /** Refuses the first three attempts, each in another way, then acknowledges. */
    private CompletableFuture<ControllerResponse> controller(int brokerId, long epoch, List<FailedReplica> replicas) {
        attemptsAtMs.add(time.milliseconds());
        epochs.add(epoch);
        reports.add(replicas);
        return switch (attemptsAtMs.size()) {
            case 1 -> CompletableFuture.failedFuture(new TimeoutException("no answer from the quorum"));
            case 2 -> {
                brokerEpoch.set(9); // the broker re-registered meanwhile
                yield CompletableFuture.completedFuture(ControllerResponse.newBuilder()
                        .setErrorCode(Errors.STALE_BROKER_EPOCH.code()).build());
            }
            case 3 -> CompletableFuture.completedFuture(ControllerResponse.newBuilder()
                    .setErrorCode(Errors.NOT_CONTROLLER.code()).build());
            default -> CompletableFuture.completedFuture(ControllerResponse.newBuilder()
                    .setErrorCode(Errors.NONE.code()).build());
        };
    }

    /** The first attempt runs on the handler's thread; its retry is on the mock scheduler once it failed. */
    private void awaitFirstAttemptAndItsRetry() {
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> attemptsAtMs.size() == 1
                && scheduler.pendingTaskNames().contains("log-dir-failure-report"));
    }

    @Test
    void theFailedDirIsReportedUntilTheControllerAcknowledgesWithADoublingBackoff() {
        long start = time.milliseconds();
        handler.onStorageError(TP, new TidelineException(Errors.KAFKA_STORAGE_ERROR, "No space left on device"));
        awaitFirstAttemptAndItsRetry();
        assertTrue(replicaManager.isOffline(TP));
        assertEquals(1, reports.get(0).size());
        assertTrue(reports.get(0).get(0).getStorageError());
        assertEquals("t1", reports.get(0).get(0).getTopicId());

        for (long backoff : new long[] {100, 200, 400}) {
            time.advance(backoff - 1);
            int before = attemptsAtMs.size();
            assertEquals(before, attemptsAtMs.size(), "no attempt before the backoff is over");
            time.advance(1);
            assertEquals(before + 1, attemptsAtMs.size(), "an attempt once " + backoff + " ms passed");
        }
        assertEquals(List.of(start, start + 100, start + 300, start + 700), attemptsAtMs);
        assertEquals(List.of(7L, 7L, 9L, 9L), epochs, "each attempt carries the broker epoch of its moment");

        time.advance(60_000);
        assertEquals(4, attemptsAtMs.size(), "acknowledged: no more attempts");
    }

    @Test
    void theBackoffStopsGrowingAtItsMaximumAndAStoppedBrokerStopsReporting() {
        handler.close();
        handler = new LogDirFailureHandler(1, logManager, replicaManager, (id, epoch, replicas) -> {
            attemptsAtMs.add(time.milliseconds());
            return CompletableFuture.failedFuture(new TimeoutException("no quorum"));
        }, brokerEpoch::get, () -> ImageReplayer.replay(MetadataImage.EMPTY, List.of(
                MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName("orders").setTopicId("t1")).build()),
                5, 1), scheduler);
        logManager.setLogDirFailureListener(handler::onLogDirOffline);
        handler.onStorageError(TP, new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Input/output error"));
        awaitFirstAttemptAndItsRetry();
        for (int i = 0; i < 12; i++) {
            time.advance(LogDirFailureHandler.MAX_BACKOFF_MS);
        }
        long last = attemptsAtMs.get(attemptsAtMs.size() - 1);
        long gap = last - attemptsAtMs.get(attemptsAtMs.size() - 2);
        assertEquals(LogDirFailureHandler.MAX_BACKOFF_MS, gap);
        handler.close();
        int attempts = attemptsAtMs.size();
        time.advance(10 * LogDirFailureHandler.MAX_BACKOFF_MS);
        assertEquals(attempts, attemptsAtMs.size(), "a closed handler sends nothing more");
    }
}
