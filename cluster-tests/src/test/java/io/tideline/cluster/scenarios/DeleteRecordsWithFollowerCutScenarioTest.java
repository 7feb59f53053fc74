package io.tideline.cluster.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.ConsumerMetrics;
import io.tideline.client.ConsumerRecord;
import io.tideline.client.DeleteRecordsResult;
import io.tideline.client.OffsetOutOfRangeException;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineConsumer;
import io.tideline.cluster.harness.ClusterHarness;
import io.tideline.cluster.history.History;
import io.tideline.cluster.history.HistoryChecker;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.store.log.Log;
import io.tideline.store.segment.LogSegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 5 of docs/testing.md, "Scenarios",
 * over three real nodes: DeleteRecords while follower 3's replication link to leader 1 is
 * cut (node 3 stays registered and unfenced, so it is a live replica the request waits for). The request times
 * out with REQUEST_TIMED_OUT and the partial low watermark, node 3's log start offset, although the leader and
 * node 2 have moved (docs/behaviours.md B25). Healed, node 3 catches up, adopts the new log start offset and
 * deletes its segments below it (B26, B28, B17); consumers positioned below it then see auto.offset.reset
 * earliest, latest and none behave as B31-B32 say. The history checker passes over it all.
 */
@ExtendWith(DumpClusterStateOnFailure.class)
class DeleteRecordsWithFollowerCutScenarioTest {
    private static final String TOPIC = "delete-records";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int LEADER = 1;
    private static final int CUT = 3;
    private static final List<Integer> REPLICAS = List.of(LEADER, 2, CUT);
    private static final int DELETE_TIMEOUT_MS = 3000;
    private static final long FIRST_DELETE = 15;

    @TempDir
    Path dir;
    ClusterHarness cluster;
    private TidelineAdmin admin;
    private final History history = new History();

    @AfterEach
    void close() {
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void deleteRecordsTimesOutAtTheCutFollowersStartThenItCatchesUpAndConsumersReset() throws Exception {
        cluster = ClusterHarness.start(dir, 3, Map.of("replica.lag.time.max.ms", 1000,
                "log.retention.check.interval.ms", 200));
        // request.timeout.ms is also the broker's DeleteRecords wait (the request's timeout_ms).
        admin = new TidelineAdmin(Map.of("bootstrap.servers", cluster.bootstrapServers(),
                "request.timeout.ms", DELETE_TIMEOUT_MS, "default.api.timeout.ms", 20_000));
        var created = admin.createTopic(TOPIC, Map.of(0, REPLICAS), Map.of(
                "segment.bytes", "2048",
                "retention.ms", "-1",
                "file.delete.delay.ms", "300",
                "min.insync.replicas", "2"));
        assertEquals(Errors.NONE, created.error(), created.toString());
        Awaitility.await("all three in sync").atMost(Duration.ofSeconds(20))
                .until(() -> image().getIsrCount() == 3 && image().getLeader() == LEADER);

        produce("before-", 40);
        awaitSameHighWatermark();
        // First a DeleteRecords that every replica follows: the low watermark the later one stops at.
        DeleteRecordsResult first = admin.deleteRecords(Map.of(TP, FIRST_DELETE)).get(TP);
        assertEquals(Errors.NONE, first.error(), first.toString());
        assertEquals(FIRST_DELETE, first.lowWatermark(), first.toString());
        for (int b : REPLICAS) {
            assertEquals(FIRST_DELETE, log(b).logStartOffset(), "broker " + b + " before the cut");
        }
        probe().sample(REPLICAS);
        produce("in-sync-", 40);
        awaitSameHighWatermark();

        cluster.replicationProxy(CUT, LEADER).cut();
        long cutLogEnd = log(CUT).logEndOffset();
        produce("cut-", 30);
        Awaitility.await("node 3 out of the ISR").atMost(Duration.ofSeconds(20))
                .until(() -> !image().getIsrList().contains(CUT));
        Awaitility.await("leader and node 2 at the same high watermark").atMost(Duration.ofSeconds(20))
                .until(() -> log(LEADER).highWatermark() == log(LEADER).logEndOffset()
                        && log(2).highWatermark() == log(LEADER).logEndOffset());
        long hw = log(LEADER).highWatermark();
        // Below node 3's log end, so that once healed it fetches on in range and only has to learn the new
        // log start offset. (Above it, node 3's next fetch would be below the leader's log start offset:
        // OFFSET_OUT_OF_RANGE, and under the default policy halt it would be FAILED, B42.)
        long target = cutLogEnd - 10;
        assertTrue(target > FIRST_DELETE + 30 && log(CUT).segments().get(1).baseOffset() < target,
                "target " + target + " is segments above node 3's log start offset " + FIRST_DELETE);

        long began = System.nanoTime();
        DeleteRecordsResult timedOut = admin.deleteRecords(Map.of(TP, target)).get(TP);
        long tookMs = (System.nanoTime() - began) / 1_000_000;
        // B25: the live follower holds the answer back; the low watermark reached is its log start offset.
        assertEquals(Errors.REQUEST_TIMED_OUT, timedOut.error(), timedOut.toString());
        assertEquals(FIRST_DELETE, timedOut.lowWatermark(), timedOut.toString());
        assertTrue(tookMs >= DELETE_TIMEOUT_MS - 100, "answered after " + tookMs + " ms");
        assertEquals(target, log(LEADER).logStartOffset(), "the leader's log start offset moved at once");
        Awaitility.await("node 2 follows").atMost(Duration.ofSeconds(10))
                .until(() -> log(2).logStartOffset() == target);
        assertEquals(FIRST_DELETE, log(CUT).logStartOffset(), "node 3 cannot learn of it");
        assertTrue(log(CUT).segments().get(0).baseOffset() <= FIRST_DELETE
                && log(CUT).segments().get(1).baseOffset() < target, "node 3 still has its segments below "
                + target + ": " + log(CUT).segments());
        assertSegmentsBelowDeleted(LEADER, target);
        probe().sample(REPLICAS);

        cluster.replicationProxy(CUT, LEADER).heal();
        Awaitility.await("node 3 adopts the new log start offset and rejoins the ISR").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                    assertEquals(target, log(CUT).logStartOffset());
                    assertEquals(Set.of(LEADER, 2, CUT), new HashSet<>(image().getIsrList()));
                });
        assertSegmentsBelowDeleted(CUT, target);
        DeleteRecordsResult caughtUp = admin.deleteRecords(Map.of(TP, target)).get(TP);
        assertEquals(Errors.NONE, caughtUp.error(), caughtUp.toString());
        assertEquals(target, caughtUp.lowWatermark(), "every replica's log start offset is there now");
        probe().sample(REPLICAS);

