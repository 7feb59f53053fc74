package io.tideline.cluster.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Gauge;
import io.tideline.client.ConsumerRecord;
import io.tideline.client.PartitionReplicas;
import io.tideline.client.ReplicaDescription;
import io.tideline.client.ReplicaState;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineConsumer;
import io.tideline.client.TopicDescription;
import io.tideline.cluster.harness.ClusterHarness;
import io.tideline.cluster.harness.ReplicaLogReader;
import io.tideline.cluster.history.History;
import io.tideline.cluster.history.HistoryChecker;
import io.tideline.cluster.history.HistoryEvent.LogEntry;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.replication.metrics.ReplicationMetrics;
import io.tideline.store.log.Log;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 1 of docs/testing.md, "Scenarios",
 * over four real nodes in one JVM: follower 3's replication link to leader 1 is cut (it
 * still reaches the quorum) while acks=all produces go on until retention on 1 and 2 has deleted past 3's log
 * end; healed, 3's fetch gets OFFSET_OUT_OF_RANGE and, under replica.fetch.out.of.range.policy=halt, it stays
 * FAILED and out of the ISR, which the metric, describeTopics and describeReplicas all show. Then an operator
 * heals it: one test moves the replica to node 4, the other rebuilds it in place. The history checker passes.
 *
 * <p>The system clock: retention, the ISR and the fetchers run on it, but so do Ratis's election timers and
 * gRPC's deadlines, which a mock clock does not drive, so the cut and the waits are in real time (short).
 */
