package io.tideline.node.tools;

import io.tideline.testsupport.ports.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;

/**
 * One node run as a real process ({@code java -cp <the test class path> ServerCommand --config f}), its output
 * in a file. {@link #close()} kills it if it is still alive, so a test that fails half-way leaves no
 * process behind.
 */
final class NodeProcess implements AutoCloseable {
    /** Small heap, and a JIT that starts fast: two cores run the test JVM and the node together. */
    private static final List<String> JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    private final Process process;
    private final Path output;

    private NodeProcess(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    static NodeProcess start(Path config, Path output) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_OPTIONS);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ServerCommand.class.getName());
        command.add("--config");
        command.add(config.toString());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        p.getOutputStream().close();
        return new NodeProcess(p, output);
    }

    /**
     * Starts a node through the launcher, {@code scripts/tideline server}, as an operator does, so that the
     * JVM options the launcher gives a node are the ones under test; {@code javaOpts} goes in JAVA_OPTS
     * (after the launcher's defaults, so it wins). The class path is this test's.
     */
    static NodeProcess startWithLauncher(Path config, Path output, String javaOpts) throws IOException {
        Path repo = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent().getParent();
        ProcessBuilder pb = new ProcessBuilder("bash", repo.resolve("scripts/tideline").toString(), "server",
                "--config", config.toString()).redirectErrorStream(true).redirectOutput(output.toFile());
        pb.environment().put("TIDELINE_CLASSPATH", System.getProperty("java.class.path"));
        pb.environment().put("JAVA_OPTS", javaOpts);
        Process p = pb.start();
        p.getOutputStream().close();
        return new NodeProcess(p, output);
    }

    /** A one-node (broker + controller) setup under a directory: its config file, client port and log dir. */
    record SingleNode(Path config, int clientPort, Path logDir) {
        /** Writes the config, with free loopback ports. */
        static SingleNode write(Path dir) throws IOException {
            int clientPort = Ports.one();
            Path logDir = dir.resolve("logs");
            Properties p = new Properties();
            p.putAll(Map.of(
                    "node.id", "1",
                    "process.roles", "broker,controller",
                    "controller.quorum.voters", "1@127.0.0.1:" + Ports.one(),
                    "listeners", "PLAINTEXT://127.0.0.1:" + clientPort,
                    "log.dirs", logDir.toString(),
                    "metadata.log.dir", dir.resolve("metadata").toString(),
                    "broker.heartbeat.interval.ms", "200",
                    "broker.session.timeout.ms", "3000",
                    "controlled.shutdown.timeout.ms", "5000",
                    "metrics.http.host", "127.0.0.1"));
            p.put("metrics.http.port", "0");
            Path file = dir.resolve("node.properties");
            try (var w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                p.store(w, "lifecycle test node");
            }
            return new SingleNode(file, clientPort, logDir);
        }
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    String output() {
        try {
            return Files.readString(output, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits until the node serves (it was unfenced) and the command has logged its start-up summary, the
     * line after "is serving"; fails early if the process died.
     */
    void awaitStarted(Duration atMost) {
        Awaitility.await("node " + pid() + " started").atMost(atMost).pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    String out = output();
                    if (out.contains(" is serving (broker epoch") && out.contains(" start-up recovered ")) {
                        return true;
                    }
                    if (!process.isAlive()) {
                        throw new AssertionError("node process exited with " + process.exitValue()
                                + " before serving:\n" + output());
                    }
                    return false;
                });
    }

    /** The first match of {@code regex} in the output, or an AssertionError showing the output. */
    Matcher find(String regex) {
        Matcher m = Pattern.compile(regex).matcher(output());
        if (!m.find()) {
            throw new AssertionError("no line matching /" + regex + "/ in the node's output:\n" + output());
        }
        return m;
    }

    /** SIGTERM on Linux (the orderly stop); returns the exit code, or fails when it takes longer than the bound. */
    int terminate(Duration atMost) throws InterruptedException {
        process.destroy();
        return awaitExit(atMost);
    }

    /** SIGKILL: no shutdown hook runs, as after a crash. */
    int kill(Duration atMost) throws InterruptedException {
        process.destroyForcibly();
        return awaitExit(atMost);
    }

    /** Waits for the process to end by itself; returns its exit code, or fails after the bound. */
    int awaitExit(Duration atMost) throws InterruptedException {
        if (!process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("node process " + pid() + " still running after " + atMost + ":\n" + output());
        }
        return process.exitValue();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
