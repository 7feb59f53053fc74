package io.tideline.cluster.scripts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.testsupport.ports.Ports;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/demo-follower-lag.sh} beside a running {@code scripts/cluster.sh} cluster, as the README offers:
 * both with their default port layouts, shifted together by one free offset (each script's defaults, read from
 * the scripts themselves, keep their distances), and a {@code JMX_PORT} in the demo's environment on a port that
 * is taken. The demo completes, tells its story in the sentences a reader needs, and leaves the cluster beside it
 * serving. With one of its ports taken, it says which one before any node starts, and reports no node started.
 *
 * <p>The story it tells, checked in its output: follower 3 FAILED below the leader's log start offset on both
 * topics, both partitions under-replicated, the reassignment to node 4 completed, the rebuild in place brought
 * replica 3 back IN_SYNC, and no partition is under-replicated at the end.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "cluster.sh is a bash script that reads /proc")
class DemoBesideClusterTest {
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static final Pattern CLUSTER_DEFAULT = Pattern.compile("(TIDELINE_[A-Z]+_PORT_BASE):-(\\d+)");
    private static final Pattern DEMO_DEFAULT = Pattern.compile("TIDELINE_DEMO_PORT_BASE:-(\\d+)");
    /** The demo's ports from its base, as its header states: gRPC +90+i, quorum +190+i, metrics +290+i, Kafka +390+i. */
    private static final int[] DEMO_OFFSETS = {90, 190, 290, 390};
    private static final int CLUSTER_NODES = 3;
    private static final int DEMO_NODES = 4;
    private static final long CLUSTER_START_SECONDS = 150;
    /** The demo's own bounds add up to about 2 minutes of steps on a quiet machine; this one only stops a hang. */
    private static final long DEMO_MINUTES = 8;

    @TempDir
    Path dir;

    private final Map<String, Integer> clusterBases = new TreeMap<>();
    private int demoBase;