@ExtendWith(DumpClusterStateOnFailure.class)
class MissionScenarioTest {
    private static final String TOPIC = "mission";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final long LAG_MS = 1000;
    private static final int CUT = 3;
    private static final int LEADER = 1;

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
    void failedFollowerIsHealedByReassignmentToAFourthNode() throws Exception {
        followerFallsPastRetentionAndStaysFailed();

        var results = admin.alterPartitionReassignments(Map.of(TP, Optional.of(List.of(1, 2, 4))));
        assertEquals(Errors.NONE, results.get(TP).error(), results.toString());
        Awaitility.await("replica moved to node 4 and in sync").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                    PartitionRecord p = leaderImagePartition();
                    assertEquals(List.of(1, 2, 4), p.getReplicasList());
                    assertEquals(Set.of(1, 2, 4), new HashSet<>(p.getIsrList()));
                    assertTrue(admin.listPartitionReassignments(List.of(TP)).isEmpty());
                    assertEquals(0, underReplicatedOnLeader());
                });
        Awaitility.await("node 3 dropped its replica").atMost(Duration.ofSeconds(20))
                .until(() -> cluster.node(CUT).replicaManager().partition(TP).isEmpty());
        finalReadAndCheck(List.of(1, 2, 4));
    }

    @Test
    void failedFollowerIsHealedByRebuildInPlace() throws Exception {
        followerFallsPastRetentionAndStaysFailed();

        var rebuilt = admin.rebuildReplica(TP, CUT);
        assertEquals(Errors.NONE, rebuilt.error(), rebuilt.toString());
        Awaitility.await("node 3 rebuilt and back in the ISR").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                    assertEquals(Set.of(1, 2, 3), new HashSet<>(leaderImagePartition().getIsrList()));
                    assertEquals(0, underReplicatedOnLeader());
                    ReplicaDescription three = replica(CUT);
                    assertEquals(ReplicaState.IN_SYNC, three.state(), three.toString());
                });
        finalReadAndCheck(List.of(1, 2, 3));
    }

    /** Setup, cut, produce past retention, heal, and the FAILED state held for three replica.lag.time.max.ms. */
    private void followerFallsPastRetentionAndStaysFailed() throws Exception {
        cluster = ClusterHarness.start(dir, 4, Map.of(
                "replica.lag.time.max.ms", LAG_MS,
                "log.retention.check.interval.ms", 200));
        admin = new TidelineAdmin(Map.of("bootstrap.servers", cluster.bootstrapServers()));
        var created = admin.createTopic(TOPIC, Map.of(0, List.of(LEADER, 2, CUT)), Map.of(
                "segment.bytes", "2048",
                "retention.ms", "1500",
                "min.insync.replicas", "2",
                "replica.fetch.out.of.range.policy", "halt"));
        assertEquals(Errors.NONE, created.error(), created.toString());
        Awaitility.await("all three in sync").atMost(Duration.ofSeconds(20))
                .until(() -> leaderImagePartition().getIsrCount() == 3 && leaderImagePartition().getLeader() == LEADER);

        try (ProduceLoop producer = new ProduceLoop(cluster.bootstrapServers(), TP, history, "v")) {
            Awaitility.await("first records replicated to node 3").atMost(Duration.ofSeconds(20))
                    .until(() -> log(CUT).logEndOffset() >= 20);
            cluster.replicationProxy(CUT, LEADER).cut();
            Awaitility.await("node 3 out of the ISR").atMost(Duration.ofSeconds(20))
                    .until(() -> !leaderImagePartition().getIsrList().contains(CUT));
            sampleReplicas();
            Awaitility.await("retention on 1 and 2 deleted past node 3's log end").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100)).until(() -> {
                        long behind = log(CUT).logEndOffset();
                        return log(LEADER).logStartOffset() > behind && log(2).logStartOffset() > behind;
                    });
            assertTrue(producer.acknowledged() > 0, "acks=all produces kept succeeding with ISR {1,2}");
        }
        sampleReplicas();
        long cutLogEnd = log(CUT).logEndOffset();

        cluster.replicationProxy(CUT, LEADER).heal();
        Awaitility.await("node 3 FAILED on OFFSET_OUT_OF_RANGE").atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                    ReplicaDescription three = replica(CUT);
                    assertEquals(ReplicaState.FAILED, three.state(), three.toString());
                    // OFFSET_OUT_OF_RANGE's reason, as the follower reported it.
                    assertTrue(three.reason().contains("is below the leader's log start offset")
                            && three.reason().contains("replica.fetch.out.of.range.policy=halt"), three.reason());
                    ReplicaDescription.Failure failure = three.failure().orElseThrow();
                    assertEquals(cutLogEnd, failure.fetchOffset(), three.toString());
                    assertTrue(failure.fetchOffset() < failure.leaderLogStartOffset(), three.toString());
                });
        assertTrue(cluster.node(LEADER).replicaManager().partition(TP).orElseThrow().offsetOutOfRangeAnswers() > 0,
                "the leader answered node 3's fetch with OFFSET_OUT_OF_RANGE");
        // Halt means it stays so: it never fetches again, so nothing puts it back in the ISR.
        Awaitility.await("still under-replicated, and every view agrees").during(Duration.ofMillis(3 * LAG_MS))
                .atMost(Duration.ofMillis(3 * LAG_MS + 10_000)).pollInterval(Duration.ofMillis(250))
                .untilAsserted(this::allViewsShowNode3FailedAndUnderReplicated);
        assertEquals(cutLogEnd, log(CUT).logEndOffset(), "a halted replica keeps its data and does not fetch");
    }

    private void allViewsShowNode3FailedAndUnderReplicated() {
        assertEquals(1, underReplicatedOnLeader());
        assertFalse(leaderImagePartition().getIsrList().contains(CUT));
        TopicDescription topic = admin.describeTopics(List.of(TOPIC)).get(0);
        TopicDescription.PartitionDescription p = topic.partitions().get(0);
        assertTrue(p.isUnderReplicated(), p.toString());
        assertFalse(p.isr().contains(CUT), p.toString());
        assertTrue(p.failedReplicas().stream().anyMatch(f -> f.brokerId() == CUT), p.toString());
        PartitionReplicas replicas = admin.describeReplicas(List.of(TP)).get(TP);
        assertEquals(LEADER, replicas.leader(), replicas.toString());
        assertEquals(ReplicaState.FAILED, replica(replicas, CUT).state(), replicas.toString());
    }

    private void finalReadAndCheck(List<Integer> replicas) throws Exception {
        // Retention off for the final read, so the log start offset stays where the read found it.
        admin.alterTopicConfigs(TOPIC, Map.of("retention.ms", "-1"), List.of());
        Awaitility.await("retention.ms=-1 applied on the leader").atMost(Duration.ofSeconds(10))
                .until(() -> log(LEADER).config().retentionMs() == -1);
        // Retention deleted all but the active segment while node 3 was cut: write a tail that stays, so the
        // final read and the replica logs (the new or rebuilt replica's copy included) have records to compare.
        try (ProduceLoop producer = new ProduceLoop(cluster.bootstrapServers(), TP, history, "after-heal-")) {
            Awaitility.await("records after the heal").atMost(Duration.ofSeconds(20))
                    .until(() -> producer.acknowledged() >= 50);
        }
        var result = probe().finalReadAndCheck(replicas, HistoryChecker.lenient());
        assertTrue(result.acknowledged() >= 50 && result.consumed() >= 50, result.report());
    }

    private void sampleReplicas() {
        probe().sample(List.of(LEADER, 2, CUT));
    }

    private PartitionProbe probe() {
        return new PartitionProbe(cluster, TP, history);
    }

    private Log log(int broker) {
        return probe().log(broker);
    }

    private PartitionRecord leaderImagePartition() {
        return probe().image(LEADER);
    }

    private int underReplicatedOnLeader() {
        return probe().underReplicated(LEADER);
    }

    private ReplicaDescription replica(int broker) {
        return replica(admin.describeReplicas(List.of(TP)).get(TP), broker);
    }

    private static ReplicaDescription replica(PartitionReplicas replicas, int broker) {
        return replicas.replicas().stream().filter(r -> r.brokerId() == broker).findFirst()
                .orElseThrow(() -> new AssertionError("no replica " + broker + " in " + replicas));
    }
}
