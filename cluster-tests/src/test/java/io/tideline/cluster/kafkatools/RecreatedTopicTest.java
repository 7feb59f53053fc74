package io.tideline.cluster.kafkatools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * A topic deleted and re-created under the same name while one replica's node is down, against a 3-node
 * {@code scripts/cluster.sh} cluster of real node processes: when the node comes back, its directory of the old
 * topic is not adopted as the new topic's log (docs/behaviours.md B130-B132). The node rejoins the ISR, its log
 * of the partition holds the new topic's records only (dumped from its log dir with {@code tideline dump-log}),
 * its old directory is renamed for deletion or gone, and its own log stays small (no truncation loop, B133).
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "cluster.sh is a bash script that reads /proc")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RecreatedTopicTest {
    private static final int NODES = 3;
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static final Duration TOOL = Duration.ofSeconds(60);
    private static final String TOPIC = "st";
    private static final int OLD_RECORDS = 400;
    private static final int NEW_RECORDS = 50;
    /** A restarted node catching up 50 records: seconds. The bound leaves room for two busy cores. */
    private static final Duration REJOIN_BOUND = Duration.ofSeconds(60);
    /**
     * A node's whole log from its start through its catching up: about 100 KB here. A fetcher truncating in a
     * loop writes one line per round, megabytes within the rejoin bound.
     */
    private static final long NODE_LOG_BOUND_BYTES = 1_000_000L;
    private static final Pattern DUMPED_PAYLOAD = Pattern.compile("(?m)^\\| offset: (\\d+) .* payload: (\\S+)$");

    @TempDir
    static Path dir;

    private ScriptCluster cluster;
    private List<Long> nodePids = List.of();

    @BeforeAll
    void startCluster() throws Exception {
        assertTrue(Files.isExecutable(REPO.resolve("scripts/cluster.sh")), "run from the cluster-tests module");
        cluster = new ScriptCluster(REPO, dir, NODES);
        nodePids = cluster.startAndRecordPids();
    }

    @AfterAll
    void stopCluster() throws Exception {
        if (cluster != null) {
            // Node 3 runs under a new pid after its restart: the pid files' pids are checked too.
            cluster.stopLeavingNothing(nodePids);
        }
    }

    @Test
    void aTopicRecreatedWhileAReplicaIsDownReplacesItsOldLog() throws Exception {
        createTopic();
        awaitIsr(Set.of(1, 2, 3), Duration.ofSeconds(60));
        produce(values("old", OLD_RECORDS));
        Path logDir = cluster.clusterDir().resolve("node-3/logs");
        assertEquals(OLD_RECORDS, dumpPayloads(logDir.resolve(TOPIC + "-0")).size(),
                "node 3 holds the old topic's records before it stops");

        cluster.clusterSh(Duration.ofSeconds(90), "stop", "3").assertSucceeded();
        admin("topics", "--delete", "--topic", TOPIC);
        createTopic();
        produce(values("new", NEW_RECORDS));

        cluster.clusterSh(Duration.ofSeconds(150), "start", String.valueOf(NODES)).assertSucceeded();
        Path nodeLog = cluster.clusterDir().resolve("node-3.log");
        try {
            awaitIsr(Set.of(1, 2, 3), REJOIN_BOUND);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("node 3 did not rejoin the ISR of " + TOPIC + "-0 within " + REJOIN_BOUND
                    + "; its log is " + Files.size(nodeLog) + " bytes with " + truncations(nodeLog)
                    + " truncation lines", e);
        }

        List<String> payloads = dumpPayloads(logDir.resolve(TOPIC + "-0"));
        assertEquals(values("new", NEW_RECORDS), payloads, "node 3's " + TOPIC + "-0 holds the new records only");
        try (Stream<Path> children = Files.list(logDir)) {
            List<String> others = children.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith(TOPIC + "-0") && !n.equals(TOPIC + "-0") && !n.endsWith(".deleted"))
                    .toList();
            assertEquals(List.of(), others, "the old directory is gone or renamed for deletion");
        }
        long size = Files.size(nodeLog);
        assertTrue(size < NODE_LOG_BOUND_BYTES, "node 3's log is " + size + " bytes, " + truncations(nodeLog)
                + " truncation lines");
        List<Long> pids = cluster.recordedPids();
        assertEquals(NODES, pids.size(), "every node has a pid file");
        for (long pid : pids) {
            assertTrue(cluster.isOurNode(pid), "node process " + pid + " lives");
        }
    }

    private static List<String> values(String prefix, int n) {
        return IntStream.range(0, n).mapToObj(i -> prefix + "-" + i).toList();
    }

    private void createTopic() throws Exception {
        // Explicit replicas: with node 3 down, placement over the live brokers could not give the topic three.
        admin("topics", "--create", "--topic", TOPIC, "--replica-assignment", "1:2:3");
    }

    private ChildProcess.Result admin(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("admin", "--bootstrap-server", cluster.grpcBootstrap()));
        command.addAll(List.of(args));
        return cluster.tideline(TOOL, command.toArray(String[]::new)).assertSucceeded();
    }

    private void produce(List<String> values) throws Exception {
        Path input = Files.writeString(Files.createTempFile(dir, "records", ".txt"), String.join("\n", values) + "\n");
        cluster.tidelineWithInput(TOOL, input, "produce", "--bootstrap-server", cluster.grpcBootstrap(), "--topic",
                TOPIC, "--partition", "0", "--acks", "all").assertSucceeded();
    }

    private void awaitIsr(Set<Integer> isr, Duration atMost) {
        Awaitility.await("ISR of " + TOPIC + "-0 is " + isr).atMost(atMost).pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> {
                    ChildProcess.Result describe = admin("topics", "--describe", "--topic", TOPIC);
                    KafkaToolsTest.PartitionLine line = KafkaToolsTest.PartitionLine.parse(describe.stdout(), TOPIC)
                            .get(0);
                    assertTrue(line != null && line.isr().equals(isr), describe.toString());
                });
    }

    /** The values of the records in the partition directory's segments, in offset order. */
    private List<String> dumpPayloads(Path partitionDir) throws Exception {
        List<String> files;
        try (Stream<Path> children = Files.list(partitionDir)) {
            files = children.filter(p -> p.getFileName().toString().endsWith(".log")).sorted()
                    .map(Path::toString).toList();
        }
        List<String> args = new ArrayList<>(List.of("dump-log", "--print-data-log", "--files"));
        args.addAll(files);
        ChildProcess.Result dump = cluster.tideline(TOOL, args.toArray(String[]::new)).assertSucceeded();
        List<String> payloads = new ArrayList<>();
        Matcher m = DUMPED_PAYLOAD.matcher(dump.stdout());
        while (m.find()) {
            payloads.add(m.group(2));
        }
        return payloads;
    }

    private static long truncations(Path nodeLog) throws IOException {
        try (Stream<String> lines = Files.lines(nodeLog)) {
            return lines.filter(l -> l.contains("Truncating ")).count();
        }
    }
}
