package io.tideline.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.testsupport.ports.Ports;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@code scripts/demo-follower-lag.sh} for real (4 node processes through cluster.sh, from this test's
 * class path) and checks that the story it tells happened: follower 3 FAILED below the leader's log start
 * offset on both topics, both partitions under-replicated, the reassignment to node 4 completed, the rebuild
 * in place brought replica 3 back IN_SYNC, and no partition is under-replicated at the end; and that it left
 * no node running. Its own directory and ports, so a developer's cluster is not touched.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "cluster.sh is a bash script that reads /proc")
class DemoFollowerLagScriptTest {
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent().getParent();
    private static final int NODES = 4;
    /** The script's own bound is about 2 minutes of steps; this one only keeps a hung run from hanging CI. */
    private static final long TIMEOUT_MINUTES = 6;

    @TempDir
    Path dir;

    @AfterEach
    void killWhatIsLeft() throws IOException {
        for (long pid : recordedPids()) {
            ProcessHandle.of(pid).filter(this::isOurNode).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void theFollowerFallsPastRetentionFailsAndIsHealedByAReassignmentAndARebuild() throws Exception {
        // The script puts clients at base+90+i, quorum at base+190+i and metrics at base+290+i; Kafka's protocol
        // gets a range of its own (four ranges at fixed distances are hard to find free late in a long test run).
        int base = Ports.base(NODES, 90, 190, 290);
        int kafkaBase = Ports.base(NODES);
        Path output = dir.resolve("demo.out");
        ProcessBuilder pb = new ProcessBuilder("bash", REPO.resolve("scripts/demo-follower-lag.sh").toString())
                .directory(REPO.toFile()).redirectErrorStream(true).redirectOutput(output.toFile());
        pb.environment().put("TIDELINE_DEMO_DIR", clusterDir().toString());
        pb.environment().put("TIDELINE_DEMO_PORT_BASE", String.valueOf(base));
        pb.environment().put("TIDELINE_DEMO_KAFKA_PORT_BASE", String.valueOf(kafkaBase));
        pb.environment().put("TIDELINE_CLASSPATH", System.getProperty("java.class.path"));
        // Four node JVMs and the tools next to this one on two cores: small heaps, a JIT that starts fast.
        pb.environment().put("JAVA_OPTS", "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
        Process p = pb.start();
        p.getOutputStream().close();
        try {
            assertTrue(p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES), "the demo still runs after " + TIMEOUT_MINUTES
                    + " min:\n" + read(output));
        } finally {
            p.destroyForcibly();
        }
        String out = read(output);
        assertEquals(0, p.exitValue(), out);

        // Step 3: the follower's fetch fell below the leader's log start offset, on both topics.
        for (String topic : List.of("lag-demo", "rebuild-demo")) {
            assertTrue(Pattern.compile("Topic: " + topic + "\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2\t"
                    + "Failed: 3 \\(fetch offset \\d+ is below the leader's log start offset \\d+").matcher(out).find(), out);
        }
        Matcher failed = Pattern.compile("Replica: 3\tState: FAILED\tSince: \\d{4}-\\d\\d-\\d\\dT[^\t]+Z\tLogEndOffset: "
                + "(\\d+)\tReason: fetch offset \\1 is below the leader's log start offset (\\d+)").matcher(out);
        assertTrue(failed.find(), out);
        assertTrue(Long.parseLong(failed.group(2)) > Long.parseLong(failed.group(1)), failed.group());
        assertTrue(out.contains("node 1's /metrics: UnderReplicatedPartitions 2"), out);
        assertTrue(out.contains("Reason: OUT_OF_RANGE"), out);

        // Step 4a: the replica moved to node 4 and caught up; 4b: replica 3 rebuilt in place.
        assertTrue(out.contains("Successfully started partition reassignment for lag-demo-0"), out);
        assertTrue(out.contains("Reassignment of partition lag-demo-0 is completed."), out);
        assertTrue(out.contains("Clearing topic-level throttles on topic lag-demo"), out);
        assertTrue(Pattern.compile("Replica: 4\tState: IN_SYNC").matcher(out).find(), out);
        assertTrue(out.contains("Rebuild of replica 3 of rebuild-demo-0 started"), out);
        String afterRebuild = out.substring(out.indexOf("Rebuild of replica 3 of rebuild-demo-0 started"));
        assertTrue(Pattern.compile("Replica: 3\tState: IN_SYNC").matcher(afterRebuild).find(), out);

        // The end: healed everywhere, and nothing left running.
        for (int node = 1; node <= NODES; node++) {
            assertTrue(out.contains("node " + node + "'s /metrics: UnderReplicatedPartitions 0"), out);
            assertTrue(out.contains("node " + node + ": stopped"), out);
        }
        assertFalse(out.contains("Exception"), out);
        for (long pid : recordedPids()) {
            assertFalse(ProcessHandle.of(pid).filter(this::isOurNode).isPresent(), "node pid " + pid + " still runs");
        }
    }

    private Path clusterDir() {
        return dir.resolve("demo");
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    private List<Long> recordedPids() throws IOException {
        List<Long> pids = new ArrayList<>();
        for (int i = 1; i <= NODES; i++) {
            Path file = clusterDir().resolve("node-" + i + ".pid");
            if (Files.exists(file)) {
                pids.add(Long.parseLong(Files.readString(file).strip()));
            }
        }
        return pids;
    }

    /** A live process whose command line names this test's cluster directory (not a reused pid). */
    private boolean isOurNode(ProcessHandle p) {
        try {
            String cmdline = new String(Files.readAllBytes(Path.of("/proc", String.valueOf(p.pid()), "cmdline")),
                    StandardCharsets.UTF_8);
            return p.isAlive() && cmdline.contains(clusterDir().toString());
        } catch (IOException e) {
            return false;
        }
    }
}