        long below = FIRST_DELETE + 5;
        earliestResetsToTheNewLogStartOffset(below, target);
        latestResetsToTheHighWatermark(below, hw);
        noneThrowsAndKeepsThePosition(below, target, hw);

        produce("after-heal-", 20);
        var result = probe().finalReadAndCheck(REPLICAS, HistoryChecker.lenient());
        assertTrue(result.deletedByRetention() >= target - 1, result.report());
    }

    /**
     * B26, B28, B17 on broker {@code b}: no segment wholly below {@code logStart} is left in the log, and once
     * file.delete.delay.ms has passed none is left on disk either, not even as {@code .deleted}.
     */
    private void assertSegmentsBelowDeleted(int b, long logStart) {
        Log log = log(b);
        List<Long> bases = log.segments().stream().map(LogSegment::baseOffset).toList();
        assertTrue(bases.get(0) <= logStart && (bases.size() == 1 || bases.get(1) > logStart),
                "broker " + b + " keeps segments " + bases + " with log start offset " + logStart);
        Awaitility.await("broker " + b + "'s files below " + logStart + " unlinked").atMost(Duration.ofSeconds(10))
                .until(() -> RebuildPolicyScenarioTest.segmentFileBases(log.dir()).equals(
                        log.segments().stream().map(LogSegment::baseOffset).toList()));
    }

    /** B31 earliest: moves to the log start offset, reads on from there, and says so (B32). */
    private void earliestResetsToTheNewLogStartOffset(long below, long logStart) {
        try (TidelineConsumer consumer = consumer("earliest")) {
            List<long[]> resets = new ArrayList<>();
            consumer.setOffsetResetListener((p, from, to, skipped) -> {
                history.toldLogStartOffset("earliest", p, to);
                resets.add(new long[] {from, to, skipped});
            });
            consumer.assign(List.of(TP));
            consumer.seek(TP, below);
            List<ConsumerRecord> records = new ArrayList<>();
            Awaitility.await("earliest reads from the log start offset").atMost(Duration.ofSeconds(20))
                    .pollDelay(Duration.ZERO).until(() -> {
                        for (ConsumerRecord r : consumer.poll(Duration.ofMillis(200))) {
                            history.consumed("earliest", TP, r.offset(), new String(r.value(), StandardCharsets.UTF_8));
                            records.add(r);
                        }
                        return !records.isEmpty();
                    });
            assertEquals(logStart, records.get(0).offset());
            assertEquals(1, resets.size());
            assertEquals(List.of(below, logStart, logStart - below), List.of(resets.get(0)[0], resets.get(0)[1],
                    resets.get(0)[2]));
            assertEquals(logStart - below, consumer.metrics().counter(ConsumerMetrics.RECORDS_SKIPPED_BY_RESET).getCount());
            assertEquals(1, consumer.metrics().counter(ConsumerMetrics.OFFSET_OUT_OF_RANGE_RESETS).getCount());
        }
    }

    /** B31 latest: moves to the high watermark; nothing before it is read. */
    private void latestResetsToTheHighWatermark(long below, long hw) {
        try (TidelineConsumer consumer = consumer("latest")) {
            List<long[]> resets = new ArrayList<>();
            consumer.setOffsetResetListener((p, from, to, skipped) -> resets.add(new long[] {from, to}));
            consumer.assign(List.of(TP));
            consumer.seek(TP, below);
            Awaitility.await("latest moves to the high watermark").atMost(Duration.ofSeconds(20))
                    .pollDelay(Duration.ZERO).until(() -> {
                        List<ConsumerRecord> read = consumer.poll(Duration.ofMillis(200));
                        assertTrue(read.isEmpty(), "latest read records below the high watermark: " + read.size());
                        return !resets.isEmpty();
                    });
            assertEquals(hw, consumer.position(TP));
            assertEquals(List.of(below, hw), List.of(resets.get(0)[0], resets.get(0)[1]));
            assertEquals(1, consumer.metrics().counter(ConsumerMetrics.OFFSET_OUT_OF_RANGE_RESETS).getCount());
        }
    }

    /** B31 none: poll throws OffsetOutOfRangeException with the bounds, the position stays, and it throws again. */
    private void noneThrowsAndKeepsThePosition(long below, long logStart, long hw) {
        try (TidelineConsumer consumer = consumer("none")) {
            consumer.assign(List.of(TP));
            consumer.seek(TP, below);
            for (int attempt = 0; attempt < 2; attempt++) {
                AtomicReference<OffsetOutOfRangeException> thrown = new AtomicReference<>();
                Awaitility.await("poll throws OffsetOutOfRangeException").atMost(Duration.ofSeconds(20))
                        .pollDelay(Duration.ZERO).until(() -> {
                            try {
                                List<ConsumerRecord> read = consumer.poll(Duration.ofMillis(200));
                                assertTrue(read.isEmpty(), "none read " + read.size() + " records below the start");
                                return false;
                            } catch (OffsetOutOfRangeException e) {
                                thrown.set(e);
                                return true;
                            }
                        });
                OffsetOutOfRangeException e = thrown.get();
                assertEquals(Errors.OFFSET_OUT_OF_RANGE, e.error(), e.toString());
                assertEquals(List.of(TP, below, logStart, hw), List.of(e.partition(), e.requestedOffset(),
                        e.logStartOffset(), e.highWatermark()), e.getMessage());
                assertEquals(below, consumer.position(TP), "the position does not move under none");
            }
            assertEquals(0, consumer.metrics().counter(ConsumerMetrics.OFFSET_OUT_OF_RANGE_RESETS).getCount());
        }
    }

    private TidelineConsumer consumer(String reset) {
        return new TidelineConsumer(Map.of("bootstrap.servers", cluster.bootstrapServers(),
                "auto.offset.reset", reset));
    }

    private void produce(String prefix, int acknowledged) throws InterruptedException {
        try (ProduceLoop producer = new ProduceLoop(cluster.bootstrapServers(), TP, history, prefix)) {
            Awaitility.await(acknowledged + " records acknowledged (" + prefix + ")").atMost(Duration.ofSeconds(30))
                    .until(() -> producer.acknowledged() >= acknowledged);
        }
    }

    private void awaitSameHighWatermark() {
        Awaitility.await("every replica at the leader's high watermark").atMost(Duration.ofSeconds(20))
                .until(() -> REPLICAS.stream().allMatch(b -> log(b).highWatermark() == log(LEADER).logEndOffset()));
    }

    private PartitionProbe probe() {
        return new PartitionProbe(cluster, TP, history);
    }

    private Log log(int broker) {
        return probe().log(broker);
    }

    private PartitionRecord image() {
        return probe().image(LEADER);
    }
}
