package io.tideline.tools.cli;

import static io.tideline.tools.cli.CliRun.admin;
import static io.tideline.tools.cli.CliRun.consume;
import static io.tideline.tools.cli.CliRun.produce;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.tools.cli.CliRun.Result;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code topics --describe} and its partition filters on three nodes, before and after one stops. */
class CliUnderReplicatedTest {
    @TempDir
    Path dir;

    @Test
    void listsOnlyThePartitionsThatLostAnInSyncReplica() throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 3, Map.of()).startAll()) {
            String bootstrap = cluster.bootstrapServers();
            Result created = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "replicated",
                    "--partitions", "2", "--replication-factor", "3", "--config", "min.insync.replicas=2");
            assertEquals(0, created.exitCode(), created.toString());
            // min.insync.replicas=3 over 3 replicas: one replica lost and acks=all produces fail.
            assertEquals(0, admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "strict",
                    "--partitions", "1", "--replication-factor", "3", "--config", "min.insync.replicas=3").exitCode());
            // One replica each, round robin over the three nodes: stopping one leaves one partition without a leader.
            assertEquals(0, admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "solo",
                    "--partitions", "3", "--replication-factor", "1").exitCode());
            // Kafka's --replica-assignment: the first broker of each list leads.
            assertEquals(0, admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "placed",
                    "--replica-assignment", "3:1,1:2").exitCode());
            Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertEquals(List.of(
                    "\tTopic: placed\tPartition: 0\tLeader: 3\tReplicas: 3,1\tIsr: 3,1",
                    "\tTopic: placed\tPartition: 1\tLeader: 1\tReplicas: 1,2\tIsr: 1,2"),
                    admin("--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "placed")
                            .outLines().subList(1, 3)));
            // --alter --partitions: the new partitions get the topic's replication factor and serve at once.
            assertEquals(0, admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "grown",
                    "--partitions", "1", "--replication-factor", "3").exitCode());
            Result grown = admin("--bootstrap-server", bootstrap, "topics", "--alter", "--topic", "grown",
                    "--partitions", "3");
            assertEquals(0, grown.exitCode(), grown.toString());
            assertEquals("", grown.out() + grown.err());
            List<String> grownLines = admin("--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "grown")
                    .outLines();
            assertTrue(grownLines.get(0).contains("PartitionCount: 3\tReplicationFactor: 3"), grownLines.toString());
            assertTrue(grownLines.get(3).matches("\tTopic: grown\tPartition: 2\tLeader: [123]\tReplicas: "
                    + "[123],[123],[123]\tIsr: .*"), grownLines.toString());
            assertEquals(0, produce("new\n", "--bootstrap-server", bootstrap, "--topic", "grown", "--partition", "2",
                    "--acks", "all").exitCode());
            assertEquals(List.of("new"), consume("--bootstrap-server", bootstrap, "--topic", "grown", "--partition", "2",
                    "--from-beginning", "--max-messages", "1").outLines());
            Result shrink = admin("--bootstrap-server", bootstrap, "topics", "--alter", "--topic", "grown",
                    "--partitions", "2");
            assertEquals(1, shrink.exitCode(), shrink.toString());
            assertEquals("admin: cannot add partitions to topic 'grown': INVALID_PARTITIONS: topic 'grown' has 3 "
                    + "partitions, which is not fewer than the requested 2", shrink.singleErrorLine());

            Result describe = admin("--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "replicated");
            assertEquals(3, describe.outLines().size(), describe.toString());
            assertTrue(describe.outLines().get(0).contains("PartitionCount: 2\tReplicationFactor: 3\t"
                    + "Configs: min.insync.replicas=2"), describe.out());
            for (String line : describe.outLines().subList(1, 3)) {
                assertTrue(line.matches("\tTopic: replicated\tPartition: [01]\tLeader: [123]\tReplicas: [123],[123],[123]"
                        + "\tIsr: [123],[123],[123]"), line);
            }
            Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertEquals("",
                    admin("--bootstrap-server", bootstrap, "topics", "--describe", "--under-replicated-partitions").out()));

            Result produced = produce("a\nb\nc\n", "--bootstrap-server", bootstrap, "--topic", "replicated", "--partition",
                    "0", "--acks", "all");
            assertEquals(0, produced.exitCode(), produced.toString());

            cluster.stop(3);

            // The stopped node leaves every ISR (controlled shutdown, then its session ends).
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                Result urp = admin("--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "replicated",
                        "--under-replicated-partitions");
                assertEquals(0, urp.exitCode(), urp.toString());
                List<String> lines = urp.outLines();
                assertEquals(2, lines.size(), urp.toString());
                for (String line : lines) {
                    assertTrue(line.matches("\tTopic: replicated\tPartition: [01]\tLeader: [12]\tReplicas: [123],[123],[123]"
                            + "\tIsr: [12],[12](\t.*)?"), line);
                }
            });

            Result json = admin("--bootstrap-server", bootstrap, "--output", "json", "topics", "--describe",
                    "--topic", "replicated", "--under-replicated-partitions");
            assertEquals(0, json.exitCode(), json.toString());
            JsonArray partitions = JsonParser.parseString(json.out()).getAsJsonObject().getAsJsonArray("topics")
                    .get(0).getAsJsonObject().getAsJsonArray("partitions");
            assertEquals(2, partitions.size(), json.out());
            for (var p : partitions) {
                JsonObject o = p.getAsJsonObject();
                assertTrue(o.get("underReplicated").getAsBoolean(), o.toString());
                assertEquals(3, o.getAsJsonArray("replicas").size(), o.toString());
                assertFalse(o.getAsJsonArray("isr").asList().stream().anyMatch(id -> id.getAsInt() == 3), o.toString());
            }

            // Kafka's other filters: under min.insync.replicas (or leaderless), exactly at it, without a leader.
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                Result unavailable = admin("--bootstrap-server", bootstrap, "topics", "--describe",
                        "--unavailable-partitions");
                assertEquals(0, unavailable.exitCode(), unavailable.toString());
                assertEquals(1, unavailable.outLines().size(), unavailable.toString());
                assertTrue(unavailable.outLines().get(0).startsWith("\tTopic: solo\tPartition: "), unavailable.out());
            });
            List<String> underMinIsr = admin("--bootstrap-server", bootstrap, "topics", "--describe",
                    "--under-min-isr-partitions").outLines();
            assertEquals(2, underMinIsr.size(), underMinIsr.toString());
            assertTrue(underMinIsr.stream().anyMatch(l -> l.startsWith("\tTopic: strict\tPartition: 0\t")), underMinIsr.toString());
            assertTrue(underMinIsr.stream().anyMatch(l -> l.startsWith("\tTopic: solo\t")), underMinIsr.toString());
            List<String> atMinIsr = admin("--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "replicated",
                    "--at-min-isr-partitions").outLines();
            assertEquals(2, atMinIsr.size(), "ISR 2 of min.insync.replicas=2: " + atMinIsr);
            Result minIsrJson = admin("--bootstrap-server", bootstrap, "--output", "json", "topics", "--describe",
                    "--topic", "strict", "--under-min-isr-partitions");
            JsonObject strict = JsonParser.parseString(minIsrJson.out()).getAsJsonObject().getAsJsonArray("topics")
                    .get(0).getAsJsonObject();
            assertEquals(3, strict.get("minInsyncReplicas").getAsInt(), minIsrJson.out());
            assertTrue(strict.getAsJsonArray("partitions").get(0).getAsJsonObject().get("underMinIsr").getAsBoolean());
            Result two = admin("--bootstrap-server", bootstrap, "topics", "--describe", "--under-min-isr-partitions",
                    "--unavailable-partitions");
            assertEquals(2, two.exitCode(), two.toString());
            assertEquals("admin: only one of --under-min-isr-partitions, --unavailable-partitions at a time",
                    two.singleErrorLine());

            // An unclean election has no live replica to give solo's partition on the stopped node: one error
            // line among Kafka's lines for the others, exit 1.
            Result unclean = admin("--bootstrap-server", bootstrap, "leader-election", "--election-type", "unclean",
                    "--all-topic-partitions");
            assertEquals(1, unclean.exitCode(), unclean.toString());
            assertTrue(unclean.outLines().get(0).startsWith("Valid replica already elected for partitions grown-0, "),
                    unclean.out());
            assertEquals(1, unclean.outLines().stream().filter(l -> l.startsWith(
                    "Error completing leader election (UNCLEAN) for partition: solo-")
                    && l.contains(": ELIGIBLE_LEADERS_NOT_AVAILABLE: ")).count(), unclean.out());
            assertEquals("admin: 1 replica(s) could not be elected", unclean.singleErrorLine());

            // Two of three replicas are enough for min.insync.replicas=2: the tools keep working.
            Result more = produce("d\n", "--bootstrap-server", bootstrap, "--topic", "replicated", "--partition", "0");
            assertEquals(0, more.exitCode(), more.toString());
            Result read = consume("--bootstrap-server", bootstrap, "--topic", "replicated", "--partition", "0",
                    "--from-beginning", "--max-messages", "4");
            assertEquals(List.of("a", "b", "c", "d"), read.outLines(), read.toString());

            // Node 3 comes back; once it is in sync again a preferred election gives placed-0 back to it.
            cluster.restart(3);
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                    assertEquals("\tTopic: placed\tPartition: 0\tLeader: 1\tReplicas: 3,1\tIsr: 1,3",
                            admin("--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "placed")
                                    .outLines().get(1)));
            Result preferred = admin("--bootstrap-server", bootstrap, "leader-election", "--election-type", "PREFERRED",
                    "--topic", "placed", "--partition", "0");
            assertEquals(0, preferred.exitCode(), preferred.toString());
            assertEquals(List.of("Successfully completed leader election (PREFERRED) for partitions placed-0"),
                    preferred.outLines());
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertTrue(
                    admin("--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "placed").outLines().get(1)
                            .startsWith("\tTopic: placed\tPartition: 0\tLeader: 3\t")));
            Result again = admin("--bootstrap-server", bootstrap, "--output", "json", "leader-election",
                    "--election-type", "preferred", "--topic", "placed", "--partition", "0");
            assertEquals(0, again.exitCode(), again.toString());
            JsonObject election = JsonParser.parseString(again.out()).getAsJsonObject();
            assertEquals("PREFERRED", election.get("electionType").getAsString());
            assertEquals("ELECTION_NOT_NEEDED", election.getAsJsonArray("partitions").get(0).getAsJsonObject()
                    .get("error").getAsString());
            Result bad = admin("--bootstrap-server", bootstrap, "leader-election", "--election-type", "sometimes",
                    "--all-topic-partitions");
            assertEquals(2, bad.exitCode(), bad.toString());
        }
    }
}
