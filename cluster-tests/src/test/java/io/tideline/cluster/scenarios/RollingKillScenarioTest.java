package io.tideline.cluster.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.TidelineAdmin;
import io.tideline.cluster.harness.ClusterHarness;
import io.tideline.cluster.history.History;
import io.tideline.cluster.history.HistoryChecker;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.server.TidelineNode;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.store.log.Log;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 7 of docs/testing.md, "Scenarios",
 * over three real nodes in one JVM: RF 3, acks=all, min.insync.replicas=2, a producer per
 * partition running throughout, and each node in turn killed (a crash: no controlled shutdown, logs released
 * unflushed, no checkpoints, no clean-shutdown marker) and restarted over the same directories. Every kill takes
 * a leader (the leaders are spread, one partition led by each node) and, once, the controller.
 *
 * <p>At each restart: every log of the node was recovered (the clean-shutdown marker was missing, so its
 * segments from the recovery point on were validated: {@link Log#recoveredSegmentsOnLoad()}), recovery kept
 * every record below the high watermark the node had reached (the process died, the page cache did not), and
 * the node is back in every ISR before the next one is killed. Meanwhile produces go on with two replicas in
 * sync. At the end the history checker passes for every partition, its watermark samples spanning the restarts.
 */
@ExtendWith(DumpClusterStateOnFailure.class)
class RollingKillScenarioTest {
    private static final String TOPIC = "rolling";
    private static final String OTHER_TOPIC = "rolling-other";
    private static final List<Integer> NODES = List.of(1, 2, 3);

    @TempDir
    Path dir;
    ClusterHarness cluster;
    private TidelineAdmin admin;
    private final Map<TopicPartition, History> histories = new LinkedHashMap<>();
    private final Map<TopicPartition, ProduceLoop> producers = new LinkedHashMap<>();

    @AfterEach
    void close() throws InterruptedException {
        for (ProduceLoop p : producers.values()) {
            p.close();
        }
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void eachNodeInTurnIsKilledAndRestartedUnderLoad() throws Exception {
        cluster = ClusterHarness.start(dir, 3, Map.of("replica.lag.time.max.ms", 2000));
        admin = new TidelineAdmin(Map.of("bootstrap.servers", cluster.bootstrapServers()));
        Map<String, String> configs = Map.of("min.insync.replicas", "2", "segment.bytes", "4096");
        // One partition led by each node, and a second topic, so that every kill takes a leader and a follower.
        create(TOPIC, Map.of(0, List.of(1, 2, 3), 1, List.of(2, 3, 1), 2, List.of(3, 1, 2)), configs);
        create(OTHER_TOPIC, Map.of(0, List.of(2, 1, 3)), configs);
        awaitAllInSync("at the start");
        for (TopicPartition tp : histories.keySet()) {
            producers.put(tp, new ProduceLoop(cluster.bootstrapServers(), tp, histories.get(tp), "v"));
        }
        awaitEveryProducerAcknowledgedMore(20, "before the first kill");

        for (int victim : NODES) {
            killAndRestart(victim);
        }

        awaitEveryProducerAcknowledgedMore(20, "after the last restart");
        for (ProduceLoop p : producers.values()) {
            p.close();
        }
        for (TopicPartition tp : histories.keySet()) {
            var result = probe(tp).finalReadAndCheck(NODES, HistoryChecker.lenient());
            assertTrue(result.acknowledged() >= 80, tp + ": " + result.report());
        }
        for (int b : NODES) {
            assertEquals(0, probe(histories.keySet().iterator().next()).underReplicated(b), "node " + b);
        }
    }

    private void killAndRestart(int victim) throws Exception {
        sampleAll();
        Map<TopicPartition, Long> highWatermarkAtKill = new HashMap<>();
        for (TopicPartition tp : histories.keySet()) {
            highWatermarkAtKill.put(tp, probe(tp).log(victim).highWatermark());
        }
        cluster.kill(victim);

        // The others carry on: every partition (those the victim led too) gets a new ISR without it, and
        // acks=all produces are acknowledged by the two replicas left.
        Awaitility.await("node " + victim + " out of every ISR").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                    for (TopicPartition tp : histories.keySet()) {
                        PartitionRecord p = imageOfARunningNode(tp);
                        assertTrue(!p.getIsrList().contains(victim) && p.getLeader() != victim, tp + ": " + p);
                    }
                });
        awaitEveryProducerAcknowledgedMore(10, "while node " + victim + " is down");
        sampleAll();

        TidelineNode back = cluster.restart(victim);
        histories.values().forEach(h -> h.brokerRestartedAfterCrash(victim));
        for (TopicPartition tp : histories.keySet()) {
            // The store's log as loaded at start, whatever the replica manager has made of it since.
            Log log = back.logManager().getLog(tp).orElseThrow();
            assertTrue(log.recoveredSegmentsOnLoad() > 0,
                    "node " + victim + " recovered " + tp + " after the crash: " + log.recoveredSegmentsOnLoad());
            assertTrue(log.logEndOffset() >= highWatermarkAtKill.get(tp), "node " + victim + " kept " + tp
                    + " up to its high watermark at the kill " + highWatermarkAtKill.get(tp) + ": log end "
                    + log.logEndOffset());
        }
        sampleAll();
        assertTrue(!back.isFenced(), "node " + victim + " unfenced after its restart");
        awaitAllInSync("after node " + victim + " restarted");
        sampleAll();
    }

    private void create(String topic, Map<Integer, List<Integer>> assignment, Map<String, String> configs) {
        var created = admin.createTopic(topic, assignment, configs);
        assertEquals(Errors.NONE, created.error(), created.toString());
        for (int p : assignment.keySet()) {
            histories.put(new TopicPartition(topic, p), new History());
        }
    }

    /** Every partition's ISR is all three nodes, as every node's image has it, and each replica is caught up. */
    private void awaitAllInSync(String when) {
        Awaitility.await("every replica in sync " + when).atMost(Duration.ofSeconds(40))
                .pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                    for (TopicPartition tp : histories.keySet()) {
                        for (int viewer : NODES) {
                            PartitionRecord p = probe(tp).image(viewer);
                            assertEquals(Set.copyOf(NODES), Set.copyOf(p.getIsrList()), tp + " seen by " + viewer);
                        }
                    }
                });
    }

    private void awaitEveryProducerAcknowledgedMore(long more, String when) {
        Map<TopicPartition, Long> targets = new HashMap<>();
        producers.forEach((tp, p) -> targets.put(tp, p.acknowledged() + more));
        Awaitility.await("every partition acknowledges acks=all produces " + when).atMost(Duration.ofSeconds(40))
                .pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                    List<String> behind = new ArrayList<>();
                    producers.forEach((tp, p) -> {
                        if (p.acknowledged() < targets.get(tp)) {
                            behind.add(tp + " at " + p.acknowledged() + " of " + targets.get(tp));
                        }
                    });
                    assertTrue(behind.isEmpty(), behind.toString());
                });
    }

    private PartitionRecord imageOfARunningNode(TopicPartition tp) {
        int viewer = NODES.stream().filter(cluster::isRunning).findFirst().orElseThrow();
        return probe(tp).image(viewer);
    }

    private void sampleAll() {
        for (TopicPartition tp : histories.keySet()) {
            probe(tp).sample(NODES);
        }
    }

    private PartitionProbe probe(TopicPartition tp) {
        return new PartitionProbe(cluster, tp, histories.get(tp));
    }
}
