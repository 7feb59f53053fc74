package io.tideline.tools.cli;

import static io.tideline.tools.cli.CliRun.admin;
import static io.tideline.tools.cli.CliRun.produce;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tideline.client.ConfigEntry;
import io.tideline.client.TidelineAdmin;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.tools.cli.CliRun.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code admin reassign-partitions} on four nodes in one JVM: a partition moved from 1,2,3 to 1,2,4 (held in
 * progress by keeping broker 4 stopped, completed by starting it), a cancel that reverts, the proposal of
 * --generate, the throttles set at --execute and cleared at --verify, and the error lines.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CliReassignPartitionsTest {
    private static final String MOVE_TO_124 = "{\"version\":1,\"partitions\":[{\"topic\":\"%s\",\"partition\":0,"
            + "\"replicas\":[1,2,4]}]}";

    Path dir;
    NodeTestCluster cluster;
    String bootstrap;

    @BeforeAll
    void start(@TempDir Path root) throws Exception {
        dir = root;
        cluster = new NodeTestCluster(dir.resolve("cluster"), 4, Map.of()).startAll();
        bootstrap = cluster.bootstrapServers();
    }

    @AfterAll
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private Result reassign(String... args) {
        String[] full = new String[args.length + 3];
        full[0] = "--bootstrap-server";
        full[1] = bootstrap;
        full[2] = "reassign-partitions";
        System.arraycopy(args, 0, full, 3, args.length);
        return admin(full);
    }

    private Result reassignJson(String... args) {
        String[] full = new String[args.length + 2];
        full[0] = "--output";
        full[1] = "json";
        System.arraycopy(args, 0, full, 2, args.length);
        return reassign(full);
    }

    private String file(String name, String content) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, content);
        return f.toString();
    }

    private void createOn123(String topic) {
        Result created = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", topic,
                "--replica-assignment", "1:2:3");
        assertEquals(0, created.exitCode(), created.toString());
    }

    private JsonObject topicConfigs(String topic) {
        Result json = admin("--bootstrap-server", bootstrap, "--output", "json", "configs", "--describe",
                "--entity-type", "topics", "--entity-name", topic);
        assertEquals(0, json.exitCode(), json.toString());
        return JsonParser.parseString(json.out()).getAsJsonObject().getAsJsonArray("topics").get(0).getAsJsonObject()
                .getAsJsonObject("configs");
    }

    /** The broker's dynamic value of {@code key}, null when it has none. */
    private String brokerRate(int broker, String key) {
        try (TidelineAdmin client = new TidelineAdmin(Map.of("bootstrap.servers", bootstrap))) {
            ConfigEntry e = client.describeBrokerConfigs(OptionalInt.of(broker)).get(key);
            return e != null && e.source() == ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG ? e.value() : null;
        }
    }

    private String replicasLine(String topic) {
        return admin("--bootstrap-server", bootstrap, "topics", "--describe", "--topic", topic).outLines().get(1);
    }

    /**
     * The partition's replicas as a broker describes them: a change the controller committed reaches each
     * broker's image a moment later, so this waits (bounded) for it.
     */
    private void awaitReplicas(String topic, String replicas) {
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            String line = replicasLine(topic);
            assertTrue(line.contains("\tReplicas: " + replicas + "\t"), line);
        });
    }

    @Test
    void executeVerifyListMoveAPartitionAndVerifyClearsTheThrottlesOnlyOnceItIsComplete() throws Exception {
        createOn123("moved");
        assertEquals(0, produce("a\nb\nc\n", "--bootstrap-server", bootstrap, "--topic", "moved", "--partition", "0",
                "--acks", "all").exitCode());
        String plan = file("moved.json", MOVE_TO_124.formatted("moved"));
        cluster.stop(4); // the move cannot complete until broker 4 is back
        try {
            executeAndVerifyWhileBroker4IsStopped(plan);
        } finally {
            cluster.restart(4);
        }
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300)).until(() ->
                reassign("--list").out().equals("No partition reassignments found.\n"));
        Result completed = reassign("--verify", "--reassignment-json-file", plan);
        assertEquals(0, completed.exitCode(), completed.toString());
        assertEquals(List.of("Status of partition reassignment:", "Reassignment of partition moved-0 is completed.", "",
                "Clearing broker-level throttles on brokers 1,2,3,4", "Clearing topic-level throttles on topic moved"),
                completed.outLines());
        // Committed by the controller; each broker's image has it a moment later.
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            JsonObject cleared = topicConfigs("moved");
            assertFalse(cleared.has("leader.replication.throttled.replicas"), cleared.toString());
            assertFalse(cleared.has("follower.replication.throttled.replicas"), cleared.toString());
            for (int broker = 1; broker <= 4; broker++) {
                assertEquals(null, brokerRate(broker, "leader.replication.throttled.rate"), "broker " + broker);
                assertEquals(null, brokerRate(broker, "follower.replication.throttled.rate"), "broker " + broker);
            }
        });
        awaitReplicas("moved", "1,2,4");
        JsonObject verified = JsonParser.parseString(reassignJson("--verify", "--reassignment-json-file", plan).out())
                .getAsJsonObject();
        assertEquals("COMPLETED", verified.getAsJsonArray("partitions").get(0).getAsJsonObject().get("status")
                .getAsString());
        assertFalse(verified.get("reassignmentsInProgress").getAsBoolean());
        assertTrue(verified.get("throttlesCleared").getAsBoolean());
        assertEquals("[\"moved\"]", verified.get("clearedTopics").toString());
    }

    /** Execute, the second execute refused, list and verify while the move cannot complete. */
    private void executeAndVerifyWhileBroker4IsStopped(String plan) {
        Result executed = reassign("--execute", "--reassignment-json-file", plan, "--throttle", "10000000");
        assertEquals(0, executed.exitCode(), executed.toString());
        assertEquals(List.of("Current partition replica assignment", "",
                "{\"version\":1,\"partitions\":[{\"topic\":\"moved\",\"partition\":0,\"replicas\":[1,2,3],"
                        + "\"log_dirs\":[\"any\",\"any\",\"any\"]}]}", "",
                "Save this to use as the --reassignment-json-file option during rollback",
                ReassignExecution.RUN_VERIFY,
                "The inter-broker throttle limit was set to 10000000 B/s",
                "Successfully started partition reassignment for moved-0"), executed.outLines());
        awaitReplicas("moved", "1,2,3,4"); // the answering broker's image has the move
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            JsonObject throttled = topicConfigs("moved");
            assertEquals("0:1,0:2,0:3", throttled.get("leader.replication.throttled.replicas").getAsString());
            assertEquals("0:4", throttled.get("follower.replication.throttled.replicas").getAsString());
            assertEquals("10000000", brokerRate(1, "leader.replication.throttled.rate"));
            assertEquals("10000000", brokerRate(3, "follower.replication.throttled.rate"));
        });

        Result again = reassign("--execute", "--reassignment-json-file", plan);
        assertEquals(1, again.exitCode(), again.toString());
        assertEquals("admin: " + ReassignExecution.EXISTING_REASSIGNMENT, again.singleErrorLine());

        assertEquals(List.of("Current partition reassignments:", "moved-0: replicas: 1,2,3,4. adding: 4. removing: 3."),
                reassign("--list").outLines());
        JsonObject listed = JsonParser.parseString(reassignJson("--list").out()).getAsJsonObject()
                .getAsJsonArray("reassignments").get(0).getAsJsonObject();
        assertEquals("[1,2,3,4]", listed.get("replicas").toString());
        assertEquals("[4]", listed.get("addingReplicas").toString());
        assertEquals("[3]", listed.get("removingReplicas").toString());

        Result inProgress = reassign("--verify", "--reassignment-json-file", plan);
        assertEquals(0, inProgress.exitCode(), inProgress.toString());
        assertEquals(List.of("Status of partition reassignment:", "Reassignment of partition moved-0 is still in progress."),
                inProgress.outLines().subList(0, 2));
        assertFalse(inProgress.out().contains("Clearing"), inProgress.out());
        // The replica being added is on the stopped broker: it reports why it is not catching up.
        assertTrue(inProgress.outLines().get(2).startsWith("  Replica 4: OFFLINE"), inProgress.out());
        assertTrue(inProgress.outLines().get(2).endsWith(", not catching up."), inProgress.out());
        JsonObject progress = JsonParser.parseString(reassignJson("--verify", "--reassignment-json-file", plan).out())
                .getAsJsonObject();
        assertTrue(progress.get("reassignmentsInProgress").getAsBoolean());
        JsonObject adding = progress.getAsJsonArray("partitions").get(0).getAsJsonObject()
                .getAsJsonArray("addingReplicas").get(0).getAsJsonObject();
        assertEquals(4, adding.get("brokerId").getAsInt());
        assertEquals("OFFLINE", adding.get("state").getAsString());
        assertEquals(-1, adding.get("estimatedCompletionMs").getAsLong());
        assertEquals("0:4", topicConfigs("moved").get("follower.replication.throttled.replicas").getAsString(),
                "throttles stay while the move is in progress");
    }

    @Test
    void cancelRevertsAReassignmentThatCannotComplete() throws Exception {
        createOn123("stuck");
        String plan = file("stuck.json", MOVE_TO_124.formatted("stuck"));
        cluster.stop(4);
        try {
            assertEquals(0, reassign("--execute", "--reassignment-json-file", plan).exitCode());
            awaitReplicas("stuck", "1,2,3,4");

            Result cancelled = reassign("--cancel", "--reassignment-json-file", plan);
            assertEquals(0, cancelled.exitCode(), cancelled.toString());
            assertEquals(List.of("Successfully cancelled partition reassignment for: stuck-0",
                    "Clearing broker-level throttles on brokers 1,2,3,4", "Clearing topic-level throttles on topic stuck"),
                    cancelled.outLines());
            awaitReplicas("stuck", "1,2,3");
            assertEquals("No partition reassignments found.", reassign("--list").out().strip());

            Result none = reassign("--cancel", "--reassignment-json-file", plan, "--preserve-throttles");
            assertEquals(List.of("None of the specified partition reassignments are active."), none.outLines());

            Result verify = reassign("--verify", "--reassignment-json-file", plan, "--preserve-throttles");
            assertEquals("There is no active reassignment of partition stuck-0, but replica set is 1,2,3 rather than 1,2,4.",
                    verify.outLines().get(1));
            JsonObject json = JsonParser.parseString(reassignJson("--verify", "--reassignment-json-file", plan,
                    "--preserve-throttles").out()).getAsJsonObject();
            assertEquals("REPLICAS_DIFFER", json.getAsJsonArray("partitions").get(0).getAsJsonObject().get("status")
                    .getAsString());
            assertFalse(json.get("throttlesCleared").getAsBoolean());
        } finally {
            cluster.restart(4);
        }
    }

    @Test
    void generateProposesTheSameValidAssignmentEveryTime() throws Exception {
        Result created = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "spread",
                "--partitions", "3", "--replication-factor", "2");
        assertEquals(0, created.exitCode(), created.toString());
        String topics = file("topics.json", "{\"topics\":[{\"topic\":\"spread\"}],\"version\":1}");
        Result first = reassign("--generate", "--topics-to-move-json-file", topics, "--broker-list", "2,3,4");
        assertEquals(0, first.exitCode(), first.toString());
        List<String> lines = first.outLines();
        assertEquals("Current partition replica assignment", lines.get(0));
        assertEquals("", lines.get(2));
        assertEquals("Proposed partition reassignment configuration", lines.get(3));
        assertEquals("{\"version\":1,\"partitions\":["
                + "{\"topic\":\"spread\",\"partition\":0,\"replicas\":[2,3],\"log_dirs\":[\"any\",\"any\"]},"
                + "{\"topic\":\"spread\",\"partition\":1,\"replicas\":[3,4],\"log_dirs\":[\"any\",\"any\"]},"
                + "{\"topic\":\"spread\",\"partition\":2,\"replicas\":[4,2],\"log_dirs\":[\"any\",\"any\"]}]}", lines.get(4));
        assertEquals(first.out(), reassign("--generate", "--topics-to-move-json-file", topics, "--broker-list", "2,3,4")
                .out());
        // The proposal is a valid --reassignment-json-file, and the current one a valid rollback.
        assertEquals(3, ReassignmentJson.parseReassignment(lines.get(4)).size());
        assertEquals(3, ReassignmentJson.parseReassignment(lines.get(1)).size());
        JsonObject json = JsonParser.parseString(reassignJson("--generate", "--topics-to-move-json-file", topics,
                "--broker-list", "2,3,4").out()).getAsJsonObject();
        assertEquals(lines.get(4), json.get("proposed").toString());
        assertEquals(lines.get(1), json.get("current").toString());
    }

    @Test
    void badInputIsOneLineWithKafkasMessage() throws Exception {
        createOn123("checked");
        assertError(1, "admin: Unknown broker id 9", reassign("--execute", "--reassignment-json-file",
                file("b9.json", "{\"partitions\":[{\"topic\":\"checked\",\"partition\":0,\"replicas\":[1,2,9]}]}")));
        assertError(1, "admin: Unable to find partition: checked-5", reassign("--execute", "--reassignment-json-file",
                file("p5.json", "{\"partitions\":[{\"topic\":\"checked\",\"partition\":5,\"replicas\":[1,2,3]}]}")));
        assertError(1, "admin: Topic nosuch not found.", reassign("--verify", "--reassignment-json-file",
                file("nosuch.json", "{\"partitions\":[{\"topic\":\"nosuch\",\"partition\":0,\"replicas\":[1]}]}")));
        String dup = file("dup.json", "{\"partitions\":[{\"topic\":\"checked\",\"partition\":0,\"replicas\":[1,2,1]}]}");
        assertError(2, "admin: bad reassignment JSON file " + dup + ": Partition replica lists may not contain duplicate "
                + "entries: checked-0 contains multiple entries for 1", reassign("--execute", "--reassignment-json-file", dup));
        String bad = file("bad.json", "{\"partitions\":[");
        assertTrue(assertError(2, null, reassign("--execute", "--reassignment-json-file", bad))
                .startsWith("admin: bad reassignment JSON file " + bad + ": not valid JSON"));
        assertError(1, "admin: Unknown broker id 7", reassign("--generate", "--topics-to-move-json-file",
                file("t.json", "{\"topics\":[{\"topic\":\"checked\"}]}"), "--broker-list", "1,7"));
        assertError(2, "admin: Command must include exactly one action: " + ReassignPartitionsCommand.ACTIONS,
                reassign("--list", "--verify"));
        assertError(2, "admin: Option \"--throttle\" can't be used with action \"--verify\"",
                reassign("--verify", "--reassignment-json-file", dup, "--throttle", "100"));
        assertError(2, "admin: Missing required argument \"--reassignment-json-file\"", reassign("--cancel"));
        // Nothing was changed by any of them.
        awaitReplicas("checked", "1,2,3");
    }

    private static String assertError(int exit, String line, Result r) {
        assertEquals(exit, r.exitCode(), r.toString());
        String actual = r.singleErrorLine();
        if (line != null) {
            assertEquals(line, actual);
        }
        return actual;
    }
}
