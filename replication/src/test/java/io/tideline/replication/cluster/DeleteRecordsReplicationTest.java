package io.tideline.replication.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.replication.server.DeleteRecordsPartitionResult;
import io.tideline.replication.server.PartitionSettings;
import io.tideline.replication.server.ProduceResult;
import io.tideline.store.log.Log;
import io.tideline.store.segment.LogFileNames;
import io.tideline.store.segment.LogSegment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DeleteRecords over three replicas (docs/behaviours.md B24-B26): the leader moves its start
 * offset at once, the answer waits for every live follower and carries the low watermark (the minimum
 * start offset over the leader and the live followers), and each follower deletes its own segments.
 */
class DeleteRecordsReplicationTest {
    private static final TopicPartition TP = new TopicPartition("orders", 0);
    private static final long FILE_DELETE_DELAY_MS = 5_000;
    private static final long TIMEOUT_MS = 3_000;
    private static final int LEADER = 1;
    private static final int RECORDS = 100;

    @TempDir
    Path dir;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private ReplicationTestCluster cluster;

    @BeforeEach
    void startWithAllInSync() throws Exception {
        cluster = new ReplicationTestCluster(3, dir, time, scheduler, Map.of(), Map.of(
                // Long enough that the ticks below never shrink the ISR.
                "replica.lag.time.max.ms", 60_000,
                "replica.fetch.backoff.ms", 20,
                "replica.fetch.wait.max.ms", 500));
        cluster.createPartition(TP, List.of(1, 2, 3), PartitionSettings.defaults().withLogOverrides(Map.of(
                "segment.bytes", 1024,
                // Rolls are frequent here; small preallocated indexes keep each one cheap.
                "segment.index.bytes", 1024,
                "file.delete.delay.ms", FILE_DELETE_DELAY_MS)));
        for (int i = 0; i < RECORDS; i++) {
            ProduceResult r = cluster.produce(TP, -1, 30_000, "v".repeat(100)).get(10, TimeUnit.SECONDS).get(TP);
            assertEquals(Errors.NONE, r.error(), r.message());
        }
        await(Duration.ofSeconds(10)).until(() -> cluster.brokers().stream()
                .allMatch(b -> b.log(TP).logEndOffset() == RECORDS && b.log(TP).highWatermark() == RECORDS));
    }

    @AfterEach
    void tearDown() throws Exception {
        cluster.close();
        assertEquals(List.of(), scheduler.failures(), "scheduled tasks failed");
    }

    @Test
    void leaderMovesAtOnceAndTheAnswerWaitsForEveryFollowerWhichDeletesItsOwnSegments() throws Exception {
        CompletableFuture<Map<TopicPartition, DeleteRecordsPartitionResult>> future = deleteRecords(LEADER, 40);
        assertEquals(40, log(LEADER).logStartOffset(), "the leader moves within the call");

        DeleteRecordsPartitionResult result = future.get(10, TimeUnit.SECONDS).get(TP);
        assertEquals(new DeleteRecordsPartitionResult(Errors.NONE, 40, null), result);
        for (TestBroker broker : cluster.brokers()) {
            Log log = broker.log(TP);
            assertEquals(40, log.logStartOffset(), "broker " + broker.id);
            // Whole segments below the start offset left the log; the one holding 40 stays whole.
            List<LogSegment> segments = log.segments();
            long firstEnd = segments.size() > 1 ? segments.get(1).baseOffset() : log.logEndOffset();
            assertTrue(segments.get(0).baseOffset() <= 40 && 40 < firstEnd, "broker " + broker.id + ": " + segments);
            assertFalse(deletedFiles(log).isEmpty(), "broker " + broker.id + " renamed its segments to .deleted");
        }

        // Unlinked once the scheduler passes file.delete.delay.ms, not before.
        time.advance(FILE_DELETE_DELAY_MS - 1);
        cluster.brokers().forEach(b -> assertFalse(deletedFiles(b.log(TP)).isEmpty(), "broker " + b.id));
        time.advance(1);
        cluster.brokers().forEach(b -> assertEquals(List.of(), deletedFiles(b.log(TP)), "broker " + b.id));
    }

    @Test
    void minusOneMeansTheHighWatermarkAndBadOffsetsOrFollowersAreRefused() throws Exception {
        assertEquals(Errors.OFFSET_OUT_OF_RANGE, deleteRecords(LEADER, RECORDS + 1).get(10, TimeUnit.SECONDS)
                .get(TP).error());
        assertEquals(Errors.OFFSET_OUT_OF_RANGE, deleteRecords(LEADER, -2).get(10, TimeUnit.SECONDS).get(TP).error());
        DeleteRecordsPartitionResult atFollower = deleteRecords(2, 10).get(10, TimeUnit.SECONDS).get(TP);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, atFollower.error());
        assertEquals(-1, atFollower.lowWatermark());
        cluster.brokers().forEach(b -> assertEquals(0, b.log(TP).logStartOffset(), "refused requests moved nothing"));
        assertEquals(new DeleteRecordsPartitionResult(Errors.NONE, 0, null),
                deleteRecords(LEADER, 0).get(10, TimeUnit.SECONDS).get(TP));

