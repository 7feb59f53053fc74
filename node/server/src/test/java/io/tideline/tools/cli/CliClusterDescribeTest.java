package io.tideline.tools.cli;

import static io.tideline.tools.cli.CliRun.admin;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.TidelineNode;
import io.tideline.tools.cli.CliRun.Result;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code admin cluster --describe} on three nodes, text and JSON, before and after the controller stops. */
class CliClusterDescribeTest {
    @TempDir
    Path dir;

    @Test
    void describesTheQuorumLeaderAndEveryBrokerAndFollowsAFailover() throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 3, Map.of()).startAll()) {
            String bootstrap = cluster.bootstrapServers();
            int leader = quorumLeader(cluster);

            Result text = admin("--bootstrap-server", bootstrap, "cluster", "--describe");
            assertEquals(0, text.exitCode(), text.toString());
            List<String> lines = text.outLines();
            assertEquals(4, lines.size(), text.toString());
            assertTrue(lines.get(0).matches("ClusterId: tideline\tController: " + leader
                    + "\tControllerTerm: \\d+\tCommittedOffset: \\d+\tAppliedOffset: \\d+"), lines.get(0));
            for (int id = 1; id <= 3; id++) {
                TidelineNode node = cluster.node(id);
                String line = lines.get(id);
                assertTrue(line.startsWith("\tBroker: " + id + "\tState: RUNNING\tRack: -\tEndpoint: 127.0.0.1:"
                        + cluster.clientPort(id) + "\tQuorumAddress: 127.0.0.1:"), line);
                assertTrue(line.contains("\tMetrics: http://127.0.0.1:" + node.metricsPort().orElseThrow() + "/metrics\t"),
                        line);
                String heartbeat = line.replaceAll(".*\tLastHeartbeat: ", "");
                Instant.parse(heartbeat); // ISO-8601
                assertTrue(line.matches(".*\tMetadataOffset: \\d+\tLastHeartbeat: .*"), line);
            }

            JsonObject json = describeJson(bootstrap);
            assertEquals("tideline", json.get("clusterId").getAsString());
            assertEquals(leader, json.get("controllerId").getAsInt());
            assertEquals("NONE", json.get("error").getAsString());
            assertNumber(json.get("controllerTerm"));
            assertNumber(json.get("committedOffset"));
            assertTrue(json.get("appliedOffset").getAsLong() <= json.get("committedOffset").getAsLong(), json.toString());
            JsonArray brokers = json.getAsJsonArray("brokers");
            assertEquals(3, brokers.size());
            for (JsonElement e : brokers) {
                JsonObject b = e.getAsJsonObject();
                assertEquals("RUNNING", b.get("state").getAsString());
                assertEquals(false, b.get("fenced").getAsBoolean());
                assertEquals(cluster.clientPort(b.get("id").getAsInt()), b.get("port").getAsInt());
                assertNumber(b.get("metadataOffset"));
                assertTrue(b.get("lastHeartbeatMs").getAsLong() > 0, b.toString());
            }

            // The controller's node stops: another voter leads, and the stopped broker shows as fenced.
            cluster.stop(leader);
            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                JsonObject after = describeJson(bootstrap);
                int newLeader = quorumLeader(cluster);
                assertNotEquals(leader, newLeader);
                assertEquals(newLeader, after.get("controllerId").getAsInt(), after.toString());
                JsonObject stopped = broker(after, leader);
                assertEquals("FENCED", stopped.get("state").getAsString(), after.toString());
                assertTrue(stopped.get("fenced").getAsBoolean());
            });
            Result fenced = admin("--bootstrap-server", bootstrap, "cluster", "--describe");
            assertEquals(0, fenced.exitCode(), fenced.toString());
            assertTrue(fenced.outLines().stream().anyMatch(l -> l.startsWith("\tBroker: " + leader + "\tState: FENCED\t")),
                    fenced.toString());
        }
    }

    private static JsonObject describeJson(String bootstrap) {
        Result r = admin("--bootstrap-server", bootstrap, "--output", "json", "cluster", "--describe");
        assertEquals(0, r.exitCode(), r.toString());
        assertEquals(1, r.outLines().size(), r.toString());
        return JsonParser.parseString(r.out()).getAsJsonObject();
    }

    private static JsonObject broker(JsonObject described, int id) {
        for (JsonElement e : described.getAsJsonArray("brokers")) {
            if (e.getAsJsonObject().get("id").getAsInt() == id) {
                return e.getAsJsonObject();
            }
        }
        throw new AssertionError("no broker " + id + " in " + described);
    }

    private static void assertNumber(JsonElement e) {
        assertTrue(e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber(), "not a number: " + e);
    }

    /** The Raft leader as the running voters know it (all of them agree once a leader is elected). */
    private static int quorumLeader(NodeTestCluster cluster) {
        return cluster.running().stream().filter(n -> n.quorum().orElseThrow().isLeader()).findFirst()
                .orElseThrow(() -> new AssertionError("no quorum leader among the running nodes")).nodeId();
    }
}
