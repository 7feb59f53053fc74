package io.tideline.tools.cli;

import static io.tideline.tools.cli.CliRun.admin;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code admin configs --entity-type brokers} against one node, as Kafka's {@code kafka-configs.sh}
 * prints it (docs/cli.md). The node's file sets log.retention.ms, so the STATIC_BROKER_CONFIG synonym
 * shows.
 */
class CliBrokerConfigsTest {
    @TempDir
    static Path dir;
    private static NodeTestCluster cluster;
    private static String bootstrap;

    @BeforeAll
    static void startNode() throws Exception {
        cluster = new NodeTestCluster(dir.resolve("cluster"), 1, Map.of("log.retention.ms", "86400000")).startAll();
        bootstrap = cluster.bootstrapServers();
    }

    @AfterAll
    static void stopNode() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Result configs(String... args) {
        String[] all = new String[args.length + 3];
        all[0] = "--bootstrap-server";
        all[1] = bootstrap;
        all[2] = "configs";
        System.arraycopy(args, 0, all, 3, args.length);
        return admin(all);
    }

    @Test
    void describeAndAlterABrokerAndTheClusterDefaultInKafkasLines() {
        Result nothing = configs("--describe", "--entity-type", "brokers", "--entity-name", "1");
        assertEquals(0, nothing.exitCode(), nothing.toString());
        assertEquals(List.of("Dynamic configs for broker 1 are:"), nothing.outLines());

        Result setDefault = configs("--alter", "--entity-type", "brokers", "--entity-default",
                "--add-config", "log.retention.ms=3600000,leader.replication.throttled.rate=4096");
        assertEquals(0, setDefault.exitCode(), setDefault.toString());
        assertEquals(List.of("Completed updating default config for brokers in the cluster."), setDefault.outLines());
        Result setOwn = configs("--alter", "--entity-type", "brokers", "--entity-name", "1",
                "--add-config", "log.retention.ms=7200000");
        assertEquals(0, setOwn.exitCode(), setOwn.toString());
        assertEquals(List.of("Completed updating config for broker 1."), setOwn.outLines());

        Result own = configs("--describe", "--entity-type", "brokers", "--entity-name", "1");
        assertEquals(List.of("Dynamic configs for broker 1 are:",
                "  log.retention.ms=7200000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.ms=7200000, "
                        + "DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=3600000, STATIC_BROKER_CONFIG:log.retention.ms=86400000, "
                        + "DEFAULT_CONFIG:log.retention.hours=168}"), own.outLines());
        Result defaults = configs("--describe", "--entity-type", "brokers", "--entity-default");
        assertEquals(List.of("Default configs for brokers in the cluster are:",
                "  leader.replication.throttled.rate=4096 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:"
                        + "leader.replication.throttled.rate=4096, DEFAULT_CONFIG:leader.replication.throttled.rate=9223372036854775807}",
                "  log.retention.ms=3600000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=3600000, "
                        + "STATIC_BROKER_CONFIG:log.retention.ms=86400000, DEFAULT_CONFIG:log.retention.hours=168}"),
                defaults.outLines());
        // Neither a name nor the default: every broker, then the default.
        Result every = configs("--describe", "--entity-type", "brokers");
        assertEquals(0, every.exitCode(), every.toString());
        assertEquals("Dynamic configs for broker 1 are:", every.outLines().get(0));
        assertEquals("Default configs for brokers in the cluster are:", every.outLines().get(2));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                cluster.node(1).replicaManager().leaderQuota().rate() == 4096
                        && cluster.node(1).logManager().defaults().retentionMs() == 7_200_000L);

        Result all = configs("--describe", "--entity-type", "brokers", "--entity-name", "1", "--all");
        assertEquals("All configs for broker 1 are:", all.outLines().get(0));
        assertTrue(all.outLines().contains("  log.retention.minutes=null sensitive=false synonyms={}"), all.toString());
        assertTrue(all.outLines().contains("  log.segment.bytes=1073741824 sensitive=false synonyms="
                + "{DEFAULT_CONFIG:log.segment.bytes=1073741824}"), all.toString());

        Result json = configs("--output", "json", "--describe", "--entity-type", "brokers", "--entity-name", "1");
        assertEquals(0, json.exitCode(), json.toString());
        JsonArray brokers = JsonParser.parseString(json.out()).getAsJsonObject().getAsJsonArray("brokers");
        JsonObject broker1 = brokers.get(0).getAsJsonObject();
        assertEquals("1", broker1.get("name").getAsString());
        JsonObject retention = broker1.getAsJsonArray("configs").get(0).getAsJsonObject();
        assertEquals("log.retention.ms", retention.get("name").getAsString());
        assertEquals("7200000", retention.get("value").getAsString());
        assertEquals("DYNAMIC_BROKER_CONFIG", retention.get("source").getAsString());
        assertEquals(4, retention.getAsJsonArray("synonyms").size());
        assertEquals("DYNAMIC_DEFAULT_BROKER_CONFIG", retention.getAsJsonArray("synonyms").get(1).getAsJsonObject()
                .get("source").getAsString());

