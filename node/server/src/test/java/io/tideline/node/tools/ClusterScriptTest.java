package io.tideline.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.testsupport.ports.Ports;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drives {@code scripts/cluster.sh} end to end as a user would: start 3 nodes, status, stop, and no process
 * left; and the commands on one node (pause, resume, kill, restart, stop, logs) on one cluster. The nodes run from this test's class path ({@code TIDELINE_CLASSPATH}), so the test needs no
 * packaged jars, and on ports and a directory of its own, so a cluster a developer runs is not touched.
 *
 * <p>To extend (create a topic, produce, consume, delete records through {@code scripts/tideline}): call
 * {@link #tideline} between start and stop with {@link #bootstrapServer()}.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "cluster.sh is a bash script that reads /proc")
class ClusterScriptTest {
    private static final int NODES = 3;
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent().getParent();

    @TempDir
    Path dir;

    private Path clusterDir;
    private int clientPortBase;
    private int quorumPortBase;
    private int metricsPortBase;
    private int kafkaPortBase;

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
        clientPortBase = Ports.base(4 * NODES);
        quorumPortBase = clientPortBase + NODES;
        metricsPortBase = quorumPortBase + NODES;
        kafkaPortBase = metricsPortBase + NODES;
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
        assertTrue(start.output().contains("cluster of 3 nodes serving; Kafka bootstrap server 127.0.0.1:"
                + (kafkaPortBase + 1) + "; gRPC (tideline CLI) bootstrap server " + bootstrapServer()), start.output());
        List<Long> pids = recordedPids();
        assertEquals(NODES, pids.size(), start.output());
        for (long pid : pids) {
            assertTrue(ProcessHandle.of(pid).map(this::isOurNode).orElse(false), "node process " + pid + " runs");
        }

        Result status = clusterSh(Duration.ofSeconds(30), "status").assertSucceeded();
        for (int i = 1; i <= NODES; i++) {
            assertTrue(Pattern.compile("(?m)^" + i + "\\s+serving\\s+" + pids.get(i - 1) + "\\s+127\\.0\\.0\\.1:"
                    + (kafkaPortBase + i) + "\\s+127\\.0\\.0\\.1:" + (clientPortBase + i) + "\\s+127\\.0\\.0\\.1:" + (quorumPortBase + i)
                    + "\\s+http://127\\.0\\.0\\.1:" + (metricsPortBase + i) + "/metrics$")
                    .matcher(status.output()).find(), status.output());
        }
        // The cluster's own view, from admin cluster --describe: the quorum leader, offsets, broker states.
        assertTrue(Pattern.compile("(?m)^controller: node [1-3] \\(the metadata quorum leader, term \\d+\\)$")
                .matcher(status.output()).find(), status.output());
        assertTrue(Pattern.compile("(?m)^metadata offset: \\d+ committed, \\d+ applied by the controller$")
                .matcher(status.output()).find(), status.output());
        assertTrue(Pattern.compile("(?m)^brokers: 1 RUNNING \\(applied \\d+\\), 2 RUNNING \\(applied \\d+\\), "
                + "3 RUNNING \\(applied \\d+\\)$").matcher(status.output()).find(), status.output());
        assertTrue(status.output().contains("\nfenced brokers: none\n"), status.output());
        // Kafka clients' bootstrap.servers: the Kafka listener of the first serving node.
        assertTrue(Pattern.compile("(?m)^kafka bootstrap server: 127\\.0\\.0\\.1:" + (kafkaPortBase + 1) + "$")
                .matcher(status.output()).find(), status.output());
        try (Admin kafkaAdmin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                "127.0.0.1:" + (kafkaPortBase + 1)))) {
            assertEquals(NODES, kafkaAdmin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size());
        }

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
        Result down = clusterSh(Duration.ofSeconds(30), "status").assertSucceeded();
        assertTrue(down.output().strip().endsWith("\ncluster not running"), down.output());
    }

    @Test
    void badArgumentsAreOneLineAndStartNothing() throws Exception {
        Result bad = clusterSh(Duration.ofSeconds(30), "start", "many");
        assertEquals(2, bad.exitCode(), bad.output());
        assertEquals("cluster.sh: N must be a positive integer, got 'many'", bad.output().strip());
        Result unknown = clusterSh(Duration.ofSeconds(30), "frobnicate");
        assertEquals(2, unknown.exitCode(), unknown.output());
        for (String command : List.of("stop", "kill", "restart", "pause", "resume", "logs")) {
            Result noCluster = clusterSh(Duration.ofSeconds(30), command, "1");
            assertEquals(2, noCluster.exitCode(), noCluster.output());
            assertEquals("cluster.sh: no cluster in " + clusterDir + ", so no node '1' (start one with: cluster.sh start [N])",
                    noCluster.output().strip());
        }
        assertEquals(List.of(), recordedPids());
    }

    @Test
    void helpPrintsTheUsageAndSucceeds() throws Exception {
        for (String help : List.of("help", "-h", "--help")) {
            Result r = clusterSh(Duration.ofSeconds(30), help).assertSucceeded();
            assertEquals("usage: cluster.sh start [N] | stop [NODE] | status | kill NODE | restart NODE | pause NODE"
                    + " | resume NODE | logs NODE [-f] | help", r.output().strip());
        }
        Result unknown = clusterSh(Duration.ofSeconds(30), "frobnicate");
        assertEquals(2, unknown.exitCode(), unknown.output());
        assertTrue(unknown.output().startsWith("usage: cluster.sh"), unknown.output());
        assertEquals(List.of(), recordedPids());
    }

    @Test
    void nodeCommandsPauseKillRestartAndStopOneNodeWhileTheOthersServe() throws Exception {
        clusterSh(Duration.ofSeconds(150), "start", String.valueOf(NODES)).assertSucceeded();
        List<Long> pids = recordedPids();
        assertEquals(NODES, pids.size());

        // pause: SIGSTOP, status reads it from /proc; resume: it serves again.
        Result pause = clusterSh(Duration.ofSeconds(30), "pause", "3").assertSucceeded();
        assertTrue(pause.output().startsWith("node 3: paused (pid " + pids.get(2) + ")"), pause.output());
        assertEquals('T', procState(pids.get(2)), "SIGSTOPped");
        Result paused = clusterSh(Duration.ofSeconds(60), "status").assertSucceeded();
        assertNodeState(paused, 3, "paused", pids.get(2));
        assertNodeState(paused, 1, "serving", pids.get(0));
        assertTrue(clusterSh(Duration.ofSeconds(30), "pause", "3").assertSucceeded().output()
                .contains("node 3: already paused"));
        Result resume = clusterSh(Duration.ofSeconds(30), "resume", "3").assertSucceeded();
        assertTrue(resume.output().startsWith("node 3: resumed (pid " + pids.get(2) + ")"), resume.output());
        awaitHealthy(3);
        assertNodeState(clusterSh(Duration.ofSeconds(60), "status").assertSucceeded(), 3, "serving", pids.get(2));

        // kill: a crash; the others go on serving; start brings it back (recovering its logs).
        Result kill = clusterSh(Duration.ofSeconds(30), "kill", "2").assertSucceeded();
        assertTrue(kill.output().startsWith("node 2: killed (pid " + pids.get(1) + ")"), kill.output());
        assertFalse(ProcessHandle.of(pids.get(1)).map(ProcessHandle::isAlive).orElse(false), "killed node left");
        assertFalse(Files.exists(clusterDir.resolve("node-2.pid")), "pid file removed");
        Result afterKill = clusterSh(Duration.ofSeconds(60), "status").assertSucceeded();
        assertTrue(Pattern.compile("(?m)^2\\s+stopped\\s+-\\s").matcher(afterKill.output()).find(), afterKill.output());
        assertNodeState(afterKill, 1, "serving", pids.get(0));
        assertNodeState(afterKill, 3, "serving", pids.get(2));
        // Partly down: the controller fences the killed broker once its session expires, and says so.
        Awaitility.await("node 2 fenced").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1))
                .until(() -> clusterSh(Duration.ofSeconds(60), "status").assertSucceeded().output()
                        .contains("\nfenced brokers: 2\n"));
        awaitHealthy(1);
        awaitHealthy(3);
        for (String command : List.of("kill", "pause", "resume")) {
            Result notRunning = clusterSh(Duration.ofSeconds(30), command, "2");
            assertEquals(1, notRunning.exitCode(), notRunning.output());
            assertEquals("cluster.sh: node 2 is not running", notRunning.output().strip());
        }
        Result back = clusterSh(Duration.ofSeconds(150), "start", String.valueOf(NODES)).assertSucceeded();
        assertTrue(back.output().contains("node 1: already running") && back.output().contains("node 2: started")
                && back.output().contains("cluster of 3 nodes serving"), back.output());
        assertFalse(Files.readString(clusterDir.resolve("node-2.log.prev")).contains("shut down cleanly"),
                "the run before was killed");
        long second = recordedPids().get(1);
        awaitHealthy(2);

        // restart: orderly stop, then start with the same config and data, and serving again.
        Result restart = clusterSh(Duration.ofSeconds(150), "restart", "2").assertSucceeded();
        assertTrue(restart.output().contains("node 2: stopped") && restart.output().strip().endsWith("node 2: serving"),
                restart.output());
        long third = recordedPids().get(1);
        assertTrue(third != second, "a new process");
        assertFalse(ProcessHandle.of(second).map(ProcessHandle::isAlive).orElse(false), "old process left");
        assertTrue(Files.readString(clusterDir.resolve("node-2.log.prev")).contains("Node 2 shut down cleanly"));
        awaitHealthy(2);

        // logs: the node's log file.
        Result logs = clusterSh(Duration.ofSeconds(30), "logs", "2").assertSucceeded();
        assertTrue(logs.output().contains("Node 2 is serving"), logs.output());
        assertTrue(followedLogShows(2, "Node 2 is serving"), "logs 2 -f prints the log");

        // stop NODE: orderly, that node only.
        Result stop = clusterSh(Duration.ofSeconds(90), "stop", "2").assertSucceeded();
        assertEquals(List.of("node 2: stopping (pid " + third + ")", "node 2: stopped"), stop.output().lines().toList());
        assertFalse(ProcessHandle.of(third).map(ProcessHandle::isAlive).orElse(false), "stopped node left");
        assertFalse(Files.exists(clusterDir.resolve("node-2.pid")), "pid file removed");
        assertTrue(Files.readString(clusterDir.resolve("node-2.log")).contains("Node 2 shut down cleanly"));
        assertEquals(List.of(pids.get(0), pids.get(2)), recordedPids(), "the others still run");
        awaitHealthy(1);
        assertTrue(clusterSh(Duration.ofSeconds(30), "stop", "2").assertSucceeded().output().contains("node 2: not running"));

        // Bad NODE arguments: one line, exit 2, nothing signalled.
        for (String[] args : List.of(new String[] {"kill", "4"}, new String[] {"pause", "x"}, new String[] {"logs", "0"},
                new String[] {"stop", "-1"})) {
            Result bad = clusterSh(Duration.ofSeconds(30), args);
            assertEquals(2, bad.exitCode(), bad.output());
            assertEquals("cluster.sh: NODE must be a node of the cluster in " + clusterDir + " (1 2 3), got '" + args[1]
                    + "'", bad.output().strip());
        }
        // Node 2 is stopped; with node 3 stopped too, one voter of three is left: no quorum, and status says so
        // in one line and still shows the remaining broker's view.
        clusterSh(Duration.ofSeconds(90), "stop", "3").assertSucceeded();
        Awaitility.await("no quorum").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> {
                    Result alone = clusterSh(Duration.ofSeconds(60), "status").assertSucceeded();
                    assertTrue(alone.output().contains("\ncluster view: the metadata quorum did not answer, so no "
                            + "controller; broker view only ("), alone.output());
                    assertTrue(alone.output().contains("\nunder-replicated partitions:"), alone.output());
                });
        Result missing = clusterSh(Duration.ofSeconds(30), "restart");
        assertEquals(2, missing.exitCode(), missing.output());
        assertEquals(1, missing.output().strip().lines().count(), missing.output());
        assertEquals(List.of(pids.get(0)), recordedPids());

        clusterSh(Duration.ofSeconds(90), "stop").assertSucceeded();
        assertEquals(List.of(), recordedPids(), "pid files removed");
        for (long pid : pids) {
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " left");
        }
    }

    private static void assertNodeState(Result status, int node, String state, long pid) {
        assertTrue(Pattern.compile("(?m)^" + node + "\\s+" + state + "\\s+" + pid + "\\s").matcher(status.output()).find(),
                status.output());
    }

    /** The state letter of /proc/PID/stat (after the command name, which may hold spaces). */
    private static char procState(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }

    /** The node's /health answers 200 (it serves), within a bound; each try is bounded too (a paused node hangs). */
    private void awaitHealthy(int node) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + (metricsPortBase + node) + "/health"))
                .timeout(Duration.ofSeconds(2)).build();
        Awaitility.await("node " + node + " healthy").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .until(() -> http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
    }

    /** {@code cluster.sh logs NODE -f} prints the text within a bound; the follower is ended either way. */
    private boolean followedLogShows(int node, String text) throws Exception {
        Path output = Files.createTempFile(dir, "follow", ".out");
        ProcessBuilder pb = new ProcessBuilder("bash", REPO.resolve("scripts/cluster.sh").toString(), "logs",
                String.valueOf(node), "-f").redirectErrorStream(true).redirectOutput(output.toFile());
        pb.environment().putAll(environment());
        Process p = pb.start();
        try {
            p.getOutputStream().close();
            Awaitility.await("logs -f").atMost(Duration.ofSeconds(20)).until(() -> Files.readString(output).contains(text));
            return p.isAlive(); // still following
        } finally {
            // exec'd into tail: one process to end.
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
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
        env.put("TIDELINE_KAFKA_PORT_BASE", String.valueOf(kafkaPortBase));
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
}