        DeleteRecordsPartitionResult all = deleteRecords(LEADER, -1).get(10, TimeUnit.SECONDS).get(TP);
        assertEquals(new DeleteRecordsPartitionResult(Errors.NONE, RECORDS, null), all);
        cluster.brokers().forEach(b -> assertEquals(RECORDS, b.log(TP).logStartOffset(), "broker " + b.id));
    }

    @Test
    void aCutOffFollowerHoldsTheAnswerUntilTheTimeoutWithTheLowWatermarkReachedSoFar() throws Exception {
        assertEquals(new DeleteRecordsPartitionResult(Errors.NONE, 20, null),
                deleteRecords(LEADER, 20).get(10, TimeUnit.SECONDS).get(TP));
        cluster.broker(3).cutLinkTo(LEADER);

        CompletableFuture<Map<TopicPartition, DeleteRecordsPartitionResult>> future = deleteRecords(LEADER, 60);
        assertEquals(60, log(LEADER).logStartOffset());
        await(Duration.ofSeconds(10)).until(() -> log(2).logStartOffset() == 60);
        await(Duration.ofSeconds(5)).during(Duration.ofMillis(300)).until(() -> !future.isDone());

        time.advance(TIMEOUT_MS - 1);
        assertFalse(future.isDone(), "answered before the timeout");
        time.advance(1);
        DeleteRecordsPartitionResult timedOut = future.get(10, TimeUnit.SECONDS).get(TP);
        assertEquals(Errors.REQUEST_TIMED_OUT, timedOut.error());
        // The minimum over the live replicas: broker 3 is still at 20.
        assertEquals(20, timedOut.lowWatermark(), timedOut.message());
        assertEquals(20, log(3).logStartOffset());

        // Back, the follower catches up its start offset too, and a new request is answered at once.
        cluster.broker(3).healLinkTo(LEADER);
        await(Duration.ofSeconds(10)).until(() -> log(3).logStartOffset() == 60);
        assertEquals(new DeleteRecordsPartitionResult(Errors.NONE, 60, null),
                deleteRecords(LEADER, 60).get(10, TimeUnit.SECONDS).get(TP));
    }

    @Test
    void aFollowerThatIsNotLiveIsNotWaitedFor() throws Exception {
        cluster.broker(3).cutLinkTo(LEADER);
        CompletableFuture<Map<TopicPartition, DeleteRecordsPartitionResult>> waiting = deleteRecords(LEADER, 50);
        await(Duration.ofSeconds(10)).until(() -> log(2).logStartOffset() == 50);
        assertFalse(waiting.isDone(), "broker 3 is live and at 0");

        // The controller fences broker 3: the waiting request completes without it, no tick needed.
        cluster.broker(LEADER).replicaManager.updateLiveBrokers(Set.of(1, 2));
        assertEquals(new DeleteRecordsPartitionResult(Errors.NONE, 50, null),
                waiting.get(10, TimeUnit.SECONDS).get(TP));
        assertEquals(new DeleteRecordsPartitionResult(Errors.NONE, 70, null),
                deleteRecords(LEADER, 70).get(10, TimeUnit.SECONDS).get(TP));
        assertEquals(0, log(3).logStartOffset());
    }

    @Test
    void aWaitingRequestIsAnsweredNotLeaderWhenLeadershipMovesAndTheNewLeaderGoesOn() throws Exception {
        cluster.broker(3).cutLinkTo(LEADER);
        CompletableFuture<Map<TopicPartition, DeleteRecordsPartitionResult>> waiting = deleteRecords(LEADER, 50);
        await(Duration.ofSeconds(10)).until(() -> log(2).logStartOffset() == 50);
        assertFalse(waiting.isDone());

        cluster.controller.electLeader(TP, 2);
        DeleteRecordsPartitionResult moved = waiting.get(10, TimeUnit.SECONDS).get(TP);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, moved.error());
        assertEquals(-1, moved.lowWatermark());

        // Broker 3 follows the new leader (its link to it is up) and catches up the start offset.
        assertEquals(new DeleteRecordsPartitionResult(Errors.NONE, 60, null),
                deleteRecords(2, 60).get(10, TimeUnit.SECONDS).get(TP));
        cluster.brokers().forEach(b -> assertEquals(60, b.log(TP).logStartOffset(), "broker " + b.id));
    }

    private CompletableFuture<Map<TopicPartition, DeleteRecordsPartitionResult>> deleteRecords(int broker, long before) {
        return cluster.broker(broker).replicaManager.deleteRecords(Map.of(TP, before), TIMEOUT_MS);
    }

    private Log log(int broker) {
        return cluster.broker(broker).log(TP);
    }

    private static List<Path> deletedFiles(Log log) {
        try (Stream<Path> files = Files.list(log.dir())) {
            return files.filter(f -> f.getFileName().toString().endsWith(LogFileNames.DELETED_SUFFIX)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A bounded wait polled often: the in-JVM cluster reacts within milliseconds. */
    private static ConditionFactory await(Duration atMost) {
        return Awaitility.await().atMost(atMost).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5));
    }
}
