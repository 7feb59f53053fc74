package io.tideline.cluster.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.PartitionReassignment;
import io.tideline.client.ProducerRecord;
import io.tideline.client.RecordMetadata;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineProducer;
import io.tideline.cluster.harness.ClusterHarness;
import io.tideline.cluster.history.History;
import io.tideline.cluster.history.HistoryChecker;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.server.TidelineNode;
import io.tideline.proto.metadata.PartitionRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 4 of docs/testing.md, "Scenarios",
 * over five real nodes in one JVM: the active controller (the Raft leader of the metadata
 * quorum) is killed while a reassignment moves a replica, under acks=all load. The controller is none of the
 * partition's replicas, so what is tested is the controller's failover alone: the next quorum leader carries the
 * move on from the replicated metadata, the move completes (replicas and ISR become the target, the removed
 * replica is dropped), the killed controller restarts and catches up, and the history checker passes.
 *
 * <p>Two points of the move: while the added replica copies the log (slowed by a follower replication throttle,
 * as an operator's {@code --throttle}), and at its last step, when the added replica catches up and the leader's
 * ISR expansion is what completes it: there the added replica's fetches are cut off until the kill, so that
 * expansion is proposed only once the controller is gone.
 */
@ExtendWith(DumpClusterStateOnFailure.class)
class ControllerKilledMidReassignmentScenarioTest {
    private static final String TOPIC = "moving";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    /** About 1.5 MB before the move, so that at the throttle below the copy takes several seconds. */
    private static final int PRELOAD_RECORDS = 1500;
    private static final int PRELOAD_VALUE_BYTES = 1000;
    private static final long THROTTLE_BYTES_PER_SECOND = 300_000;
    /**
     * The load during the throttled copy is paced to at most 200 records (under 40 kB) a second: a throttled
     * replica only catches up if the throttle outruns the produce rate, which unpaced went up to 150 kB/s.
     */
    private static final Duration PACED = Duration.ofMillis(5);

    @TempDir
    Path dir;
    ClusterHarness cluster;
    private TidelineAdmin admin;
    private final History history = new History();

    /** The partition's roles, picked around the controller so that it is none of them. */
    private int controller;
    private int leader;
    private int follower;
    private int removed;
    private int added;

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
    void controllerKilledWhileTheAddedReplicaCopiesTheLog() throws Exception {
        startWithPreloadedPartition();
        admin.alterTopicConfigs(TOPIC, Map.of("follower.replication.throttled.replicas", "0:" + added), List.of());
        admin.alterBrokerConfigs(OptionalInt.of(added),
                Map.of("follower.replication.throttled.rate", String.valueOf(THROTTLE_BYTES_PER_SECOND)), List.of());

        try (ProduceLoop producer = new ProduceLoop(cluster.bootstrapServers(), TP, history, "v", PACED)) {
            awaitAcknowledgedMore(producer, 20);
            startMove();
            Awaitility.await("the added replica copying, part of the way").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50)).until(() -> addedLogEnd() > 0);
            long copied = addedLogEnd();
            long leaderEnd = probe().log(leader).logEndOffset();
            assertInProgress();
            assertTrue(copied < leaderEnd, "the copy is still under way at the kill: " + copied + " of " + leaderEnd);

            killControllerAndAwaitTheNext();
            // Only the controller went away: the move goes on (the replicated metadata still says it is in
            // progress) and produces are still acknowledged meanwhile.
            awaitAcknowledgedMore(producer, 20);
            awaitMoveCompleted();
            awaitAcknowledgedMore(producer, 20);
        }
        restartKilledControllerAndAwaitCatchUp();
        probe().finalReadAndCheck(List.of(leader, follower, added), HistoryChecker.lenient());
    }

    @Test
    void controllerKilledJustBeforeTheIsrExpansionThatCompletesTheMove() throws Exception {
        startWithPreloadedPartition();
        // The added replica cannot fetch until the kill: its catch-up, and so the leader's ISR expansion that
        // completes the move, can only come after the controller is gone.
        cluster.replicationProxy(added, leader).cut();

        try (ProduceLoop producer = new ProduceLoop(cluster.bootstrapServers(), TP, history, "v")) {
            awaitAcknowledgedMore(producer, 20);
            startMove();
            Awaitility.await("the added replica created, held back by the cut").atMost(Duration.ofSeconds(30))
                    .until(() -> cluster.node(added).replicaManager().log(TP).isPresent());
            assertInProgress();
            assertEquals(0, addedLogEnd(), "nothing reached the added replica through the cut link");

            killControllerAndAwaitTheNextAfter(() -> cluster.replicationProxy(added, leader).heal());
            awaitMoveCompleted();
            awaitAcknowledgedMore(producer, 20);
        }
        restartKilledControllerAndAwaitCatchUp();
        probe().finalReadAndCheck(List.of(leader, follower, added), HistoryChecker.lenient());
    }

    /** Five nodes; a partition on three that are not the controller, leader first, filled with about 1 MB. */
    private void startWithPreloadedPartition() throws Exception {
        cluster = ClusterHarness.start(dir, 5, Map.of(
                "replica.lag.time.max.ms", 2000,
                // Small fetches, so that the throttled copy advances step by step instead of in one 1 MB answer.
                "replica.fetch.max.bytes", 32 * 1024));
        admin = new TidelineAdmin(Map.of("bootstrap.servers", cluster.bootstrapServers()));
        controller = Awaitility.await("a controller all nodes follow").atMost(Duration.ofSeconds(20))
                .until(() -> cluster.activeController(), Optional::isPresent).orElseThrow();
        List<Integer> others = new ArrayList<>(cluster.nodeIds());
        others.remove(Integer.valueOf(controller));
        leader = others.get(0);
        follower = others.get(1);
        removed = others.get(2);
        added = others.get(3);

        var created = admin.createTopic(TOPIC, Map.of(0, List.of(leader, follower, removed)),
                Map.of("min.insync.replicas", "2", "segment.bytes", String.valueOf(256 * 1024)));
        assertEquals(Errors.NONE, created.error(), created.toString());
        Awaitility.await("all three in sync under the first replica").atMost(Duration.ofSeconds(20))
                .until(() -> image().getIsrCount() == 3 && image().getLeader() == leader);
        preload();
        probe().sample(cluster.nodeIds());
    }

    /** Writes the preload in batches, every record recorded in the history as the loop's are. */
    private void preload() throws Exception {
        String padding = "p".repeat(PRELOAD_VALUE_BYTES);
        try (TidelineProducer producer = new TidelineProducer(Map.of("bootstrap.servers", cluster.bootstrapServers(),
                "acks", "all", "linger.ms", 5, "delivery.timeout.ms", 60_000))) {
            List<CompletableFuture<RecordMetadata>> sent = new ArrayList<>();
            List<History.ProduceAttempt> attempts = new ArrayList<>();
            for (int i = 0; i < PRELOAD_RECORDS; i++) {
                String value = "preload" + i + "-" + padding;
                attempts.add(history.produceInvoked(TP, value));
                sent.add(producer.send(new ProducerRecord(TOPIC, 0, null, value.getBytes(StandardCharsets.UTF_8))));
            }
            for (int i = 0; i < sent.size(); i++) {
                attempts.get(i).ok(sent.get(i).get(60, TimeUnit.SECONDS).offset());
            }
        }
    }

    private void startMove() {
        var result = admin.alterPartitionReassignments(Map.of(TP, Optional.of(List.of(leader, follower, added))));
        assertEquals(Errors.NONE, result.get(TP).error(), result.toString());
    }

    /** The move is under way as the admin API and the controller's image show it: adding one, removing one. */
    private void assertInProgress() {
        PartitionReassignment moving = admin.listPartitionReassignments(List.of(TP)).get(TP);
        assertTrue(moving != null, "the move is listed");
        assertEquals(List.of(added), moving.addingReplicas(), moving.toString());
        assertEquals(List.of(removed), moving.removingReplicas(), moving.toString());
        PartitionRecord p = image();
        assertEquals(List.of(leader, follower, removed, added), p.getReplicasList(), p.toString());
        assertFalse(p.getIsrList().contains(added), p.toString());
    }

    private void killControllerAndAwaitTheNext() {
        killControllerAndAwaitTheNextAfter(() -> { });
    }

    /** Kills the active controller (crash), runs {@code afterKill} at once, and waits for a new one. */
    private void killControllerAndAwaitTheNextAfter(Runnable afterKill) {
        assertEquals(Optional.of(controller), cluster.activeController(), "the controller picked at the start still leads");
        probe().sample(cluster.nodeIds());
        cluster.kill(controller);
        afterKill.run();
        int next = Awaitility.await("a new controller").atMost(Duration.ofSeconds(30))
                .until(() -> cluster.activeController(), Optional::isPresent).orElseThrow();
        assertNotEquals(controller, next);
    }

    /** Completed, and everything the completion implies, as the remaining nodes see it. */
    private void awaitMoveCompleted() {
        Awaitility.await("the move completed under the new controller").atMost(Duration.ofSeconds(45))
                .pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                    probe().sample(runningNodes());
                    PartitionRecord p = image();
                    assertEquals(List.of(leader, follower, added), p.getReplicasList(), p.toString());
                    assertEquals(Set.of(leader, follower, added), new HashSet<>(p.getIsrList()), p.toString());
                    assertEquals(0, p.getAddingReplicasCount() + p.getRemovingReplicasCount(), p.toString());
                    assertTrue(admin.listPartitionReassignments(List.of(TP)).isEmpty());
                    assertEquals(0, probe().underReplicated(leader));
                });
        Awaitility.await("the removed replica dropped its log").atMost(Duration.ofSeconds(20)).until(() ->
                cluster.node(removed).replicaManager().partition(TP).isEmpty()
                        && cluster.node(removed).logManager().getLog(TP).isEmpty());
    }

    /** The killed controller comes back as a voter: it follows the new leader and applies everything it missed. */
    private void restartKilledControllerAndAwaitCatchUp() throws Exception {
        TidelineNode back = cluster.restart(controller);
        Awaitility.await("the restarted controller caught up").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                    int active = cluster.activeController().orElseThrow();
                    long applied = cluster.node(active).quorum().orElseThrow().image().offset();
                    assertTrue(back.quorum().orElseThrow().image().offset() >= applied, "applied offset");
                    assertFalse(back.isFenced());
                    PartitionRecord seen = back.image().partition(TOPIC, 0).orElseThrow();
                    assertEquals(List.of(leader, follower, added), seen.getReplicasList(), seen.toString());
                });
    }

    private void awaitAcknowledgedMore(ProduceLoop producer, long more) {
        long target = producer.acknowledged() + more;
        Awaitility.await("acks=all produces acknowledged").atMost(Duration.ofSeconds(30))
                .until(() -> producer.acknowledged() >= target);
    }

    private long addedLogEnd() {
        return cluster.node(added).replicaManager().log(TP).map(l -> l.logEndOffset()).orElse(-1L);
    }

    private List<Integer> runningNodes() {
        return cluster.nodeIds().stream().filter(cluster::isRunning).toList();
    }

    /** The partition as the leader's image has it (the leader is never killed here). */
    private PartitionRecord image() {
        return probe().image(leader);
    }

    private PartitionProbe probe() {
        return new PartitionProbe(cluster, TP, history);
    }
}