        Result deleted = configs("--output", "json", "--alter", "--entity-type", "brokers", "--entity-name", "1",
                "--delete-config", "log.retention.ms");
        assertEquals(0, deleted.exitCode(), deleted.toString());
        JsonObject outcome = JsonParser.parseString(deleted.out()).getAsJsonObject();
        assertEquals("1", outcome.get("name").getAsString());
        assertEquals("NONE", outcome.get("error").getAsString());
        assertEquals(List.of("Dynamic configs for broker 1 are:"),
                configs("--describe", "--entity-type", "brokers", "--entity-name", "1").outLines());
        configs("--alter", "--entity-type", "brokers", "--entity-default", "--delete-config",
                "log.retention.ms,leader.replication.throttled.rate");
        assertEquals(List.of("Default configs for brokers in the cluster are:"),
                configs("--describe", "--entity-type", "brokers", "--entity-default").outLines());
    }

    @Test
    void badKeysValuesAndBrokerIdsAreOneLineEach() {
        Result notDynamic = configs("--alter", "--entity-type", "brokers", "--entity-default", "--add-config", "num.io.threads=4");
        assertEquals(1, notDynamic.exitCode(), notDynamic.toString());
        assertEquals("admin: cannot alter the configs of the cluster-wide broker default: INVALID_CONFIG: "
                + "Cannot update these configs dynamically: [num.io.threads]", notDynamic.singleErrorLine());
        Result badValue = configs("--alter", "--entity-type", "brokers", "--entity-name", "1", "--add-config",
                "log.retention.ms=soon");
        assertEquals(1, badValue.exitCode(), badValue.toString());
        assertTrue(badValue.singleErrorLine().startsWith("admin: cannot alter the configs of broker 1: INVALID_CONFIG: "),
                badValue.err());
        assertTrue(badValue.singleErrorLine().contains("log.retention.ms"), badValue.err());
        Result unknown = configs("--describe", "--entity-type", "brokers", "--entity-name", "5");
        assertEquals(1, unknown.exitCode(), unknown.toString());
        assertEquals("admin: BROKER_NOT_AVAILABLE: broker 5 is not registered in the cluster (registered: [1])",
                unknown.singleErrorLine());
        Result unknownAlter = configs("--output", "json", "--alter", "--entity-type", "brokers", "--entity-name", "5",
                "--add-config", "log.retention.ms=1");
        assertEquals(1, unknownAlter.exitCode(), unknownAlter.toString());
        assertEquals("BROKER_NOT_AVAILABLE", JsonParser.parseString(unknownAlter.out()).getAsJsonObject()
                .get("error").getAsString());
        Result notAnId = configs("--describe", "--entity-type", "brokers", "--entity-name", "one");
        assertEquals(2, notAnId.exitCode(), notAnId.toString());
        assertEquals("admin: The entity name for brokers must be a valid integer broker id, but it is: one",
                notAnId.singleErrorLine());
        Result both = configs("--describe", "--entity-type", "brokers", "--entity-name", "1", "--entity-default");
        assertEquals(2, both.exitCode(), both.toString());
        Result noTarget = configs("--alter", "--entity-type", "brokers", "--add-config", "log.retention.ms=1");
        assertEquals(2, noTarget.exitCode(), noTarget.toString());
        Result defaultTopic = configs("--describe", "--entity-type", "topics", "--entity-default");
        assertEquals(2, defaultTopic.exitCode(), defaultTopic.toString());
    }

    @Test
    void topicDescribeStillShowsOnlyTheTopicsOwnOverrides() {
        Result created = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "plain",
                "--partitions", "1", "--replication-factor", "1", "--config", "segment.bytes=1048576");
        assertEquals(0, created.exitCode(), created.toString());
        configs("--alter", "--entity-type", "brokers", "--entity-name", "1", "--add-config", "log.retention.bytes=1000000");
        try {
            assertEquals(List.of("Dynamic configs for topic plain are:",
                    "  segment.bytes=1048576 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:segment.bytes=1048576}"),
                    configs("--describe", "--entity-type", "topics", "--entity-name", "plain").outLines());
        } finally {
            configs("--alter", "--entity-type", "brokers", "--entity-name", "1", "--delete-config", "log.retention.bytes");
        }
    }
}
