package io.tideline.cluster.kafkatools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * kcat (Debian's, on librdkafka) producing to a topic that does not exist yet, against {@code scripts/cluster.sh}
 * clusters of real node processes (docs/behaviours.md B240-B241): with {@code auto.create.topics.enable=true} the
 * records land in a topic of the brokers' num.partitions and default.replication.factor, and a consumer reads them
 * all; with {@code false} kcat fails with "Unknown topic or partition" and no topic is created.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "cluster.sh is a bash script that reads /proc")
class KcatAutoCreateTopicsTest {
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static final Duration TOOL = Duration.ofSeconds(90);
    private static final List<String> RECORDS = IntStream.range(0, 20).mapToObj(i -> "record-" + i).toList();

    @TempDir
    Path dir;

    private static String kcat() {
        Path kcat = Path.of("/usr/bin/kcat");
        assertTrue(Files.isExecutable(kcat), "this test needs Debian's kcat: apt-get install kcat");
        return kcat.toString();
    }

    private ChildProcess.Result kcat(ChildProcess tools, Path stdin, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(kcat()));
        command.addAll(List.of(args));
        return tools.run(TOOL, command, stdin);
    }

    private Path records() throws IOException {
        return Files.write(dir.resolve("records.txt"), RECORDS);
    }

    @Test
    void withTheKeyTrueTheFirstProduceCreatesTheTopicAndItsRecordsLand() throws Exception {
        ScriptCluster cluster = new ScriptCluster(REPO, dir, 3, Map.of("auto.create.topics.enable", "true",
                "num.partitions", "2", "default.replication.factor", "2"));
        List<Long> pids = List.of();
        try {
            pids = cluster.startAndRecordPids();
            ChildProcess tools = new ChildProcess(REPO, Files.createDirectories(dir.resolve("kcat-outputs")), Map.of());
            String bootstrap = "127.0.0.1:" + cluster.kafkaPort(1);

            ChildProcess.Result produced = kcat(tools, records(), "-b", bootstrap, "-P", "-t", "fresh");
            produced.assertSucceeded();
            assertFalse(produced.stderr().contains("ERROR"), produced.toString());

            ChildProcess.Result consumed = kcat(tools, null, "-b", bootstrap, "-C", "-t", "fresh", "-o", "beginning",
                    "-e", "-q", "-f", "%s\\n");
            consumed.assertSucceeded();
            assertEquals(RECORDS, consumed.stdout().lines().sorted(KcatAutoCreateTopicsTest::byNumber).toList(),
                    consumed.toString());

            ChildProcess.Result described = cluster.tideline(TOOL, "admin", "--bootstrap-server",
                    cluster.grpcBootstrap(), "topics", "--describe", "--topic", "fresh").assertSucceeded();
            assertTrue(described.stdout().contains("PartitionCount: 2\tReplicationFactor: 2"), described.toString());
        } finally {
            cluster.stopLeavingNothing(pids);
        }
    }

    @Test
    void withTheKeyFalseKcatFailsWithUnknownTopicAndNothingIsCreated() throws Exception {
        ScriptCluster cluster = new ScriptCluster(REPO, dir, 1, Map.of("auto.create.topics.enable", "false"));
        List<Long> pids = List.of();
        try {
            pids = cluster.startAndRecordPids();
            ChildProcess tools = new ChildProcess(REPO, Files.createDirectories(dir.resolve("kcat-outputs")), Map.of());
            String bootstrap = "127.0.0.1:" + cluster.kafkaPort(1);

            // librdkafka waits topic.metadata.propagation.max.ms (30 s by default) for a topic to appear before it
            // fails the records; 5 s keeps the test short without changing the outcome.
            ChildProcess.Result produced = kcat(tools, records(), "-b", bootstrap, "-P", "-t", "absent",
                    "-X", "topic.metadata.propagation.max.ms=5000");
            assertNotEquals(0, produced.exitCode(), produced.toString());
            assertTrue(produced.stderr().contains("Unknown topic or partition"), produced.toString());

            ChildProcess.Result listed = cluster.tideline(TOOL, "admin", "--bootstrap-server", cluster.grpcBootstrap(),
                    "topics", "--list").assertSucceeded();
            assertFalse(listed.stdout().lines().anyMatch("absent"::equals), listed.toString());
        } finally {
            cluster.stopLeavingNothing(pids);
        }
    }

    private static int byNumber(String a, String b) {
        return Integer.compare(Integer.parseInt(a.substring(a.indexOf('-') + 1)),
                Integer.parseInt(b.substring(b.indexOf('-') + 1)));
    }
}
