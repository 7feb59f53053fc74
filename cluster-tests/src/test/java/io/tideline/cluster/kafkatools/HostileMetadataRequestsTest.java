package io.tideline.cluster.kafkatools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition count no cluster can hold, asked for with Kafka 4.4's own TopicCommand against a 3-node
 * {@code scripts/cluster.sh} cluster: the create and the alter are refused with POLICY_VIOLATION and Kafka's
 * message, nothing reaches the metadata log that a voter cannot apply, and afterwards every node lives and serves
 * (docs/behaviours.md B100-B104).
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "cluster.sh is a bash script that reads /proc")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileMetadataRequestsTest {
    private static final int NODES = 3;
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    /** A tool's whole run, JVM start included; the admin client inside gives up after 30 s. */
    private static final Duration TOOL = Duration.ofSeconds(60);
    private static final String REFUSAL = "Excessively large number of partitions per request";

    @TempDir
    static Path dir;

    private ScriptCluster cluster;
    private KafkaTools kafka;
    private List<Long> nodePids = List.of();
    private String bootstrap;
    private Path adminConfig;

    @BeforeAll
    void startCluster() throws Exception {
        cluster = new ScriptCluster(REPO, dir, NODES);
        kafka = KafkaTools.fromBuild(REPO, dir, new ChildProcess(REPO, Files.createDirectories(dir.resolve("tools")),
                Map.of()));
        nodePids = cluster.startAndRecordPids();
        bootstrap = cluster.kafkaBootstrap();
        adminConfig = Files.writeString(dir.resolve("admin.properties"),
                "default.api.timeout.ms=30000\nrequest.timeout.ms=15000\n");
    }

    @AfterAll
    void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.stopLeavingNothing(nodePids);
        }
    }

    @Test
    void hugePartitionCountsArePolicyViolationsAndEveryNodeServesAfterwards() throws Exception {
        ChildProcess.Result create = topics("--create", "--topic", "huge", "--partitions", "2147483647",
                "--replication-factor", "1");
        assertNotEquals(0, create.exitCode(), create.toString());
        assertTrue(output(create).contains("PolicyViolationException") && output(create).contains(REFUSAL),
                create.toString());

        topics("--create", "--topic", "small", "--partitions", "1", "--replication-factor", "3").assertSucceeded();
        ChildProcess.Result alter = topics("--alter", "--topic", "small", "--partitions", "2147483647");
        assertNotEquals(0, alter.exitCode(), alter.toString());
        assertTrue(output(alter).contains("PolicyViolationException") && output(alter).contains(REFUSAL),
                alter.toString());
        ChildProcess.Result justOverTheRequestBound = topics("--alter", "--topic", "small", "--partitions", "10002");
        assertNotEquals(0, justOverTheRequestBound.exitCode(), justOverTheRequestBound.toString());
        assertTrue(output(justOverTheRequestBound).contains(REFUSAL), justOverTheRequestBound.toString());

        for (long pid : nodePids) {
            assertTrue(cluster.isOurNode(pid), "node process " + pid + " died");
        }
        Awaitility.await("every node serving").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> {
                    ChildProcess.Result status = cluster.clusterSh(Duration.ofSeconds(60), "status").assertSucceeded();
                    for (int node = 1; node <= NODES; node++) {
                        assertTrue(Pattern.compile("(?m)^" + node + "\\s+serving\\s").matcher(status.stdout()).find(),
                                status.toString());
                    }
                });

        // The cluster still does its job: a topic created, written and read back through the Kafka listener.
        topics("--create", "--topic", "after", "--partitions", "1", "--replication-factor", "3").assertSucceeded();
        List<String> values = List.of("one", "two", "three");
        Path input = Files.writeString(dir.resolve("after.txt"), String.join("\n", values) + "\n");
        cluster.tidelineWithInput(TOOL, input, "produce", "--bootstrap-server", cluster.grpcBootstrap(), "--topic",
                "after", "--partition", "0", "--acks", "all").assertSucceeded();
        ChildProcess.Result consumed = kafka.run(TOOL, KafkaTools.CONSOLE_CONSUMER, "--bootstrap-server", bootstrap,
                "--topic", "after", "--partition", "0", "--offset", "earliest", "--max-messages", "3",
                "--timeout-ms", "30000").assertSucceeded();
        assertEquals(values, consumed.stdout().lines().toList(), consumed.toString());
        ChildProcess.Result described = topics("--describe", "--topic", "small").assertSucceeded();
        assertTrue(described.stdout().contains("PartitionCount: 1\t"), described.toString());
    }

    /** TopicCommand prints its error line on stdout and the exception on stderr; either will do. */
    private static String output(ChildProcess.Result r) {
        return r.stdout() + r.stderr();
    }

    private ChildProcess.Result topics(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", bootstrap, "--command-config",
                adminConfig.toString()));
        all.addAll(List.of(args));
        return kafka.run(TOOL, KafkaTools.TOPIC_COMMAND, all.toArray(String[]::new));
    }
}
