package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.TidelineAdmin;
import io.tideline.client.TopicDescription;
import io.tideline.node.quorum.LeaderBalancer;
import io.tideline.node.testutil.LogCapture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Automatic preferred-leader balancing on three nodes in one JVM (docs/behaviours.md B63): a node's
 * leaderships move away when it stops and come back to it after its restart, within a short check
 * interval, without an operator's election.
 */
class LeaderBalancingTest {
    @TempDir
    Path dir;

    @Test
    void leadershipReturnsToARestartedNodeWithinTheCheckInterval() throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 3,
                Map.of("leader.imbalance.check.interval.seconds", 1)).startAll();
             TidelineAdmin admin = new TidelineAdmin(Map.of("bootstrap.servers", cluster.bootstrapServers()));
             LogCapture logs = new LogCapture()) {
            // One partition preferred by each node.
            assertTrue(admin.createTopic("balanced", Map.of(0, List.of(1, 2, 3), 1, List.of(2, 3, 1),
                    2, List.of(3, 1, 2)), Map.of()).isSuccess());
            Map<Integer, Integer> preferred = Map.of(0, 1, 1, 2, 2, 3);
            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertEquals(preferred, leaders(admin)));

            cluster.stop(2);
            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertNotEquals(2, leaders(admin).get(1)));

            cluster.restart(2);
            // Back in the ISR after catching up, then the next round (every second) elects it again.
            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertEquals(preferred, leaders(admin)));
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertTrue(logs.messagesOf(LeaderBalancer.class).stream()
                            .anyMatch(m -> m.startsWith("Leader balancing: preferred leaders elected for 1 partitions (balanced-1)")),
                            logs.messagesOf(LeaderBalancer.class).toString()));
        }
    }

    private static Map<Integer, Integer> leaders(TidelineAdmin admin) {
        Map<Integer, Integer> leaders = new TreeMap<>();
        TopicDescription t = admin.describeTopics(List.of("balanced")).get(0);
        t.partitions().forEach(p -> leaders.put(p.partition(), p.leader()));
        return leaders;
    }
}