    @AfterEach
    void stopWhatWasStarted() throws Exception {
        if (!clusterBases.isEmpty()) {
            Result stop = run(clusterEnv(), 90, "bash", script("cluster.sh"), "stop");
            assertEquals(0, stop.exitCode(), stop.toString());
        }
        // Ended by pid, and only while the command line still names this test's directories.
        for (Path pidFile : pidFiles()) {
            long pid = Long.parseLong(Files.readString(pidFile).strip());
            ProcessHandle.of(pid).filter(this::isOurs).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void theDemoRunsToItsEndBesideARunningClusterAndNarratesWhatEachStepShows() throws Exception {
        reserveDefaultLayoutsShifted();
        Result start = run(clusterEnv(), CLUSTER_START_SECONDS, "bash", script("cluster.sh"), "start",
                String.valueOf(CLUSTER_NODES));
        assertEquals(0, start.exitCode(), start.toString());

        try (ServerSocket jmx = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Map<String, String> demoEnv = demoEnv();
            // Kafka's JMX_PORT of the cluster beside it, here a port that is taken: the demo's nodes must not use it.
            demoEnv.put("JMX_PORT", String.valueOf(jmx.getLocalPort()));
            Result demo = run(demoEnv, TimeUnit.MINUTES.toSeconds(DEMO_MINUTES), "bash", script("demo-follower-lag.sh"));
            String out = demo.stdout();
            assertEquals(0, demo.exitCode(), demo.toString());

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
            // Step 4a: the replica moved to node 4 and caught up; 4b: replica 3 rebuilt in place.
            assertTrue(out.contains("Successfully started partition reassignment for lag-demo-0"), out);
            assertTrue(out.contains("Clearing topic-level throttles on topic lag-demo"), out);
            assertTrue(Pattern.compile("Replica: 4\tState: IN_SYNC").matcher(out).find(), out);
            String afterRebuild = out.substring(out.indexOf("Rebuild of replica 3 of rebuild-demo-0 started"));
            assertTrue(Pattern.compile("Replica: 3\tState: IN_SYNC").matcher(afterRebuild).find(), out);
            assertFalse(out.contains("Exception"), out);

            for (int node = 1; node <= DEMO_NODES; node++) {
                assertTrue(out.contains("node " + node + ": started"), out);
                assertTrue(out.contains("node " + node + "'s /metrics: UnderReplicatedPartitions 0"), out);
                assertTrue(out.contains("node " + node + ": stopped"), out);
            }
            assertTrue(out.contains("each replica runs its own retention"), out);
            assertTrue(out.contains("the leader answered OFFSET_OUT_OF_RANGE"), out);
            assertTrue(out.contains("Reason: OUT_OF_RANGE"), out);
            assertTrue(out.contains("Reassignment of partition lag-demo-0 is completed."), out);
            assertTrue(out.contains("replica 3 of rebuild-demo-0 is IN_SYNC again"), out);
            assertTrue(out.contains("every partition has its full ISR again"), out);
            assertFalse(Pattern.compile("\\bPT\\d").matcher(out).find(), "durations as people write them:\n" + out);
            assertFalse(out.contains("Address already in use"), out);
        }

        // The demo stopped every node it started, and the cluster beside it was not touched: every node still serves.
        for (Path pidFile : pidFiles()) {
            assertFalse(pidFile.startsWith(dir.resolve("demo")), "the demo left " + pidFile);
        }
        // The cluster beside it was not touched: every node still serves.
        Result status = run(clusterEnv(), 60, "bash", script("cluster.sh"), "status");
        assertEquals(0, status.exitCode(), status.toString());
        for (int node = 1; node <= CLUSTER_NODES; node++) {
            assertTrue(Pattern.compile("(?m)^" + node + "\\s+serving\\s").matcher(status.stdout()).find(), status.toString());
        }
    }

    @Test
    void aTakenPortIsNamedBeforeAnyNodeStartsAndNoNodeIsReportedStarted() throws Exception {
        reserveDefaultLayoutsShifted();
        clusterBases.clear(); // no cluster in this one
        int kafkaOfNode1 = demoBase + 390 + 1;
        try (ServerSocket taken = new ServerSocket(kafkaOfNode1, 1, InetAddress.getByName("127.0.0.1"))) {
            Result demo = run(demoEnv(), 60, "bash", script("demo-follower-lag.sh"));
            assertNotEquals(0, demo.exitCode(), demo.toString());
            assertTrue(demo.stderr().contains("127.0.0.1:" + kafkaOfNode1 + " (node 1's Kafka listener)"), demo.toString());
            assertFalse(demo.stdout().contains(": started"), demo.toString());
            assertTrue(pidFiles().isEmpty(), "no node was launched: " + pidFiles());
        }
    }

    /**
     * One shift for both scripts' default layouts, such that every port of the cluster (its four bases) and of the
     * demo (its base plus four offsets) is reserved on 127.0.0.1.
     */
    private void reserveDefaultLayoutsShifted() throws IOException {
        Map<String, Integer> defaults = new TreeMap<>();
        Matcher m = CLUSTER_DEFAULT.matcher(Files.readString(REPO.resolve("scripts/cluster.sh")));
        while (m.find()) {
            defaults.put(m.group(1), Integer.parseInt(m.group(2)));
        }
        assertEquals(4, defaults.size(), "cluster.sh's four port bases: " + defaults);
        Matcher d = DEMO_DEFAULT.matcher(Files.readString(REPO.resolve("scripts/demo-follower-lag.sh")));
        assertTrue(d.find(), "the demo's default port base");
        int demoDefault = Integer.parseInt(d.group(1));

        int lowest = defaults.values().stream().mapToInt(Integer::intValue).min().orElseThrow();
        List<Integer> offsets = new ArrayList<>();
        defaults.values().forEach(b -> offsets.add(b - lowest));
        for (int o : DEMO_OFFSETS) {
            offsets.add(demoDefault + o - lowest);
        }
        int base = Ports.base(DEMO_NODES, offsets.stream().mapToInt(Integer::intValue).toArray());
        int shift = base - lowest;
        defaults.forEach((name, b) -> clusterBases.put(name, b + shift));
        demoBase = demoDefault + shift;
    }

    private Map<String, String> clusterEnv() {
        Map<String, String> env = commonEnv();
        env.put("TIDELINE_CLUSTER_DIR", dir.resolve("cluster").toString());
        clusterBases.forEach((name, base) -> env.put(name, String.valueOf(base)));
        return env;
    }

    private Map<String, String> demoEnv() {
        Map<String, String> env = commonEnv();
        env.put("TIDELINE_DEMO_DIR", dir.resolve("demo").toString());
        env.put("TIDELINE_DEMO_PORT_BASE", String.valueOf(demoBase));
        // The cluster's bases in the demo's environment too, as in a shell that started the cluster: the demo's own win.
        clusterBases.forEach((name, base) -> env.put(name, String.valueOf(base)));
        return env;
    }

    private static Map<String, String> commonEnv() {
        Map<String, String> env = new HashMap<>();
        env.put("TIDELINE_CLASSPATH", System.getProperty("java.class.path"));
        // Seven node JVMs and the tools next to this one on two cores: small heaps, a JIT that starts fast.
        env.put("JAVA_OPTS", "-Xmx200m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
        return env;
    }

    private List<Path> pidFiles() throws IOException {
        List<Path> files = new ArrayList<>();
        for (String cluster : List.of("cluster", "demo")) {
            Path clusterDir = dir.resolve(cluster);
            if (Files.isDirectory(clusterDir)) {
                try (var list = Files.list(clusterDir)) {
                    list.filter(p -> p.getFileName().toString().matches("node-\\d+\\.pid")).forEach(files::add);
                }
            }
        }
        return files;
    }

    private boolean isOurs(ProcessHandle p) {
        try {
            String cmdline = new String(Files.readAllBytes(Path.of("/proc", String.valueOf(p.pid()), "cmdline")),
                    StandardCharsets.UTF_8);
            return p.isAlive() && cmdline.contains(dir.toString());
        } catch (IOException e) {
            return false;
        }
    }

    private static String script(String name) {
        return REPO.resolve("scripts").resolve(name).toString();
    }

    private record Result(int exitCode, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr;
        }
    }

    /** Runs a script with a bound; past it, the script and its descendants are killed and the test fails. */
    private Result run(Map<String, String> env, long atMostSeconds, String... command) throws Exception {
        Path out = Files.createTempFile(dir, "run", ".out");
        Path err = Files.createTempFile(dir, "run", ".err");
        ProcessBuilder pb = new ProcessBuilder(command).directory(REPO.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        try {
            if (!p.waitFor(atMostSeconds, TimeUnit.SECONDS)) {
                throw new AssertionError("still running after " + atMostSeconds + " s: " + String.join(" ", command)
                        + "\n" + Files.readString(out) + Files.readString(err));
            }
            return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }
}
