package io.tideline.tools.cli;

import static io.tideline.tools.cli.CliRun.admin;
import static io.tideline.tools.cli.CliRun.produce;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tideline.client.PartitionReplicas;
import io.tideline.client.ReplicaDescription;
import io.tideline.client.ReplicaState;
import io.tideline.client.TidelineAdmin;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.tools.cli.CliRun.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replicas --describe} and {@code replicas --rebuild} on three nodes in one JVM: a follower left
 * behind the leader's log start offset under replica.fetch.out.of.range.policy=halt is FAILED until rebuilt;
 * a throttled follower is LAGGING with its lag and catch-up rate; a stopped broker's replica is OFFLINE.
 * Nothing waits on time passing except the throttled follower: the log start offset is moved with
 * DeleteRecords, not retention.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CliReplicasTest {
    private static final TopicPartition HALTED = new TopicPartition("halted", 0);

    private Path dir;
    private NodeTestCluster cluster;
    private String bootstrap;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        this.dir = dir;
        // Node 2 fetches throttled partitions at 4 KB/s, about a batch a fetch: the LAGGING case throttles one of
        // its replicas, and small fetches keep its progress steady instead of one large fetch and a long wait.
        cluster = new NodeTestCluster(dir, 3, Map.of()).withNodeOverride(2, "follower.replication.throttled.rate", 4_000)
                .withNodeOverride(2, "replica.fetch.max.bytes", 4_000)
                .startAll();
        bootstrap = cluster.bootstrapServers();
    }

    @AfterAll
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private TidelineAdmin client() {
        return new TidelineAdmin(Map.of("bootstrap.servers", bootstrap, "default.api.timeout.ms", 15_000));
    }

    private PartitionReplicas describe(TidelineAdmin client, TopicPartition tp) {
        return client.describeReplicas(List.of(tp)).get(tp);
    }

    private static ReplicaDescription replica(PartitionReplicas p, int broker) {
        return p.replicas().stream().filter(r -> r.brokerId() == broker).findFirst().orElseThrow();
    }

    @Test
    void aFollowerLeftBehindTheLogStartIsFailedUntilRebuilt() throws Exception {
        Result created = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "halted",
                "--replica-assignment", "1:2:3");
        assertEquals(0, created.exitCode(), created.toString());
        assertEquals(0, produce(lines(0, 20), "--bootstrap-server", bootstrap, "--topic", "halted", "--partition", "0",
                "--acks", "all").exitCode());
        try (TidelineAdmin client = client()) {
            Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                PartitionReplicas p = describe(client, HALTED);
                assertEquals(Errors.NONE, p.error(), p.toString());
                assertEquals(List.of(ReplicaState.IN_SYNC, ReplicaState.IN_SYNC, ReplicaState.IN_SYNC),
                        p.replicas().stream().map(ReplicaDescription::state).toList(), p.toString());
                assertEquals(20, replica(p, 3).logEndOffset(), p.toString());
            });

            cluster.stop(3);
            Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                ReplicaDescription r3 = replica(describe(client, HALTED), 3);
                assertEquals(ReplicaState.OFFLINE, r3.state(), r3.toString());
                assertTrue(r3.reason().contains("broker 3 is fenced"), r3.reason());
            });
            assertEquals(0, produce(lines(20, 120), "--bootstrap-server", bootstrap, "--topic", "halted",
                    "--partition", "0", "--acks", "all").exitCode());
            Path offsets = dir.resolve("offsets.json");
            Files.writeString(offsets, "{\"partitions\":[{\"topic\":\"halted\",\"partition\":0,\"offset\":100}],\"version\":1}");
            // Broker 3 is down: its rebuild is refused at once with the broker named.
            assertRefused("BROKER_NOT_AVAILABLE: broker 3 did not answer", "halted", "0", "3");
            Result deleted = admin("--bootstrap-server", bootstrap, "delete-records", "--offset-json-file",
                    offsets.toString());
            assertEquals(0, deleted.exitCode(), deleted.toString());

            cluster.restart(3);
            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                PartitionReplicas p = describe(client, HALTED);
                ReplicaDescription r3 = replica(p, 3);
                assertEquals(ReplicaState.FAILED, r3.state(), p.toString());
                assertTrue(r3.reason().startsWith("fetch offset 20 is below the leader's log start offset 100"),
                        r3.reason());
                assertEquals(new ReplicaDescription.Failure(20, 100, 120), r3.failure().orElseThrow());
                assertTrue(r3.sinceMs() > 0, r3.toString());
                assertEquals(100, p.logStartOffset());
                assertTrue(p.isrHistory().stream().anyMatch(c -> c.reason().equals("OUT_OF_RANGE")), p.toString());
            });
        }

        // The text form: the header with the leader's bounds, one line per replica (ISO-8601 times), the history.
        Result text = admin("--bootstrap-server", bootstrap, "replicas", "--describe", "--topic", "halted",
                "--partition", "0");
        assertEquals(0, text.exitCode(), text.toString());
        List<String> lines = text.outLines();
        assertEquals("Topic: halted\tPartition: 0\tLeader: 1\tLeaderEpoch: 0\tLogStartOffset: 100\tHighWatermark: 120"
                + "\tLogEndOffset: 120", lines.get(0));
        String failedLine = lines.stream().filter(l -> l.startsWith("\tReplica: 3\t")).findFirst().orElseThrow();
        assertTrue(failedLine.matches("\tReplica: 3\tState: FAILED\tSince: \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z"
                + "\tLogEndOffset: 20\tReason: fetch offset 20 is below the leader's log start offset 100 .*"), failedLine);
        assertTrue(lines.contains("\tIsrHistory:"), text.out());
        assertTrue(lines.stream().anyMatch(l -> l.matches("\t\t\\S+Z\tLeader: 1\tLeaderEpoch: 0\tIsr: 1,2\t"
                + "Reason: OUT_OF_RANGE")), text.out());
        // JSON keeps epoch milliseconds and the failure's numbers.
        Result json = admin("--bootstrap-server", bootstrap, "--output", "json", "replicas", "--describe", "--topic",
                "halted");
        assertEquals(0, json.exitCode(), json.toString());
        JsonObject partition = JsonParser.parseString(json.out()).getAsJsonObject().getAsJsonArray("partitions").get(0)
                .getAsJsonObject();
        assertTrue(partition.get("underReplicated").getAsBoolean(), json.out());
        JsonObject failed = replicaJson(partition, 3);
        assertEquals("FAILED", failed.get("state").getAsString());
        assertTrue(failed.get("sinceMs").getAsLong() > 1_700_000_000_000L, failed.toString());
        assertEquals(20, failed.getAsJsonObject("failure").get("fetchOffset").getAsLong());
        assertEquals(100, failed.getAsJsonObject("failure").get("leaderLogStartOffset").getAsLong());
        assertTrue(partition.getAsJsonArray("isrHistory").asList().stream().anyMatch(c -> c.getAsJsonObject()
                .get("reason").getAsString().equals("OUT_OF_RANGE")), json.out());
        Result urp = admin("--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "halted",
                "--under-replicated-partitions");
        assertTrue(urp.out().startsWith("\tTopic: halted\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2\t"), urp.out());

        // Refusals: one line, exit 1, the error's name.
        assertRefused("INVALID_REQUEST: replica 2 of halted-0 is IN_SYNC, not FAILED", "halted", "0", "2");
        assertRefused("INVALID_REQUEST: broker 1 leads halted-0", "halted", "0", "1");
        assertRefused("REPLICA_NOT_AVAILABLE: broker 7 is not a replica of halted-0", "halted", "0", "7");
        assertRefused("UNKNOWN_TOPIC_OR_PARTITION: topic 'halted' has no partition 4", "halted", "4", "3");
        assertRefused("UNKNOWN_TOPIC_OR_PARTITION: unknown topic 'nope'", "nope", "0", "3");
        Result unknown = admin("--bootstrap-server", bootstrap, "replicas", "--describe", "--topic", "halted",
                "--partition", "4");
        assertEquals(1, unknown.exitCode(), unknown.toString());
        assertEquals("admin: halted-4: UNKNOWN_TOPIC_OR_PARTITION: topic 'halted' has no partition 4",
                unknown.singleErrorLine());
        Result noTopic = admin("--bootstrap-server", bootstrap, "replicas", "--describe", "--topic", "nope");
        assertEquals(1, noTopic.exitCode(), noTopic.toString());
        assertTrue(noTopic.singleErrorLine().startsWith("admin: nope: UNKNOWN_TOPIC_OR_PARTITION"), noTopic.toString());
        Result usage = admin("--bootstrap-server", bootstrap, "replicas", "--rebuild", "--topic", "halted");
        assertEquals(2, usage.exitCode(), usage.toString());

        // The rebuild: REBUILDING or already IN_SYNC, the failure cleared, and back in the ISR.
        Result rebuilt = admin("--bootstrap-server", bootstrap, "replicas", "--rebuild", "--topic", "halted",
                "--partition", "0", "--broker", "3");
        assertEquals(0, rebuilt.exitCode(), rebuilt.toString());
        assertEquals(List.of("Rebuild of replica 3 of halted-0 started: truncated fully, copying from offset 100 to 120; "
                + "`replicas --describe --topic halted --partition 0` shows its progress"), rebuilt.outLines());
        try (TidelineAdmin client = client()) {
            ReplicaState right = replica(describe(client, HALTED), 3).state();
            assertTrue(right == ReplicaState.REBUILDING || right == ReplicaState.IN_SYNC
                    || right == ReplicaState.LAGGING, "just after the rebuild began: " + right);
            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                PartitionReplicas p = describe(client, HALTED);
                assertEquals(ReplicaState.IN_SYNC, replica(p, 3).state(), p.toString());
                assertEquals(120, replica(p, 3).logEndOffset(), p.toString());
                assertTrue(p.isrHistory().stream().anyMatch(c -> c.reason().equals("CAUGHT_UP")
                        && c.isr().contains(3)), p.toString());
            });
        }
        Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertEquals("", admin(
                "--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "halted",
                "--under-replicated-partitions").out()));
        assertRefused("INVALID_REQUEST: replica 3 of halted-0 is IN_SYNC, not FAILED", "halted", "0", "3");
    }

    @Test
    void aThrottledFollowerOutOfTheIsrIsLaggingWithItsLagAndCatchUpRate() throws Exception {
        TopicPartition slow = new TopicPartition("slow", 0);
        assertEquals(0, admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "slow",
                "--replica-assignment", "1:2", "--config", "follower.replication.throttled.replicas=0:2").exitCode());
        String value = "x".repeat(1000);
        String records = IntStream.range(0, 200).mapToObj(i -> value + "\n").collect(Collectors.joining());
        assertEquals(0, produce(records, "--bootstrap-server", bootstrap, "--topic", "slow", "--partition", "0",
                "--acks", "1", "--producer-property", "batch.size=2000").exitCode());
        try (TidelineAdmin client = client()) {
            // 200 KB at 4 KB/s: out of the ISR after replica.lag.time.max.ms (5 s), still catching up.
            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                PartitionReplicas p = describe(client, slow);
                ReplicaDescription r2 = replica(p, 2);
                assertEquals(ReplicaState.LAGGING, r2.state(), p.toString());
                assertTrue(r2.lagOffsets() > 0 && r2.lagOffsets() == p.logEndOffset() - r2.logEndOffset(), p.toString());
                assertTrue(r2.lagBytes() > r2.lagOffsets() * 1000, "each record is over 1000 bytes: " + r2);
                assertTrue(r2.catchUpBytesPerSecond() > 0 && r2.catchUpBytesPerSecond() < 40_000, r2.toString());
                assertTrue(r2.catchUpOffsetsPerSecond() > 0, r2.toString());
                assertTrue(r2.estimatedMillisLeft() > 0, r2.toString());
                assertTrue(r2.sinceMs() > 0, "out of the ISR since the LAGGING change: " + r2);
                assertTrue(p.isrHistory().stream().anyMatch(c -> c.reason().equals("LAGGING")), p.toString());
            });
        }
        Result text = admin("--bootstrap-server", bootstrap, "replicas", "--describe", "--topic", "slow");
        String line = text.outLines().stream().filter(l -> l.startsWith("\tReplica: 2\t")).findFirst().orElseThrow();
        assertTrue(line.matches("\tReplica: 2\tState: LAGGING\tSince: \\S+Z\tLogEndOffset: \\d+\tLag: \\d+ offsets, "
                + "\\d+ bytes\tCatchUp: \\d+ B/s, [0-9.]+ offsets/s\tReason: out of the ISR, behind by .*"), line);
        JsonObject lagging = replicaJson(JsonParser.parseString(admin("--bootstrap-server", bootstrap, "--output", "json",
                "replicas", "--describe", "--topic", "slow", "--partition", "0").out()).getAsJsonObject()
                .getAsJsonArray("partitions").get(0).getAsJsonObject(), 2);
        assertEquals("LAGGING", lagging.get("state").getAsString());
        assertTrue(lagging.get("lagBytes").getAsLong() > 0, lagging.toString());
        assertTrue(lagging.get("lagOffsets").getAsLong() > 0, lagging.toString());

        // The throttle lifted, it catches up and is IN_SYNC again.
        assertEquals(0, admin("--bootstrap-server", bootstrap, "configs", "--alter", "--entity-type", "topics",
                "--entity-name", "slow", "--delete-config", "follower.replication.throttled.replicas").exitCode());
        try (TidelineAdmin client = client()) {
            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                PartitionReplicas p = describe(client, slow);
                assertEquals(ReplicaState.IN_SYNC, replica(p, 2).state(), p.toString());
                assertEquals(0, replica(p, 2).lagOffsets(), p.toString());
            });
        }
    }

    private void assertRefused(String expected, String topic, String partition, String broker) {
        Result r = admin("--bootstrap-server", bootstrap, "replicas", "--rebuild", "--topic", topic, "--partition",
                partition, "--broker", broker);
        assertEquals(1, r.exitCode(), r.toString());
        String line = r.singleErrorLine();
        assertTrue(line.startsWith("admin: cannot rebuild replica " + broker + " of " + topic + "-" + partition + ": "
                + expected), line);
    }

    private static JsonObject replicaJson(JsonObject partition, int broker) {
        return partition.getAsJsonArray("replicas").asList().stream().map(e -> e.getAsJsonObject())
                .filter(o -> o.get("brokerId").getAsInt() == broker).findFirst().orElseThrow();
    }

    private static String lines(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> "record-" + i + "\n").collect(Collectors.joining());
    }
}
