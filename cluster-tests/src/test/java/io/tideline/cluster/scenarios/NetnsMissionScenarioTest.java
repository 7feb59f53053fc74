package io.tideline.cluster.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tideline.client.PartitionReplicas;
import io.tideline.client.ReplicaDescription;
import io.tideline.client.ReplicaState;
import io.tideline.client.TopicDescription;
import io.tideline.cluster.history.History;
import io.tideline.cluster.history.HistoryChecker;
import io.tideline.cluster.netns.DriverClient;
import io.tideline.cluster.netns.NamespaceCluster;
import io.tideline.cluster.netns.NetworkNamespace;
import io.tideline.common.TopicPartition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 1 of docs/testing.md, "Scenarios",
 * over three real node processes in a private network namespace, the replication link
 * between leader 1 and follower 3 cut with iptables DROP rules: acks=all produces go on until retention on 1
 * and 2 has deleted past 3's log end; after the heal 3's fetch gets OFFSET_OUT_OF_RANGE and, under
 * replica.fetch.out.of.range.policy=halt, it stays FAILED and out of the ISR for three replica.lag.time.max.ms,
 * which /metrics, the Java client's describeTopics/describeReplicas and the CLI's {@code topics --describe} and
 * {@code replicas --describe} all show; {@code replicas --rebuild} heals it in place (three nodes: no fourth to
 * reassign to), and the history checker passes over the final read and each replica's files.
 */
class NetnsMissionScenarioTest {
    private static final String TOPIC = "mission";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final long LAG_MS = 2000;
    private static final int LEADER = 1;
    private static final int CUT = 3;

    @TempDir
    Path dir;
    private NamespaceCluster cluster;
    private DriverClient driver;
    private final History history = new History();

    @AfterEach
    void removeEverything() {
        String ns = cluster == null ? null : cluster.namespace().name();
        try {
            if (driver != null) {
                driver.close();
            }
        } finally {
            if (cluster != null) {
                cluster.close();
                assertFalse(NetworkNamespace.exists(ns), "namespace " + ns + " removed");
            }
        }
    }

    @Test
    void followerCutByIptablesPastRetentionFailsAndIsRebuiltInPlace() throws Exception {
        cluster = NamespaceCluster.start(dir, NamespaceProbe.REPO, System.getProperty("java.class.path"), 3, Map.of(
                "replica.lag.time.max.ms", LAG_MS,
                "log.retention.check.interval.ms", 200), Duration.ofSeconds(180));
        try {
            run();
        } catch (Throwable t) {
            System.err.println(NamespaceProbe.dump(cluster));
            throw t;
        }
    }

