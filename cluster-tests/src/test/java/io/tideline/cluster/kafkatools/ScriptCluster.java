package io.tideline.cluster.kafkatools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.testsupport.ports.Ports;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A {@code scripts/cluster.sh} cluster of real node processes, in a directory and on port bases of its own (so a
 * cluster a developer runs is not touched), run from this test JVM's class path ({@code TIDELINE_CLASSPATH}: no
 * packaged jars needed). Also runs {@code scripts/tideline} against it. Only the processes its pid files name,
 * and only while their command line still names this cluster's configs, are ever signalled.
 */
final class ScriptCluster {
    private static final Pattern KAFKA_BOOTSTRAP = Pattern.compile("(?m)^kafka bootstrap server: (\\S+:\\d+)$");

    private final Path repo;
    private final Path clusterDir;
    private final int nodes;
    private final int clientPortBase;
    private final ChildProcess processes;

    ScriptCluster(Path repo, Path dir, int nodes) throws IOException {
        this(repo, dir, nodes, Map.of());
    }

    /** {@code nodeProperties}: extra keys in every node's config ({@code TIDELINE_NODE_PROPERTIES}). */
    ScriptCluster(Path repo, Path dir, int nodes, Map<String, String> nodeProperties) throws IOException {
        this(repo, dir, nodes, nodeProperties, Map.of());
    }

    /** {@code extraEnv}: more of cluster.sh's environment, e.g. {@code JMX_PORT}; wins over the settings above. */
    ScriptCluster(Path repo, Path dir, int nodes, Map<String, String> nodeProperties, Map<String, String> extraEnv)
            throws IOException {
        this.repo = repo;
        this.clusterDir = dir.resolve("cluster");
        this.nodes = nodes;
        // Four ports per node at fixed distances from one base, as cluster.sh places them.
        this.clientPortBase = Ports.base(4 * nodes);
        Map<String, String> env = new HashMap<>();
        env.put("TIDELINE_CLUSTER_DIR", clusterDir.toString());
        env.put("TIDELINE_CLIENT_PORT_BASE", String.valueOf(clientPortBase));
        env.put("TIDELINE_QUORUM_PORT_BASE", String.valueOf(clientPortBase + nodes));
        env.put("TIDELINE_METRICS_PORT_BASE", String.valueOf(clientPortBase + 2 * nodes));
        env.put("TIDELINE_KAFKA_PORT_BASE", String.valueOf(clientPortBase + 3 * nodes));
        env.put("TIDELINE_CLASSPATH", System.getProperty("java.class.path"));
        env.put("TIDELINE_NODE_PROPERTIES", nodeProperties.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(" ")));
        // Three node JVMs and a tool JVM next to this one on two cores: small heaps, a JIT that starts fast.
        env.put("JAVA_OPTS", "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
        env.putAll(extraEnv);
        Path outputs = Files.createDirectories(dir.resolve("script-outputs"));
        this.processes = new ChildProcess(repo, outputs, env);
    }

    ChildProcess.Result clusterSh(Duration atMost, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", repo.resolve("scripts/cluster.sh").toString()));
        command.addAll(List.of(args));
        return processes.run(atMost, command);
    }

    /** {@code scripts/tideline ARGS}: Tideline's own CLI, over gRPC ({@link #grpcBootstrap()}). */
    ChildProcess.Result tideline(Duration atMost, String... args) throws IOException, InterruptedException {
        return processes.run(atMost, tidelineCommand(args));
    }

    ChildProcess.Result tidelineWithInput(Duration atMost, Path stdin, String... args)
            throws IOException, InterruptedException {
        return processes.run(atMost, tidelineCommand(args), stdin);
    }

    private List<String> tidelineCommand(String... args) {
        List<String> command = new ArrayList<>(List.of("bash", repo.resolve("scripts/tideline").toString()));
        command.addAll(List.of(args));
        return command;
    }

    ChildProcess.Result start() throws IOException, InterruptedException {
        return clusterSh(Duration.ofSeconds(150), "start", String.valueOf(nodes)).assertSucceeded();
    }

    /** {@link #start()}, then the pids of every node it started, checked to be one per node. */
    List<Long> startAndRecordPids() throws IOException, InterruptedException {
        ChildProcess.Result start = start();
        List<Long> pids = recordedPids();
        assertEquals(nodes, pids.size(), start.toString());
        return pids;
    }

    ChildProcess.Result stop() throws IOException, InterruptedException {
        return clusterSh(Duration.ofSeconds(90), "stop");
    }

    /**
     * {@code cluster.sh stop}, then the check that it left nothing: it succeeded, none of {@code started} (every pid
     * this cluster ran; the pid files' own are added) is still one of its nodes, and no pid file is left. A node the
     * stop missed is still ended, by its pid, so that no run leaves nodes behind.
     */
    void stopLeavingNothing(Collection<Long> started) throws IOException, InterruptedException {
        Set<Long> pids = new TreeSet<>(started);
        pids.addAll(recordedPids());
        ChildProcess.Result stop = stop();
        List<Long> left = new ArrayList<>();
        for (long pid : pids) {
            if (isOurNode(pid)) {
                left.add(pid);
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
        assertEquals(0, stop.exitCode(), stop.toString());
        assertEquals(List.of(), left, "node processes left after cluster.sh stop: " + stop);
        assertEquals(List.of(), recordedPids(), "pid files removed");
    }

    /** The Kafka listener's bootstrap address, as the {@code kafka bootstrap server: HOST:PORT} line of status shows it. */
    String kafkaBootstrap() throws IOException, InterruptedException {
        ChildProcess.Result status = clusterSh(Duration.ofSeconds(60), "status").assertSucceeded();
        Matcher m = KAFKA_BOOTSTRAP.matcher(status.stdout());
        if (!m.find()) {
            throw new AssertionError("no 'kafka bootstrap server: HOST:PORT' line in " + status);
        }
        return m.group(1);
    }

    /** Node {@code i}'s Kafka listener (1-based), where cluster.sh places it. */
    int kafkaPort(int i) {
        return clientPortBase + 3 * nodes + i;
    }

    /** Node {@code i}'s metrics endpoint port (1-based), where cluster.sh places it. */
    int metricsPort(int i) {
        return clientPortBase + 2 * nodes + i;
    }

    /** Node 1's gRPC client listener, which Tideline's own CLI talks to. */
    String grpcBootstrap() {
        return "127.0.0.1:" + (clientPortBase + 1);
    }

    Path clusterDir() {
        return clusterDir;
    }

    /** The pids that cluster.sh's pid files name now. */
    List<Long> recordedPids() throws IOException {
        List<Long> pids = new ArrayList<>();
        for (int i = 1; i <= nodes; i++) {
            Path file = clusterDir.resolve("node-" + i + ".pid");
            if (Files.exists(file)) {
                pids.add(Long.parseLong(Files.readString(file).strip()));
            }
        }
        return pids;
    }

    /** A live process whose command line names one of this cluster's node configs (not a reused pid). */
    boolean isOurNode(long pid) {
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive()) {
            return false;
        }
        try {
            String cmdline = new String(Files.readAllBytes(Path.of("/proc", String.valueOf(pid), "cmdline")),
                    StandardCharsets.UTF_8);
            return cmdline.contains(clusterDir.toString());
        } catch (IOException e) {
            return false;
        }
    }
}
