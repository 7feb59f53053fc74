package io.tideline.tools.cli;

import static io.tideline.tools.cli.CliRun.admin;
import static io.tideline.tools.cli.CliRun.produce;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        // Node 2 fetches throttled partitions at 4 KB/s: the LAGGING case throttles one of its replicas.
        cluster = new NodeTestCluster(dir, 3, Map.of()).withNodeOverride(2, "follower.replication.throttled.rate", 4_000)
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
            Files.writeString(offsets, "{\"partitions\":[{\"topic\":\"halted\",\"partition\":0,\"offset\":-1}],\"version\":1}");
            Result deleted = admin("--bootstrap-server", bootstrap, "delete-records", "--offset-json-file",
                    offsets.toString());
            assertEquals(0, deleted.exitCode(), deleted.toString());

            cluster.restart(3);
            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                PartitionReplicas p = describe(client, HALTED);
                ReplicaDescription r3 = replica(p, 3);
                assertEquals(ReplicaState.FAILED, r3.state(), p.toString());
                assertTrue(r3.reason().startsWith("fetch offset 20 is below the leader's log start offset 120"),
                        r3.reason());
                assertEquals(new ReplicaDescription.Failure(20, 120, 120), r3.failure().orElseThrow());
                assertTrue(r3.sinceMs() > 0, r3.toString());
                assertEquals(120, p.logStartOffset());
                assertTrue(p.isrHistory().stream().anyMatch(c -> c.reason().equals("OUT_OF_RANGE")), p.toString());
            });
        }
    }

    private static String lines(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> "record-" + i + "\n").collect(Collectors.joining());
    }
}