    private void run() throws Exception {
        driver = cluster.startDriver(history);
        NamespaceProbe probe = new NamespaceProbe(cluster, driver, TP, history);
        cluster.admin(2, "topics", "--create", "--topic", TOPIC, "--replica-assignment", LEADER + ":2:" + CUT,
                "--config", "segment.bytes=2048", "--config", "retention.ms=1500",
                "--config", "min.insync.replicas=2", "--config", "replica.fetch.out.of.range.policy=halt").assertOk();
        Awaitility.await("all three in sync under leader 1").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500)).until(() -> {
                    TopicDescription.PartitionDescription p = probe.partition(LEADER);
                    return p.leader() == LEADER && p.isr().size() == 3;
                });

        driver.startProducing("mission", TP, "v");
        Awaitility.await("first records replicated to node 3").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500)).until(() -> probe.bounds(CUT).logEndOffset() >= 20);

        // The premise of the firewall's design: the connections to node 1's listener (node 2's and 3's fetches,
        // the driver's) all come from 127.0.0.1, none from 127.0.0.13, so a rule on the source address would
        // match nothing. (Java's sockets are dual-stack: ss shows the IPv4 addresses as ::ffff:a.b.c.d.)
        String sockets = cluster.namespace().exec("ss", "-tn", "state", "established");
        assertTrue(socket("127.0.0.1", "127.0.0.11:9092").matcher(sockets).find(), sockets);
        assertFalse(socket("127.0.0.13", "127.0.0.11:9092").matcher(sockets).find(), sockets);

        // The replication link only, both ways: node 3 still reaches the quorum (its heartbeats) and the clients.
        cluster.firewall().cut(cluster.node(CUT), cluster.node(LEADER), cluster.node(LEADER).clientPort());
        cluster.firewall().cut(cluster.node(LEADER), cluster.node(CUT), cluster.node(CUT).clientPort());
        Awaitility.await("node 3 out of the ISR").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500)).until(() -> !probe.partition(LEADER).isr().contains(CUT));
        assertTrue(cluster.firewall().droppedPackets() > 0, "the DROP rules matched node 3's fetches:\n"
                + cluster.firewall().listing());
        probe.sample();
        Awaitility.await("retention on 1 and 2 deleted past node 3's log end").atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(500)).until(() -> {
                    var b = probe.bounds();
                    long behind = b.get(CUT).logEndOffset();
                    return b.get(LEADER).logStartOffset() > behind && b.get(2).logStartOffset() > behind;
                });
        assertTrue(driver.stopProducing("mission") > 0, "acks=all produces kept succeeding with ISR {1,2}");
        probe.sample();
        long cutLogEnd = probe.bounds(CUT).logEndOffset();

        cluster.firewall().healAll();
        Awaitility.await("node 3 FAILED on OFFSET_OUT_OF_RANGE").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                    ReplicaDescription three = replica(driver.describeReplicas(cluster.node(LEADER), TP), CUT);
                    assertEquals(ReplicaState.FAILED, three.state(), three.toString());
                    assertTrue(three.reason().contains("is below the leader's log start offset")
                            && three.reason().contains("replica.fetch.out.of.range.policy=halt"), three.reason());
                    ReplicaDescription.Failure failure = three.failure().orElseThrow();
                    assertEquals(cutLogEnd, failure.fetchOffset(), three.toString());
                    assertTrue(failure.fetchOffset() < failure.leaderLogStartOffset(), three.toString());
                });
        assertTrue(probe.metric(LEADER, "kafka_cluster_partition_offsetoutofrangecount",
                Map.of("topic", TOPIC, "partition", "0")) > 0, "the leader answered OFFSET_OUT_OF_RANGE");
        cliShowsNode3FailedAndUnderReplicated();
        // Halt means it stays so: nothing puts it back in the ISR.
        Awaitility.await("still under-replicated, and every view agrees").during(Duration.ofMillis(3 * LAG_MS))
                .atMost(Duration.ofMillis(3 * LAG_MS + 30_000)).pollInterval(Duration.ofMillis(1000))
                .untilAsserted(() -> clientAndMetricShowNode3Failed(probe));
        cliShowsNode3FailedAndUnderReplicated();
        assertEquals(cutLogEnd, probe.bounds(CUT).logEndOffset(), "a halted replica keeps its data and does not fetch");

        String rebuilt = cluster.admin(2, "replicas", "--rebuild", "--topic", TOPIC, "--partition", "0",
                "--broker", String.valueOf(CUT)).assertOk().stdout();
        assertTrue(rebuilt.startsWith("Rebuild of replica 3 of mission-0 started"), rebuilt);
        Awaitility.await("node 3 rebuilt and back in the ISR").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                    assertTrue(NamespaceProbe.allIn(probe.partition(LEADER).isr(), List.of(1, 2, 3)));
                    assertEquals(0, probe.underReplicated(LEADER));
                    ReplicaDescription three = replica(driver.describeReplicas(cluster.node(LEADER), TP), CUT);
                    assertEquals(ReplicaState.IN_SYNC, three.state(), three.toString());
                });

        // Retention off for the final read; then a tail of records that stays, for the replicas to compare.
        cluster.admin(1, "configs", "--alter", "--entity-type", "topics", "--entity-name", TOPIC,
                "--add-config", "retention.ms=-1").assertOk();
        Awaitility.await("retention.ms=-1 applied on every replica").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> List.of(1, 2, 3).stream().allMatch(b -> driver.retentionMs(TP, b) == -1));
        driver.startProducing("after-heal", TP, "after-heal-");
        Awaitility.await("records after the heal").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500)).until(() -> driver.acknowledged("after-heal") >= 50);
        driver.stopProducing("after-heal");
        var result = probe.finalReadAndCheck(List.of(1, 2, 3), HistoryChecker.lenient());
        assertTrue(result.acknowledged() >= 50 && result.consumed() >= 50, result.report());
    }

    private void clientAndMetricShowNode3Failed(NamespaceProbe probe) {
        assertEquals(1, probe.underReplicated(LEADER));
        TopicDescription.PartitionDescription p = probe.partition(LEADER);
        assertTrue(p.isUnderReplicated(), p.toString());
        assertFalse(p.isr().contains(CUT), p.toString());
        assertTrue(p.failedReplicas().stream().anyMatch(f -> f.brokerId() == CUT), p.toString());
        PartitionReplicas replicas = driver.describeReplicas(cluster.node(LEADER), TP);
        assertEquals(LEADER, replicas.leader(), replicas.toString());
        assertEquals(ReplicaState.FAILED, replica(replicas, CUT).state(), replicas.toString());
    }

    /** The CLI's JSON, run inside the namespace: the same picture as the client's and the metric's. */
    private void cliShowsNode3FailedAndUnderReplicated() throws Exception {
        JsonObject topic = json(cluster.admin(2, "topics", "--describe", "--topic", TOPIC, "--output", "json")
                .assertOk().stdout()).getAsJsonArray("topics").get(0).getAsJsonObject();
        JsonObject p = topic.getAsJsonArray("partitions").get(0).getAsJsonObject();
        assertTrue(p.get("underReplicated").getAsBoolean(), p.toString());
        assertFalse(ids(p.getAsJsonArray("isr")).contains(CUT), p.toString());
        boolean listed = false;
        for (JsonElement f : p.getAsJsonArray("failedReplicas")) {
            listed |= f.getAsJsonObject().get("brokerId").getAsInt() == CUT;
        }
        assertTrue(listed, p.toString());
        String under = cluster.admin(2, "topics", "--describe", "--under-replicated-partitions").assertOk().stdout();
        assertTrue(under.contains("Topic: mission\tPartition: 0\tLeader: 1"), under);

        JsonObject replicas = json(cluster.admin(2, "replicas", "--describe", "--topic", TOPIC, "--partition", "0",
                "--output", "json").assertOk().stdout()).getAsJsonArray("partitions").get(0).getAsJsonObject();
        assertTrue(replicas.get("underReplicated").getAsBoolean(), replicas.toString());
        String state = null;
        for (JsonElement r : replicas.getAsJsonArray("replicas")) {
            if (r.getAsJsonObject().get("brokerId").getAsInt() == CUT) {
                state = r.getAsJsonObject().get("state").getAsString();
            }
        }
        assertEquals("FAILED", state, replicas.toString());
    }

    /** An ss line of a connection from {@code local} (any port) to {@code peer}. */
    private static Pattern socket(String local, String peer) {
        String[] hostPort = peer.split(":");
        return Pattern.compile("(\\[::ffff:)?" + Pattern.quote(local) + "]?:\\d+\\s+(\\[::ffff:)?"
                + Pattern.quote(hostPort[0]) + "]?:" + hostPort[1] + "\\s");
    }

    private static JsonObject json(String out) {
        return JsonParser.parseString(out.strip()).getAsJsonObject();
    }

    private static List<Integer> ids(JsonArray a) {
        List<Integer> ids = new ArrayList<>();
        a.forEach(e -> ids.add(e.getAsInt()));
        return ids;
    }

    private static ReplicaDescription replica(PartitionReplicas replicas, int broker) {
        return replicas.replicas().stream().filter(r -> r.brokerId() == broker).findFirst()
                .orElseThrow(() -> new AssertionError("no replica " + broker + " in " + replicas));
    }
}
