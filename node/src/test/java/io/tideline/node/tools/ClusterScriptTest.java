package io.tideline.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drives {@code scripts/cluster.sh} end to end as a user would: start 3 nodes, status, stop, and no process
 * left. The nodes run from this test's class path ({@code TIDELINE_CLASSPATH}), so the test needs no
 * packaged jars, and on ports and a directory of its own, so a cluster a developer runs is not touched.
 *
 * <p>To extend (create a topic, produce, consume, delete records through {@code scripts/tideline}): call
 * {@link #tideline} between start and stop with {@link #bootstrapServer()}.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "cluster.sh is a bash script that reads /proc")
class ClusterScriptTest {
    private static final int NODES = 3;
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();

    @TempDir
    Path dir;

    private Path clusterDir;
    private int clientPortBase;
    private int quorumPortBase;
    private int metricsPortBase;

    /** A finished command: exit code and everything it printed (stdout then stderr interleaved). */
    record Result(int exitCode, String output) {
        Result assertSucceeded() {
            assertEquals(0, exitCode, output);
            return this;
        }
    }

    @BeforeEach
    void pickPortsAndDir() {
        clusterDir = dir.resolve("cluster");
        clientPortBase = freePortRange(3 * NODES);
        quorumPortBase = clientPortBase + NODES;
        metricsPortBase = quorumPortBase + NODES;
        assertTrue(Files.isExecutable(REPO.resolve("scripts/cluster.sh")), "run from the node module of the repository");
    }

    @AfterEach
    void killWhatIsLeft() throws IOException {
        // Even when the test failed half-way: every pid cluster.sh recorded, only if it is still our node.
        for (long pid : recordedPids()) {
            ProcessHandle.of(pid).filter(this::isOurNode).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void startStatusStopLeavesNoProcessBehind() throws Exception {
        Result start = clusterSh(Duration.ofSeconds(150), "start", String.valueOf(NODES)).assertSucceeded();
        assertTrue(start.output().contains("cluster of 3 nodes serving; bootstrap server " + bootstrapServer()),
                start.output());
        List<Long> pids = recordedPids();
        assertEquals(NODES, pids.size(), start.output());
        for (long pid : pids) {
            assertTrue(ProcessHandle.of(pid).map(this::isOurNode).orElse(false), "node process " + pid + " runs");
        }

        Result status = clusterSh(Duration.ofSeconds(30), "status").assertSucceeded();
        for (int i = 1; i <= NODES; i++) {
            assertTrue(Pattern.compile("(?m)^" + i + "\\s+serving\\s+" + pids.get(i - 1) + "\\s+127\\.0\\.0\\.1:"
                    + (clientPortBase + i) + "\\s+127\\.0\\.0\\.1:" + (quorumPortBase + i) + "$")
                    .matcher(status.output()).find(), status.output());
        }
        assertTrue(Pattern.compile("(?m)^controller: node [1-3] ").matcher(status.output()).find(), status.output());

        assertTrue(status.output().contains("under-replicated partitions:"), status.output());
        usersDayOne();

        Result again = clusterSh(Duration.ofSeconds(30), "start", String.valueOf(NODES)).assertSucceeded();
        assertTrue(again.output().contains("cluster already running"), again.output());
        assertEquals(pids, recordedPids(), "a second start starts nothing");

        Result stop = clusterSh(Duration.ofSeconds(90), "stop").assertSucceeded();
        for (int i = 1; i <= NODES; i++) {
            assertTrue(stop.output().contains("node " + i + ": stopped"), stop.output());
        }
        for (long pid : pids) {
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " left");
        }
        assertEquals(List.of(), recordedPids(), "pid files removed");
        for (int i = 1; i <= NODES; i++) {
            String log = Files.readString(clusterDir.resolve("node-" + i + ".log"), StandardCharsets.UTF_8);
            assertTrue(log.contains("Node " + i + " shut down cleanly"), log);
        }

        Result stopAgain = clusterSh(Duration.ofSeconds(30), "stop").assertSucceeded();
        assertTrue(stopAgain.output().contains("cluster not running"), stopAgain.output());
    }

    @Test
    void badArgumentsAreOneLineAndStartNothing() throws Exception {
        Result bad = clusterSh(Duration.ofSeconds(30), "start", "many");
        assertEquals(2, bad.exitCode(), bad.output());
        assertEquals("cluster.sh: N must be a positive integer, got 'many'", bad.output().strip());
        Result unknown = clusterSh(Duration.ofSeconds(30), "restart");
        assertEquals(2, unknown.exitCode(), unknown.output());
        assertEquals(List.of(), recordedPids());
    }

    @Test
    void helpPrintsTheUsageAndSucceeds() throws Exception {
        for (String help : List.of("help", "-h", "--help")) {
            Result r = clusterSh(Duration.ofSeconds(30), help).assertSucceeded();
            assertTrue(r.output().startsWith("usage: cluster.sh start [N] | stop | status"), r.output());
        }
        Result unknown = clusterSh(Duration.ofSeconds(30), "restart");
        assertEquals(2, unknown.exitCode(), unknown.output());
        assertTrue(unknown.output().startsWith("usage: cluster.sh"), unknown.output());
        assertEquals(List.of(), recordedPids());
    }

    /** What a user does on day one against the script's cluster: topic, produce, consume, delete-records. */
    private void usersDayOne() throws Exception {
        Duration cli = Duration.ofSeconds(60);
        String b = bootstrapServer();
        tideline(cli, "admin", "--bootstrap-server", b, "topics", "--create", "--topic", "orders", "--partitions", "1",
                "--replication-factor", "3", "--config", "min.insync.replicas=2").assertSucceeded();
        Result list = tideline(cli, "admin", "--bootstrap-server", b, "topics", "--list").assertSucceeded();
        assertTrue(list.output().lines().anyMatch("orders"::equals), list.output());

        tidelineWithInput(cli, "order-1\norder-2\norder-3\norder-4\norder-5\n", "produce", "--bootstrap-server", b,
                "--topic", "orders", "--acks", "all").assertSucceeded();
        Result consumed = tideline(cli, "consume", "--bootstrap-server", b, "--topic", "orders", "--from-beginning",
                "--max-messages", "5", "--print-offsets").assertSucceeded();
        for (int i = 0; i < 5; i++) {
            assertTrue(consumed.output().lines().anyMatch(("" + i + "\torder-" + (i + 1))::equals), consumed.output());
        }

        Path offsets = dir.resolve("offsets.json");
        Files.writeString(offsets, "{\"partitions\":[{\"topic\":\"orders\",\"partition\":0,\"offset\":3}],\"version\":1}");
        Result deleted = tideline(cli, "admin", "--bootstrap-server", b, "delete-records", "--offset-json-file",
                offsets.toString()).assertSucceeded();
        assertTrue(deleted.output().contains("low_watermark: 3"), deleted.output());

        Result none = tideline(cli, "consume", "--bootstrap-server", b, "--topic", "orders", "--partition", "0",
                "--offset", "0", "--reset", "none", "--timeout-ms", "2000");
        assertEquals(1, none.exitCode(), none.output());
        assertTrue(none.output().contains("orders-0") && none.output().contains("3"), none.output());
    }

    String bootstrapServer() {
        return "127.0.0.1:" + (clientPortBase + 1);
    }

    Result clusterSh(Duration atMost, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", REPO.resolve("scripts/cluster.sh").toString()));
        command.addAll(List.of(args));
        return run(command, atMost);
    }

    /** {@code scripts/tideline <args>} against this test's cluster, e.g. a CLI command with {@link #bootstrapServer()}. */
    Result tideline(Duration atMost, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", REPO.resolve("scripts/tideline").toString()));
        command.addAll(List.of(args));
        return run(command, atMost);
    }

    Result tidelineWithInput(Duration atMost, String stdin, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", REPO.resolve("scripts/tideline").toString()));
        command.addAll(List.of(args));
        Path input = Files.writeString(Files.createTempFile(dir, "stdin", ".txt"), stdin);
        return run(command, atMost, input);
    }

    private Result run(List<String> command, Duration atMost) throws Exception {
        return run(command, atMost, null);
    }

    private Result run(List<String> command, Duration atMost, Path stdin) throws Exception {
        Path output = Files.createTempFile(dir, "command", ".out");
        ProcessBuilder pb = new ProcessBuilder(command).directory(REPO.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        if (stdin != null) {
            pb.redirectInput(stdin.toFile());
        }
        pb.environment().putAll(environment());
        Process p = pb.start();
        if (stdin == null) {
            p.getOutputStream().close();
        }
        try {
            if (!p.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(String.join(" ", command) + " still running after " + atMost + ":\n"
                        + Files.readString(output));
            }
            return new Result(p.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } finally {
            p.destroyForcibly();
        }
    }

    private Map<String, String> environment() {
        Map<String, String> env = new HashMap<>();
        env.put("TIDELINE_CLUSTER_DIR", clusterDir.toString());
        env.put("TIDELINE_CLIENT_PORT_BASE", String.valueOf(clientPortBase));
        env.put("TIDELINE_QUORUM_PORT_BASE", String.valueOf(quorumPortBase));
        env.put("TIDELINE_METRICS_PORT_BASE", String.valueOf(metricsPortBase));
        env.put("TIDELINE_CLASSPATH", System.getProperty("java.class.path"));
        // Three JVMs next to this one on two cores: small heaps and a JIT that starts fast.
        env.put("JAVA_OPTS", "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
        return env;
    }

    private List<Long> recordedPids() throws IOException {
        List<Long> pids = new ArrayList<>();
        for (int i = 1; i <= NODES; i++) {
            Path file = clusterDir.resolve("node-" + i + ".pid");
            if (Files.exists(file)) {
                pids.add(Long.parseLong(Files.readString(file).strip()));
            }
        }
        return pids;
    }

    /** A live process whose command line names one of this test's node configs (not a reused pid). */
    private boolean isOurNode(ProcessHandle p) {
        Optional<String> cmdline = readCmdline(p.pid());
        return p.isAlive() && cmdline.map(c -> c.contains(clusterDir.toString())).orElse(false);
    }

    private static Optional<String> readCmdline(long pid) {
        try {
            return Optional.of(new String(Files.readAllBytes(Path.of("/proc", String.valueOf(pid), "cmdline")),
                    StandardCharsets.UTF_8));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** A base b such that b+1 .. b+n are free on the loopback interface. */
    private static int freePortRange(int n) {
        for (int attempt = 0; attempt < 100; attempt++) {
            int base = ThreadLocalRandom.current().nextInt(20_000, 60_000);
            if (allFree(base + 1, n)) {
                return base;
            }
        }
        throw new AssertionError("no " + n + " consecutive free ports found");
    }

    private static boolean allFree(int first, int n) {
        for (int port = first; port < first + n; port++) {
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                s.setReuseAddress(true);
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }
}
