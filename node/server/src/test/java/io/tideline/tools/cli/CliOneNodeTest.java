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
import io.tideline.testsupport.ports.Ports;
import io.tideline.tools.cli.CliRun.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * admin, produce and consume against one node in this JVM, run as {@code main} would run them (exit
 * code, stdout, stderr). Every test uses its own topic, so they share the node.
 */
class CliOneNodeTest {
    @TempDir
    static Path dir;
    private static NodeTestCluster cluster;
    private static String bootstrap;

    @BeforeAll
    static void startNode() throws Exception {
        // num.partitions 2: a topic created without --partitions shows the broker's value, not a built-in 1.
        cluster = new NodeTestCluster(dir.resolve("cluster"), 1, Map.of("num.partitions", 2)).startAll();
        bootstrap = cluster.bootstrapServers();
    }

    @AfterAll
    static void stopNode() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void createsListsAndDescribesTopicsAsKafkaToolsPrintThem() {
        Result created = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "orders",
                "--partitions", "2", "--replication-factor", "1", "--config", "retention.ms=86400000",
                "--config", "segment.bytes=1048576");
        assertEquals(0, created.exitCode(), created.toString());
        assertEquals(List.of("Created topic orders."), created.outLines());
        assertEquals("", created.err());

        Result listed = admin("--bootstrap-server", bootstrap, "topics", "--list");
        assertEquals(0, listed.exitCode(), listed.toString());
        assertTrue(listed.outLines().contains("orders"), listed.toString());

        // Options of admin may also follow the subcommand.
        Result described = admin("topics", "--describe", "--topic", "orders", "--bootstrap-server", bootstrap);
        assertEquals(0, described.exitCode(), described.toString());
        List<String> lines = described.outLines();
        assertEquals(3, lines.size(), described.toString());
        assertTrue(lines.get(0).matches("Topic: orders\tTopicId: \\S+\tPartitionCount: 2\tReplicationFactor: 1\t"
                + "Configs: retention.ms=86400000,segment.bytes=1048576"), lines.get(0));
        assertEquals("\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1", lines.get(1));
        assertEquals("\tTopic: orders\tPartition: 1\tLeader: 1\tReplicas: 1\tIsr: 1", lines.get(2));

