package io.tideline.cluster.netns;

import java.io.IOException;
import io.tideline.cluster.history.History;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Three (or n) real node processes in a private {@link NetworkNamespace}, configured as {@code cluster.sh}
 * configures its nodes but each on its own loopback address 127.0.0.(10+i), partitioned with a {@link Firewall}
 * and driven through the CLI ({@link #admin}) and a {@link DriverClient} (the Java client, in the namespace).
 *
 * <p>The node processes run {@code scripts/tideline server} from {@code classpath} (a test passes its own class
 * path, which holds what the build just compiled) with small heaps. {@link #close()} removes everything.
 *
 * <p>Driven by one test thread; the node and firewall operations may be called from other threads too.
 */
public final class NamespaceCluster implements AutoCloseable {
    /** Two cores carry three nodes, the driver and the test JVM: small heaps and the quick JIT. */
    static final String NODE_JAVA_OPTS = "-Xmx256m -Xms64m -XX:TieredStopAtLevel=1";

    private final NetworkNamespace ns;
    private final Path root;
    private final Path repo;
    private final String classpath;
    private final List<NamespaceNode> nodes = new ArrayList<>();
    private final Firewall firewall;

    private NamespaceCluster(NetworkNamespace ns, Path root, Path repo, String classpath) {
        this.ns = ns;
        this.root = root;
        this.repo = repo;
        this.classpath = classpath;
        this.firewall = new Firewall(ns);
    }

    /**
     * Creates the namespace, writes the configs ({@code overrides} for every node) and starts nodes 1..n; returns
     * once each serves (it was unfenced), or fails with the end of the logs.
     */
    public static NamespaceCluster start(Path root, Path repo, String classpath, int n, Map<String, ?> overrides,
                                         Duration atMost) throws IOException, InterruptedException {
        List<String> addresses = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            addresses.add("127.0.0." + (10 + i));
        }
        NetworkNamespace ns = NetworkNamespace.create(addresses);
        NamespaceCluster cluster = new NamespaceCluster(ns, root, repo, classpath);
        try {
            for (int i = 1; i <= n; i++) {
                cluster.nodes.add(new NamespaceNode(i, ns, root, repo, classpath, NODE_JAVA_OPTS));
            }
            String voters = cluster.nodes.stream().map(x -> x.id() + "@" + x.address() + ":" + x.quorumPort())
                    .collect(Collectors.joining(","));
            for (NamespaceNode node : cluster.nodes) {
                node.writeConfig(voters, overrides);
            }
            List<Integer> ids = cluster.nodes.stream().map(NamespaceNode::id).toList();
            cluster.startAndAwaitServing(ids, atMost);
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    public NetworkNamespace namespace() {
        return ns;
    }

    public Firewall firewall() {
        return firewall;
    }

    public Path root() {
        return root;
    }

    public String classpath() {
        return classpath;
    }

    public List<NamespaceNode> nodes() {
        return List.copyOf(nodes);
    }

    public NamespaceNode node(int id) {
        return nodes.get(id - 1);
    }

    /** Every node's client address, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return nodes.stream().map(NamespaceNode::bootstrap).collect(Collectors.joining(","));
    }

    /** (Re)starts the given nodes (not running) and waits until each logged "is serving" once more. */
    public void startAndAwaitServing(List<Integer> ids, Duration atMost) throws IOException, InterruptedException {
        Map<Integer, Integer> before = ids.stream().collect(Collectors.toMap(i -> i, i -> node(i).servingCount()));
        for (int id : ids) {
            node(id).start();
        }
        long deadline = System.nanoTime() + atMost.toNanos();
        for (int id : ids) {
            NamespaceNode node = node(id);
            while (node.servingCount() <= before.get(id)) {
                if (!node.isAlive()) {
                    throw new IllegalStateException("node " + id + " exited before serving; its log ends:\n"
                            + tail(node.output(), 40));
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("node " + id + " not serving after " + atMost + "; its log ends:\n"
                            + tail(node.output(), 40));
                }
                // Polling the node's log for its "is serving" line, as cluster.sh does.
                Thread.sleep(200);
            }
        }
    }

    /** The result of a CLI run: its exit code, stdout and stderr. */
    public record CliResult(int exitCode, String stdout, String stderr) {
        public CliResult assertOk() {
            if (exitCode != 0) {
                throw new AssertionError("CLI exited " + exitCode + ": " + stderr + stdout);
            }
            return this;
        }
    }

    /**
     * Runs {@code scripts/tideline admin --bootstrap-server <via> args...} inside the namespace, as an operator on
     * one of the nodes' machine would, and waits for it (bounded).
     */
    public CliResult admin(int via, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", repo.resolve("scripts/tideline").toString(), "admin",
                "--bootstrap-server", node(via).bootstrap()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("TIDELINE_CLASSPATH", classpath);
        Path err = Files.createTempFile(root, "cli", ".err");
        pb.redirectError(err.toFile());
        Process p = ns.start(pb);
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("CLI " + String.join(" ", args) + " did not finish in 60 s");
        }
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        Files.deleteIfExists(err);
        return new CliResult(p.exitValue(), out, stderr);
    }

    /** Starts the driver process in the namespace (the Java client's side of the tests). */
    public DriverClient startDriver(History history) throws IOException {
        return DriverClient.start(ns, root.resolve("driver.log"), classpath, history, bootstrapServers());
    }

    /** SIGTERM to every running node at once (each confirms its controlled shutdown while a quorum stands). */
    public void stopAll() throws InterruptedException {
        List<NamespaceNode> running = nodes.stream().filter(NamespaceNode::isAlive).toList();
        List<Thread> stops = new ArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        for (NamespaceNode node : running) {
            Thread t = new Thread(() -> {
                try {
                    node.terminate();
                } catch (InterruptedException | RuntimeException e) {
                    failures.add(e);
                }
            }, "stop-node-" + node.id());
            t.start();
            stops.add(t);
        }
        for (Thread t : stops) {
            t.join();
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("stopping the nodes failed: " + failures);
        }
    }

    /** Each node's state and the firewall, for a failure message. */
    public String describe() {
        StringBuilder sb = new StringBuilder("namespace ").append(ns.name()).append('\n');
        nodes.forEach(n -> sb.append("  ").append(n).append(n.isAlive() ? " state " + n.procState() : "").append('\n'));
        try {
            sb.append(firewall.listing());
        } catch (RuntimeException e) {
            sb.append("firewall: ").append(e.getMessage());
        }
        return sb.toString();
    }

    /** The last {@code lines} lines of a node's output. */
    public static String tail(String text, int lines) {
        String[] all = text.split("\n");
        return String.join("\n", Arrays.copyOfRange(all, Math.max(0, all.length - lines), all.length));
    }

    /** Kills every process and removes the namespace (see {@link NetworkNamespace#close()}). */
    @Override
    public void close() {
        ns.close();
    }
}
