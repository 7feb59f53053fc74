package io.tideline.cluster.netns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One node of a {@link NamespaceCluster}: a real {@code scripts/tideline server} process inside the namespace,
 * on its own loopback address {@code 127.0.0.(10+id)} with fixed ports (gRPC clients 9091+id, quorum
 * 9191+id, metrics 9291+id: the namespace is private, so fixed ports collide with nothing), its config and
 * data under the cluster's directory, its output in {@code node-<id>.log} (appended across restarts).
 *
 * <p>It runs as root but with a primary group of its own, {@link #gid()}, which is what {@link Firewall}
 * rules match (see there for why the source address cannot be used).
 *
 * <p>Thread-safe: the process handle is volatile and start is synchronized.
 */
public final class NamespaceNode {
    /** Group ids 47011.. (no meaning on the host: only the iptables owner match reads them). */
    private static final int GID_BASE = 47010;

    private final int id;
    private final NetworkNamespace ns;
    private final Path config;
    private final Path dir;
    private final Path output;
    private final Path repo;
    private final String classpath;
    private final String javaOpts;
    private volatile Process process;

    NamespaceNode(int id, NetworkNamespace ns, Path root, Path repo, String classpath, String javaOpts) {
        this.id = id;
        this.ns = ns;
        this.dir = root.resolve("node-" + id);
        this.config = root.resolve("node-" + id + ".properties");
        this.output = root.resolve("node-" + id + ".log");
        this.repo = repo;
        this.classpath = classpath;
        this.javaOpts = javaOpts;
    }

    public int id() {
        return id;
    }

    public String address() {
        return "127.0.0." + (10 + id);
    }

    public int clientPort() {
        return 9091 + id;
    }

    public int quorumPort() {
        return 9191 + id;
    }

    public int metricsPort() {
        return 9291 + id;
    }

    public String bootstrap() {
        return address() + ":" + clientPort();
    }

    public String metricsUrl() {
        return "http://" + address() + ":" + metricsPort() + "/metrics";
    }

    public int gid() {
        return GID_BASE + id;
    }

    public Path logDir() {
        return dir.resolve("logs");
    }

    public Path config() {
        return config;
    }

    /** Writes a config with the keys cluster.sh writes, then {@code overrides}. */
    void writeConfig(String voters, Map<String, ?> overrides) throws IOException {
        StringBuilder sb = new StringBuilder("# node ").append(id).append(" of a network-namespace cluster\n");
        Map<String, Object> keys = new LinkedHashMap<>();
        keys.put("node.id", id);
        keys.put("process.roles", "broker,controller");
        keys.put("controller.quorum.voters", voters);
        keys.put("listeners", "PLAINTEXT://" + bootstrap());
        keys.put("advertised.listeners", "PLAINTEXT://" + bootstrap());
        keys.put("log.dirs", logDir());
        keys.put("metadata.log.dir", dir.resolve("metadata"));
        keys.put("controlled.shutdown.timeout.ms", 10000);
        keys.put("metrics.http.host", address());
        keys.put("metrics.http.port", metricsPort());
        keys.put("broker.heartbeat.interval.ms", 500);
        keys.put("leader.imbalance.check.interval.seconds", 10);
        keys.putAll(overrides);
        keys.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        Files.createDirectories(dir);
        Files.writeString(config, sb.toString(), StandardCharsets.UTF_8);
    }

    /**
     * Starts the node: {@code ip netns exec NS setpriv --regid G --clear-groups bash scripts/tideline server
     * --config F}; each of them execs the next, so {@link #pid()} is the JVM's.
     */
    synchronized void start() throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("node " + id + " is running");
        }
        ProcessBuilder pb = new ProcessBuilder("setpriv", "--regid=" + gid(), "--clear-groups", "--",
                "bash", repo.resolve("scripts/tideline").toString(), "server", "--config", config.toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()));
        pb.environment().put("TIDELINE_CLASSPATH", classpath);
        pb.environment().put("JAVA_OPTS", javaOpts);
        Process p = ns.start(pb);
        p.getOutputStream().close();
        process = p;
    }

    public boolean isAlive() {
        Process p = process;
        return p != null && p.isAlive();
    }

    public long pid() {
        Process p = process;
        if (p == null) {
            throw new IllegalStateException("node " + id + " was never started");
        }
        return p.pid();
    }

    /** Everything the node printed (all its runs). */
    public String output() {
        try {
            return Files.exists(output) ? Files.readString(output, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** How often this node has logged that it serves, over all its runs. */
    int servingCount() {
        String out = output();
        int count = 0;
        String marker = "Node " + id + " is serving";
        for (int i = out.indexOf(marker); i >= 0; i = out.indexOf(marker, i + 1)) {
            count++;
        }
        return count;
    }

    /** SIGKILL (kill -9): no shutdown hook, no controlled shutdown, nothing flushed. Waits for the exit. */
    public void kill9() throws InterruptedException {
        Process p = process;
        p.destroyForcibly();
        awaitExit(p);
    }

    /** SIGTERM: the orderly stop (controlled shutdown, logs closed with their checkpoints). */
    public void terminate() throws InterruptedException {
        Process p = process;
        signal("CONT");
        p.destroy();
        awaitExit(p);
    }

    /** SIGSTOP: every thread frozen, its sockets open; what a long GC pause or a hung VM looks like. */
    public void pause() {
        signal("STOP");
    }

    public void resume() {
        signal("CONT");
    }

    /** The state letter of /proc/PID/stat: 'T' when stopped by SIGSTOP. */
    public char procState() {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid()), "stat"), StandardCharsets.US_ASCII);
            return stat.substring(stat.lastIndexOf(") ") + 2).charAt(0);
        } catch (IOException e) {
            return '?';
        }
    }

    private void signal(String name) {
        NetworkNamespace.run(List.of("kill", "-" + name, String.valueOf(pid())));
    }

    private void awaitExit(Process p) throws InterruptedException {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("node " + id + " (pid " + p.pid() + ") still running after 60 s");
        }
    }

    @Override
    public String toString() {
        return "node " + id + " (" + bootstrap() + ", gid " + gid() + (isAlive() ? ", pid " + pid() : ", down") + ")";
    }
}