        Result none = admin("--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "orders",
                "--under-replicated-partitions");
        assertEquals(0, none.exitCode(), none.toString());
        assertEquals("", none.out(), "one replica, all in sync: nothing is under-replicated");
    }

    @Test
    void jsonOutputOfEveryAdminCommandParsesBack() throws Exception {
        Result created = admin("--bootstrap-server", bootstrap, "--output", "json", "topics", "--create",
                "--topic", "json-topic", "--partitions", "1", "--replication-factor", "1", "--config", "retention.ms=60000");
        assertEquals(0, created.exitCode(), created.toString());
        JsonObject c = JsonParser.parseString(created.out()).getAsJsonObject();
        assertEquals("json-topic", c.get("name").getAsString());
        assertEquals("NONE", c.get("error").getAsString());
        assertEquals("", c.get("message").getAsString());

        Result listed = admin("--bootstrap-server", bootstrap, "topics", "--list", "--output", "json");
        JsonArray names = JsonParser.parseString(listed.out()).getAsJsonObject().getAsJsonArray("topics");
        assertTrue(names.asList().stream().anyMatch(n -> n.getAsString().equals("json-topic")), listed.out());

        Result described = admin("--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "json-topic",
                "--output", "json");
        assertEquals(0, described.exitCode(), described.toString());
        assertEquals(1, described.outLines().size(), "one document on one line: " + described.out());
        JsonObject topic = JsonParser.parseString(described.out()).getAsJsonObject().getAsJsonArray("topics")
                .get(0).getAsJsonObject();
        assertEquals("json-topic", topic.get("name").getAsString());
        assertEquals("NONE", topic.get("error").getAsString());
        assertEquals(1, topic.get("partitionCount").getAsInt());
        assertEquals(1, topic.get("replicationFactor").getAsInt());
        assertEquals("60000", topic.getAsJsonObject("configs").get("retention.ms").getAsString());
        JsonObject p0 = topic.getAsJsonArray("partitions").get(0).getAsJsonObject();
        assertEquals(0, p0.get("partition").getAsInt());
        assertEquals(1, p0.get("leader").getAsInt());
        assertEquals("[1]", p0.get("replicas").toString());
        assertEquals("[1]", p0.get("isr").toString());
        assertEquals("[]", p0.get("offlineReplicas").toString());
        assertEquals("[]", p0.get("failedReplicas").toString());
        assertEquals(false, p0.get("underReplicated").getAsBoolean());
        assertEquals("NONE", p0.get("error").getAsString());

        assertEquals(0, produce(lines(5), "--bootstrap-server", bootstrap, "--topic", "json-topic").exitCode());
        Path file = offsets("{\"partitions\":[{\"topic\":\"json-topic\",\"partition\":0,\"offset\":2},"
                + "{\"topic\":\"json-topic\",\"partition\":3,\"offset\":1}],\"version\":1}");
        Result deleted = admin("--bootstrap-server", bootstrap, "--output", "json", "delete-records",
                "--offset-json-file", file.toString());
        assertEquals(1, deleted.exitCode(), deleted.toString());
        JsonArray parts = JsonParser.parseString(deleted.outLines().get(0)).getAsJsonObject().getAsJsonArray("partitions");
        JsonObject ok = parts.get(0).getAsJsonObject();
        assertEquals(List.of("json-topic", "0", "2", "2", "NONE", ""), List.of(ok.get("topic").getAsString(),
                ok.get("partition").getAsString(), ok.get("offset").getAsString(), ok.get("lowWatermark").getAsString(),
                ok.get("error").getAsString(), ok.get("message").getAsString()));
        JsonObject bad = parts.get(1).getAsJsonObject();
        assertEquals(3, bad.get("partition").getAsInt());
        assertEquals(-1, bad.get("lowWatermark").getAsLong());
        assertEquals("UNKNOWN_TOPIC_OR_PARTITION", bad.get("error").getAsString());
        assertEquals("admin: 1 of 2 partitions failed", deleted.singleErrorLine());

        Result unknown = admin("--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "nope",
                "--output", "json");
        assertEquals(1, unknown.exitCode(), unknown.toString());
        JsonObject u = JsonParser.parseString(unknown.out()).getAsJsonObject().getAsJsonArray("topics").get(0)
                .getAsJsonObject();
        assertEquals("UNKNOWN_TOPIC_OR_PARTITION", u.get("error").getAsString());
        assertEquals(0, u.getAsJsonArray("partitions").size());
    }

    @Test
    void createWithoutCountsTakesTheBrokersDefaultsAndIfNotExistsAcceptsAnExistingTopic() {
        Result created = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "defaults");
        assertEquals(0, created.exitCode(), created.toString());
        assertEquals(List.of("Created topic defaults."), created.outLines());
        assertEquals("", created.err());
        List<String> described = admin("--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "defaults")
                .outLines();
        assertTrue(described.get(0).contains("PartitionCount: 2\tReplicationFactor: 1"), described.toString());
        assertEquals(3, described.size(), described.toString());
        assertTrue(described.get(1).contains("Leader: 1"), described.toString());

        Result countOnly = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "three",
                "--partitions", "3");
        assertEquals(0, countOnly.exitCode(), countOnly.toString());
        assertTrue(admin("--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "three").outLines().get(0)
                .contains("PartitionCount: 3\tReplicationFactor: 1"));

        Result again = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "defaults",
                "--partitions", "5", "--if-not-exists");
        assertEquals(0, again.exitCode(), again.toString());
        assertEquals("", again.out());
        assertEquals("", again.err());
        assertTrue(admin("--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "defaults").outLines().get(0)
                .contains("PartitionCount: 2"), "--if-not-exists changes nothing");

        Result fresh = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "fresh", "--if-not-exists");
        assertEquals(0, fresh.exitCode(), fresh.toString());
        assertEquals(List.of("Created topic fresh."), fresh.outLines());

        Result refused = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "wide",
                "--replication-factor", "2", "--if-not-exists");
        assertEquals(1, refused.exitCode(), "--if-not-exists forgives only TOPIC_ALREADY_EXISTS: " + refused);
        assertTrue(refused.singleErrorLine().contains("INVALID_REPLICATION_FACTOR"), refused.err());
    }

    @Test
    void createRefusedByTheClusterIsOneLineAndExitOne() {
        createTopic("twice", 1);
        Result again = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "twice",
                "--partitions", "1", "--replication-factor", "1");
        assertEquals(1, again.exitCode(), again.toString());
        assertEquals("", again.out());
        assertTrue(again.singleErrorLine().startsWith("admin: cannot create topic 'twice': TOPIC_ALREADY_EXISTS"),
                again.err());

        Result tooMany = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "rf3",
                "--partitions", "1", "--replication-factor", "3");
        assertEquals(1, tooMany.exitCode(), tooMany.toString());
        assertTrue(tooMany.singleErrorLine().contains("INVALID_REPLICATION_FACTOR"), tooMany.err());

        Result badConfig = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "badcfg",
                "--partitions", "1", "--replication-factor", "1", "--config", "retention.ms=soon");
        assertEquals(1, badConfig.exitCode(), badConfig.toString());
        assertTrue(badConfig.singleErrorLine().contains("INVALID_CONFIG"), badConfig.err());

        Result unknownBroker = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "placed",
                "--replica-assignment", "1,7");
        assertEquals(1, unknownBroker.exitCode(), unknownBroker.toString());
        assertEquals("admin: cannot create topic 'placed': INVALID_REPLICA_ASSIGNMENT: partition 1 names broker 7, "
                + "which is not registered", unknownBroker.singleErrorLine());
        Result placed = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "placed",
                "--replica-assignment", "1,1,1");
        assertEquals(0, placed.exitCode(), placed.toString());
        assertTrue(admin("--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "placed").outLines().get(0)
                .contains("PartitionCount: 3\tReplicationFactor: 1"));
        for (List<String> bad : List.of(List.of("--replica-assignment", "1:x"), List.of("--replica-assignment", "1:1"),
                List.of("--replica-assignment", "1,1:2"), List.of("--replica-assignment", "1", "--partitions", "1"))) {
            List<String> args = new java.util.ArrayList<>(List.of("--bootstrap-server", bootstrap, "topics", "--create",
                    "--topic", "badplace"));
            args.addAll(bad);
            Result r = admin(args.toArray(String[]::new));
            assertEquals(2, r.exitCode(), bad + ": " + r);
            assertTrue(r.singleErrorLine().startsWith("admin: --"), bad + ": " + r);
        }

        // Accepted, this topic would make every acks=all producer wait out its delivery timeout.
        Result minIsr = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "minisr",
                "--partitions", "1", "--replication-factor", "1", "--config", "min.insync.replicas=2");
        assertEquals(1, minIsr.exitCode(), minIsr.toString());
        assertEquals("admin: cannot create topic 'minisr': INVALID_CONFIG: min.insync.replicas 2 is larger than the "
                + "replication factor 1: acks=all produces could never be acknowledged", minIsr.singleErrorLine());
    }

    @Test
    void deleteRemovesTheTopicAndItsLogsAndAnUnknownTopicIsOneLine() throws Exception {
        createTopic("doomed", 2);
        Result produced = produce("a\nb\n", "--bootstrap-server", bootstrap, "--topic", "doomed", "--partition", "0");
        assertEquals(0, produced.exitCode(), produced.toString());
        Path logs = dir.resolve("cluster").resolve("node-1").resolve("logs");
        assertTrue(Files.isDirectory(logs.resolve("doomed-0")), "the log exists before");

        Result deleted = admin("--bootstrap-server", bootstrap, "topics", "--delete", "--topic", "doomed");
        assertEquals(0, deleted.exitCode(), deleted.toString());
        assertEquals("", deleted.out() + deleted.err(), "Kafka's tool prints nothing either");
        // The controller has committed the removal; the broker's image follows within a metadata round.
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertFalse(admin("--bootstrap-server", bootstrap, "topics", "--list").outLines().contains("doomed"));
            try (var entries = Files.list(logs)) {
                assertTrue(entries.noneMatch(e -> e.getFileName().toString().startsWith("doomed-")),
                        "the broker deleted the topic's logs");
            }
        });

        Result again = admin("--bootstrap-server", bootstrap, "--output", "json", "topics", "--delete", "--topic", "doomed");
        assertEquals(1, again.exitCode(), again.toString());
        JsonObject o = JsonParser.parseString(again.out()).getAsJsonObject();
        assertEquals("doomed", o.get("name").getAsString());
        assertEquals("UNKNOWN_TOPIC_OR_PARTITION", o.get("error").getAsString());
        assertTrue(again.singleErrorLine().startsWith("admin: cannot delete topic 'doomed': UNKNOWN_TOPIC_OR_PARTITION"),
                again.err());
        Result noTopic = admin("--bootstrap-server", bootstrap, "topics", "--delete");
        assertEquals(2, noTopic.exitCode(), noTopic.toString());
    }

    @Test
    void configsDescribeAndAlterATopicsOverridesAsKafkaConfigsDoes() {
        Result created = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "cfg", "--partitions", "2",
                "--replication-factor", "1", "--config", "retention.ms=1000");
        assertEquals(0, created.exitCode(), created.toString());
        assertEquals(List.of("Dynamic configs for topic cfg are:",
                "  retention.ms=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1000}"),
                admin("--bootstrap-server", bootstrap, "configs", "--describe", "--entity-type", "topics",
                        "--entity-name", "cfg").outLines());

        Result altered = admin("--bootstrap-server", bootstrap, "configs", "--alter", "--entity-type", "topics",
                "--entity-name", "cfg", "--add-config", "retention.ms=5000,leader.replication.throttled.replicas=[0:1,1:1]");
        assertEquals(0, altered.exitCode(), altered.toString());
        assertEquals(List.of("Completed updating config for topic cfg."), altered.outLines());
        // No restart: the broker's logs of the topic run with the new value (retention reads it at its next pass).
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertEquals(5000L, cluster.node(1)
                .logManager().getLog(new io.tideline.common.TopicPartition("cfg", 1)).orElseThrow().config().retentionMs()));
        Result json = admin("--bootstrap-server", bootstrap, "--output", "json", "configs", "--describe",
                "--entity-type", "topics", "--entity-name", "cfg");
        JsonObject configs = JsonParser.parseString(json.out()).getAsJsonObject().getAsJsonArray("topics").get(0)
                .getAsJsonObject().getAsJsonObject("configs");
        assertEquals("5000", configs.get("retention.ms").getAsString());
        assertEquals("0:1,1:1", configs.get("leader.replication.throttled.replicas").getAsString());

        Result deleted = admin("--bootstrap-server", bootstrap, "configs", "--alter", "--entity-type", "topics",
                "--entity-name", "cfg", "--delete-config", "retention.ms");
        assertEquals(0, deleted.exitCode(), deleted.toString());
        assertEquals(List.of("Dynamic configs for topic cfg are:", "  leader.replication.throttled.replicas=0:1,1:1 "
                        + "sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:leader.replication.throttled.replicas=0:1,1:1}"),
                admin("--bootstrap-server", bootstrap, "configs", "--describe", "--entity-type", "topics",
                        "--entity-name", "cfg").outLines());

        Result minIsr = admin("--bootstrap-server", bootstrap, "configs", "--alter", "--entity-type", "topics",
                "--entity-name", "cfg", "--add-config", "min.insync.replicas=2");
        assertEquals(1, minIsr.exitCode(), minIsr.toString());
        assertTrue(minIsr.singleErrorLine().startsWith("admin: cannot alter the configs of topic 'cfg': INVALID_CONFIG: "
                + "min.insync.replicas 2 is larger than the replication factor 1"), minIsr.err());
        Result badValue = admin("--bootstrap-server", bootstrap, "configs", "--alter", "--entity-type", "topics",
                "--entity-name", "cfg", "--add-config", "retention.ms=soon");
        assertEquals(1, badValue.exitCode(), badValue.toString());
        assertTrue(badValue.singleErrorLine().contains("INVALID_CONFIG"), badValue.err());
        Result unknown = admin("--bootstrap-server", bootstrap, "configs", "--alter", "--entity-type", "topics",
                "--entity-name", "nosuch", "--add-config", "retention.ms=1");
        assertEquals(1, unknown.exitCode(), unknown.toString());
        assertTrue(unknown.singleErrorLine().contains("UNKNOWN_TOPIC_OR_PARTITION"), unknown.err());
        Result users = admin("--bootstrap-server", bootstrap, "configs", "--describe", "--entity-type", "users");
        assertEquals(2, users.exitCode(), users.toString());
        assertEquals("admin: --entity-type users is not supported (topics, brokers)", users.singleErrorLine());
    }

    @Test
    void describingAnUnknownTopicNamesIt() {
        Result r = admin("--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "no-such-topic");
        assertEquals(1, r.exitCode(), r.toString());
        assertEquals("", r.out());
        assertTrue(r.singleErrorLine().startsWith("admin: topic 'no-such-topic': UNKNOWN_TOPIC_OR_PARTITION"), r.err());
    }

    @Test
    void badArgumentsAreUsageErrorsWithExitTwo() throws Exception {
        Path unknownKey = Files.writeString(dir.resolve("unknown-key.properties"), "request.timeout.msx=5\n");
        List<List<String>> cases = List.of(
                List.of("topics", "--list"),
                List.of("--bootstrap-server", bootstrap),
                List.of("--bootstrap-server", bootstrap, "topics"),
                List.of("--bootstrap-server", bootstrap, "topics", "--list", "--describe"),
                List.of("--bootstrap-server", bootstrap, "topics", "--create", "--partitions", "1"),
                List.of("--bootstrap-server", bootstrap, "topicz", "--list"),
                List.of("--bootstrap-server", bootstrap, "topics", "--list", "--if-not-exists"),
                List.of("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "x", "--partitions", "0",
                        "--replication-factor", "1"),
                List.of("--bootstrap-server", bootstrap, "topics", "--list", "--under-replicated-partitions"),
                List.of("--bootstrap-server", bootstrap, "topics", "--describe", "--partitions", "3"),
                List.of("--bootstrap-server", bootstrap, "topics", "--list", "--topic", "x"),
                List.of("--bootstrap-server", bootstrap, "--output", "xml", "topics", "--list"),
                List.of("--bootstrap-server", bootstrap, "delete-records"),
                List.of("--bootstrap-server", "no-port", "topics", "--list"),
                List.of("--bootstrap-server", bootstrap, "--command-config", unknownKey.toString(), "topics", "--list"),
                List.of("--bootstrap-server", bootstrap, "--command-config", dir.resolve("absent").toString(),
                        "topics", "--list"));
        for (List<String> args : cases) {
            Result r = admin(args.toArray(String[]::new));
            assertEquals(2, r.exitCode(), args + ": " + r);
            assertEquals("", r.out(), args + ": " + r);
            assertTrue(r.singleErrorLine().startsWith("admin: "), args + ": " + r);
        }
        assertTrue(admin("--bootstrap-server", bootstrap, "--command-config", unknownKey.toString(), "topics", "--list")
                .err().contains("unknown client setting request.timeout.msx"));
    }

    @Test
    void refusingBootstrapAddressesAreOneLineNamingEachWithinMoments() throws Exception {
        // No timeout is shortened: the tools' own 15 s would show as a hang past the guard.
        String a = "127.0.0.1:" + Ports.one();
        String b = "127.0.0.1:" + Ports.one();
        String expected = "no broker answered (BROKER_NOT_AVAILABLE): could not connect to any of "
                + "bootstrap.servers: " + a + " (Connection refused), " + b + " (Connection refused)";

        long start = System.nanoTime();
        Result r = admin("--bootstrap-server", a + "," + b, "topics", "--list");
        assertEquals(1, r.exitCode(), r.toString());
        assertEquals("admin: " + expected, r.singleErrorLine());

        Result p = produce("a\n", "--bootstrap-server", a + "," + b, "--topic", "t");
        assertEquals(1, p.exitCode(), p.toString());
        assertEquals("produce: " + expected, p.singleErrorLine());

        Result c = consume("--bootstrap-server", a + "," + b, "--topic", "t");
        assertEquals(1, c.exitCode(), c.toString());
        assertEquals("consume: " + expected, c.singleErrorLine());
        long ms = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(ms < 5_000, "three runs took " + ms + " ms");
    }

    @Test
    void aLiveBootstrapAddressAfterRefusingOnesIsUsed() throws Exception {
        String servers = "127.0.0.1:" + Ports.one() + ",127.0.0.1:" + Ports.one() + "," + bootstrap;
        createTopic("after-dead", 1);
        Result listed = admin("--bootstrap-server", servers, "topics", "--list");
        assertEquals(0, listed.exitCode(), listed.toString());
        assertTrue(listed.outLines().contains("after-dead"), listed.toString());

        assertEquals(0, produce(lines(3), "--bootstrap-server", servers, "--topic", "after-dead").exitCode());
        Result read = consume("--bootstrap-server", servers, "--topic", "after-dead", "--from-beginning",
                "--max-messages", "3");
        assertEquals(0, read.exitCode(), read.toString());
        assertEquals(3, read.outLines().size(), read.toString());
    }

    @Test
    void deleteRecordsPrintsEachLowWatermarkOrErrorAndFailsIfAnyPartitionFailed() throws Exception {
        createTopic("events", 3);
        assertEquals(0, produce(lines(10), "--bootstrap-server", bootstrap, "--topic", "events", "--partition", "0")
                .exitCode());

        Path good = offsets("{\"partitions\":[{\"topic\":\"events\",\"partition\":0,\"offset\":3},"
                + "{\"topic\":\"events\",\"partition\":1,\"offset\":0}],\"version\":1}");
        Result ok = admin("--bootstrap-server", bootstrap, "delete-records", "--offset-json-file", good.toString());
        assertEquals(0, ok.exitCode(), ok.toString());
        assertEquals(List.of("Executing records delete operation", "Records delete operation completed:",
                "partition: events-0\tlow_watermark: 3", "partition: events-1\tlow_watermark: 0"), ok.outLines());
        assertEquals("", ok.err());

        // docs/behaviours.md B23: -1 goes up to the high watermark (0 on the empty partition 1); -2 and beyond the high
        // watermark are OFFSET_OUT_OF_RANGE;
        // an unknown partition is UNKNOWN_TOPIC_OR_PARTITION. The good partition is still done.
        Path mixed = offsets("{\"partitions\":[{\"topic\":\"events\",\"partition\":0,\"offset\":-2},"
                + "{\"topic\":\"events\",\"partition\":1,\"offset\":-1},"
                + "{\"topic\":\"events\",\"partition\":7,\"offset\":1},"
                + "{\"topic\":\"ghost\",\"partition\":0,\"offset\":1},"
                + "{\"topic\":\"events\",\"partition\":2,\"offset\":5}],\"version\":1}");
        Result r = admin("--bootstrap-server", bootstrap, "delete-records", "--offset-json-file", mixed.toString());
        assertEquals(1, r.exitCode(), r.toString());
        List<String> out = r.outLines();
        assertEquals(7, out.size(), r.toString());
        assertTrue(out.get(2).startsWith("partition: events-0\terror: OFFSET_OUT_OF_RANGE: "), out.get(2));
        assertEquals("partition: events-1\tlow_watermark: 0", out.get(3));
        assertTrue(out.get(4).startsWith("partition: events-7\terror: UNKNOWN_TOPIC_OR_PARTITION: "), out.get(4));
        assertTrue(out.get(5).startsWith("partition: ghost-0\terror: UNKNOWN_TOPIC_OR_PARTITION: "), out.get(5));
        assertTrue(out.get(6).startsWith("partition: events-2\terror: OFFSET_OUT_OF_RANGE: "), out.get(6));
        assertEquals("admin: 4 of 5 partitions failed", r.singleErrorLine());
    }

    @Test
    void aBadOffsetFileIsRefusedBeforeAnythingIsSent() throws Exception {
        createTopic("kept", 1);
        assertEquals(0, produce(lines(4), "--bootstrap-server", bootstrap, "--topic", "kept").exitCode());
        Path malformed = offsets("{\"partitions\":[{\"topic\":\"kept\",\"partition\":0,\"offset\":2}");
        Path missingField = offsets("{\"partitions\":[{\"topic\":\"kept\",\"partition\":0},"
                + "{\"topic\":\"kept\",\"partition\":0,\"offset\":2}],\"version\":1}");
        for (Path file : List.of(malformed, missingField, dir.resolve("no-such.json"))) {
            Result r = admin("--bootstrap-server", bootstrap, "delete-records", "--offset-json-file", file.toString());
            assertEquals(2, r.exitCode(), r.toString());
            assertEquals("", r.out(), "nothing printed, nothing sent: " + r);
            assertTrue(r.singleErrorLine().contains(file.toString()), r.err());
        }
        assertTrue(admin("--bootstrap-server", bootstrap, "delete-records", "--offset-json-file", missingField.toString())
                .err().contains("partitions[0]: missing field \"offset\""));
        assertTrue(admin("--bootstrap-server", bootstrap, "delete-records", "--offset-json-file", malformed.toString())
                .err().contains("not valid JSON"));
        // The log start offset did not move: every record is still there.
        Result all = consume("--bootstrap-server", bootstrap, "--topic", "kept", "--from-beginning",
                "--max-messages", "4", "--print-offsets");
        assertEquals(List.of("0\tline-0", "1\tline-1", "2\tline-2", "3\tline-3"), all.outLines());
    }

    @Test
    void produceThenConsumeRoundTripsKeysAndValuesOverEveryPartition() {
        createTopic("roundtrip", 3);
        List<String> input = IntStream.range(0, 30).mapToObj(i -> "key-" + i + ":value " + i + " \u00e9").toList();
        Result produced = produce(String.join("\n", input) + "\n", "--bootstrap-server", bootstrap,
                "--topic", "roundtrip", "--property", "key.separator=:", "--acks", "all");
        assertEquals(0, produced.exitCode(), produced.toString());
        assertEquals("produce: 30 lines read, 30 records delivered to roundtrip, 0 failed (acks=all)",
                produced.singleErrorLine());

        Result consumed = consume("--bootstrap-server", bootstrap, "--topic", "roundtrip", "--from-beginning",
                "--max-messages", "30", "--property", "print.key=true", "--property", "key.separator=:");
        assertEquals(0, consumed.exitCode(), consumed.toString());
        assertEquals(new HashSet<>(input), new HashSet<>(consumed.outLines()));
        assertEquals(30, consumed.outLines().size());
        assertEquals("consume: 30 records printed", consumed.singleErrorLine());

        // Over several partitions an offset alone collides: Kafka's print.* properties say where each line is from.
        Result located = consume("--bootstrap-server", bootstrap, "--topic", "roundtrip", "--from-beginning",
                "--max-messages", "30", "--property", "print.timestamp=true", "--property", "print.partition=true",
                "--property", "print.offset=true");
        assertEquals(0, located.exitCode(), located.toString());
        Set<String> where = new HashSet<>();
        Set<String> values = new HashSet<>();
        long now = System.currentTimeMillis();
        for (String line : located.outLines()) {
            String[] f = line.split("\t", 4);
            assertEquals(4, f.length, line);
            assertTrue(f[0].matches("CreateTime:\\d+"), line);
            long ts = Long.parseLong(f[0].substring("CreateTime:".length()));
            assertTrue(ts > now - 600_000 && ts <= now, "produced during this test: " + line);
            assertTrue(f[1].matches("Partition:[0-2]") && f[2].matches("Offset:\\d+"), line);
            assertTrue(where.add(f[1] + " " + f[2]), "one line per partition and offset: " + line);
            values.add(f[3]);
        }
        assertEquals(input.stream().map(l -> l.substring(l.indexOf(':') + 1)).collect(Collectors.toSet()), values);

        // Keys spread the records: more than one partition holds some (murmur2 of 30 keys over 3 partitions).
        Set<Integer> nonEmpty = new HashSet<>();
        for (int p = 0; p < 3; p++) {
            Result one = consume("--bootstrap-server", bootstrap, "--topic", "roundtrip", "--partition",
                    Integer.toString(p), "--from-beginning", "--timeout-ms", "300");
            if (!one.outLines().isEmpty()) {
                nonEmpty.add(p);
            }
        }
        assertTrue(nonEmpty.size() > 1, "partitions with records: " + nonEmpty);

        Result few = consume("--bootstrap-server", bootstrap, "--topic", "roundtrip", "--from-beginning",
                "--max-messages", "7");
        assertEquals(7, few.outLines().size(), few.toString());
    }

    @Test
    void producesToOnePartitionWithEachAcksAndConsumesWithOffsets() {
        createTopic("acks", 2);
        assertEquals(0, produce("a\nb\n", "--bootstrap-server", bootstrap, "--topic", "acks", "--partition", "1",
                "--acks", "1").exitCode());
        Result zero = produce("c\n", "--bootstrap-server", bootstrap, "--topic", "acks", "--partition", "1",
                "--acks", "0");
        assertEquals(0, zero.exitCode(), zero.toString());
        assertTrue(zero.err().contains("(acks=0)"), zero.err());
        assertEquals(0, produce("d\n\n", "--bootstrap-server", bootstrap, "--topic", "acks", "--partition", "1")
                .exitCode());

        Result r = consume("--bootstrap-server", bootstrap, "--topic", "acks", "--partition", "1", "--offset", "1",
                "--print-offsets", "--max-messages", "4");
        assertEquals(0, r.exitCode(), r.toString());
        assertEquals(List.of("1\tb", "2\tc", "3\td", "4\t"), r.outLines());

        Result earliest = consume("--bootstrap-server", bootstrap, "--topic", "acks", "--partition", "1",
                "--offset", "earliest", "--max-messages", "1");
        assertEquals(List.of("a"), earliest.outLines());
        Result other = consume("--bootstrap-server", bootstrap, "--topic", "acks", "--partition", "0",
                "--from-beginning", "--timeout-ms", "300");
        assertEquals(0, other.exitCode(), other.toString());
        assertEquals("", other.out(), "partition 0 got nothing");
    }

    @Test
    void consumeWithoutAStartOffsetPrintsOnlyNewRecordsAndStopsWhenIdle() {
        createTopic("tail", 1);
        assertEquals(0, produce("old\n", "--bootstrap-server", bootstrap, "--topic", "tail").exitCode());
        long start = System.nanoTime();
        Result r = consume("--bootstrap-server", bootstrap, "--topic", "tail", "--timeout-ms", "400");
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(0, r.exitCode(), r.toString());
        assertEquals("", r.out());
        assertEquals("consume: 0 records printed", r.singleErrorLine());
        assertTrue(tookMs >= 400 && tookMs < 10_000, "stopped after the idle timeout, took " + tookMs + " ms");
        Result latest = consume("--bootstrap-server", bootstrap, "--topic", "tail", "--partition", "0",
                "--offset", "latest", "--timeout-ms", "200");
        assertEquals("", latest.out());
    }

    @Test
    void resetNoneBelowTheLogStartOffsetNamesPartitionOffsetAndBounds() throws Exception {
        createTopic("trimmed", 1);
        assertEquals(0, produce(lines(10), "--bootstrap-server", bootstrap, "--topic", "trimmed").exitCode());
        deleteBefore("trimmed", 0, 3);

        Result r = consume("--bootstrap-server", bootstrap, "--topic", "trimmed", "--partition", "0", "--offset", "0",
                "--reset", "none");
        assertEquals(1, r.exitCode(), r.toString());
        assertEquals("", r.out());
        assertEquals("consume: trimmed-0: offset 0 is out of range: log start offset 3, high watermark 10 (--reset none)",
                r.singleErrorLine());

        Result inRange = consume("--bootstrap-server", bootstrap, "--topic", "trimmed", "--partition", "0",
                "--offset", "3", "--reset", "none", "--max-messages", "2");
        assertEquals(0, inRange.exitCode(), inRange.toString());
        assertEquals(List.of("line-3", "line-4"), inRange.outLines());

        Result beyond = consume("--bootstrap-server", bootstrap, "--topic", "trimmed", "--partition", "0",
                "--offset", "15", "--reset", "none");
        assertEquals(1, beyond.exitCode(), beyond.toString());
        assertEquals("consume: trimmed-0: offset 15 is out of range: log start offset 3, high watermark 10 (--reset none)",
                beyond.singleErrorLine());
    }

    @Test
    void resetEarliestAndLatestWarnWithTheSkippedCount() throws Exception {
        createTopic("skipped", 1);
        assertEquals(0, produce(lines(10), "--bootstrap-server", bootstrap, "--topic", "skipped").exitCode());
        deleteBefore("skipped", 0, 4);

        Result earliest = consume("--bootstrap-server", bootstrap, "--topic", "skipped", "--partition", "0",
                "--offset", "1", "--reset", "earliest", "--print-offsets", "--max-messages", "6");
        assertEquals(0, earliest.exitCode(), earliest.toString());
        assertEquals(List.of("4\tline-4", "5\tline-5", "6\tline-6", "7\tline-7", "8\tline-8", "9\tline-9"),
                earliest.outLines());
        assertEquals(List.of("consume: WARN skipped-0: offset 1 is out of range; moved to 4 (--reset earliest), "
                + "3 offsets skipped", "consume: 6 records printed"), earliest.errLines());

        // --from-beginning makes earliest the default, as in Kafka's console consumer.
        Result fromBeginning = consume("--bootstrap-server", bootstrap, "--topic", "skipped", "--from-beginning",
                "--max-messages", "1", "--print-offsets");
        assertEquals(List.of("4\tline-4"), fromBeginning.outLines());

        Result latest = consume("--bootstrap-server", bootstrap, "--topic", "skipped", "--partition", "0",
                "--offset", "2", "--reset", "latest", "--timeout-ms", "300");
        assertEquals(0, latest.exitCode(), latest.toString());
        assertEquals("", latest.out());
        assertEquals("consume: WARN skipped-0: offset 2 is out of range; moved to 10 (--reset latest), 8 offsets skipped",
                latest.errLines().get(0));
    }

    @Test
    void produceAndConsumeRefuseWhatTheyCannotDo() {
        createTopic("single", 1);
        Result unknownTopic = produce("x\n", "--bootstrap-server", bootstrap, "--topic", "nope");
        assertEquals(1, unknownTopic.exitCode(), unknownTopic.toString());
        assertEquals("produce: unknown topic 'nope'", unknownTopic.singleErrorLine());

        Result noPartition = consume("--bootstrap-server", bootstrap, "--topic", "single", "--partition", "9");
        assertEquals(1, noPartition.exitCode(), noPartition.toString());
        assertEquals("consume: topic 'single' has 1 partition (0..0); there is no partition 9",
                noPartition.singleErrorLine());

        Result noSeparator = produce("k1:v1\nno separator here\nk3:v3\n", "--bootstrap-server", bootstrap,
                "--topic", "single", "--property", "key.separator=:");
        assertEquals(1, noSeparator.exitCode(), noSeparator.toString());
        assertEquals(List.of("produce: 3 lines read, 2 records delivered to single, 1 failed (acks=all)",
                "produce: first failure: line 2 has no key separator ':'; not sent"), noSeparator.errLines());

        List<List<String>> usage = List.of(
                List.of("--bootstrap-server", bootstrap, "--topic", "single", "--acks", "2"),
                List.of("--bootstrap-server", bootstrap, "--topic", "single", "--property", "parse.keys=true"),
                List.of("--bootstrap-server", bootstrap, "--topic", "single", "--partition", "-1"),
                List.of("--bootstrap-server", bootstrap, "--topic", "single", "--producer-property", "lingr.ms=5"),
                List.of("--topic", "single"));
        for (List<String> args : usage) {
            Result r = produce("x\n", args.toArray(String[]::new));
            assertEquals(2, r.exitCode(), args + ": " + r);
            assertTrue(r.singleErrorLine().startsWith("produce: "), args + ": " + r);
        }
        List<List<String>> consumeUsage = List.of(
                List.of("--bootstrap-server", bootstrap, "--topic", "single", "--offset", "3"),
                List.of("--bootstrap-server", bootstrap, "--topic", "single", "--partition", "0", "--offset", "-3"),
                List.of("--bootstrap-server", bootstrap, "--topic", "single", "--partition", "0", "--offset", "soon"),
                List.of("--bootstrap-server", bootstrap, "--topic", "single", "--offset", "earliest", "--from-beginning"),
                List.of("--bootstrap-server", bootstrap, "--topic", "single", "--reset", "sometimes"),
                List.of("--bootstrap-server", bootstrap, "--topic", "single", "--max-messages", "0"),
                List.of("--bootstrap-server", bootstrap, "--topic", "single", "--property", "print.value=false"),
                List.of("--bootstrap-server", bootstrap, "--topic", "single", "--property", "print.offset=yes"),
                List.of("--bootstrap-server", bootstrap, "--topic", "single", "--consumer-property", "fetch.min.bytes=-1"));
        for (List<String> args : consumeUsage) {
            Result r = consume(args.toArray(String[]::new));
            assertEquals(2, r.exitCode(), args + ": " + r);
            assertTrue(r.singleErrorLine().startsWith("consume: "), args + ": " + r);
        }
    }

    private static void createTopic(String name, int partitions) {
        Result r = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", name, "--partitions",
                Integer.toString(partitions), "--replication-factor", "1");
        assertEquals(0, r.exitCode(), r.toString());
    }

    private static void deleteBefore(String topic, int partition, long offset) throws IOException {
        Path file = offsets("{\"partitions\":[{\"topic\":\"" + topic + "\",\"partition\":" + partition + ",\"offset\":"
                + offset + "}],\"version\":1}");
        Result r = admin("--bootstrap-server", bootstrap, "delete-records", "--offset-json-file", file.toString());
        assertEquals(0, r.exitCode(), r.toString());
        assertEquals("partition: " + topic + "-" + partition + "\tlow_watermark: " + offset, r.outLines().get(2));
    }

    private static Path offsets(String json) throws IOException {
        return Files.writeString(Files.createTempFile(dir, "offsets", ".json"), json);
    }

    /** "line-0\nline-1\n...". */
    private static String lines(int n) {
        return IntStream.range(0, n).mapToObj(i -> "line-" + i + "\n").collect(Collectors.joining());
    }
}
