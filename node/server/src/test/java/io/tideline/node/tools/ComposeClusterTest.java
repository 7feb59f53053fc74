package io.tideline.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.testsupport.ports.Ports;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The containers of docs/containers.md, run for real and by the page's own commands ({@link ComposeDocCommands}):
 * the engine, the registry-free base image, the image of {@code scripts/Dockerfile} (built from the packaged jars,
 * which is why this runs as an integration test, after {@code package}), the three nodes of
 * {@code scripts/docker-compose.yml} on host networking ({@code scripts/docker-compose.host.yml}, 127.0.0.1 only),
 * healthy through the gRPC health probe and with remote JMX; a topic with three replicas, records produced and
 * consumed through {@code scripts/tideline}; the partition's leader container killed, the partition seen
 * under-replicated, the container started again and the partition seen healed; an orderly stop; the project
 * network's commands checked against the default file; and everything it made removed.
 *
 * <p>The engine: the one that answers, or the page's dockerd ({@link DockerEngine}: its state, with the cached
 * base image, under /var/tmp/tideline-docker; stopped at the end). Where no engine can be had (docker.io not
 * installed, not root) the test fails, saying so.
 */
@Tag("containers")
class ComposeClusterTest {
    private static final Path REPO = findRepository();
    private static final int NODES = 3;
    private static final Duration CLI = Duration.ofSeconds(60);
    private static final Duration COMPOSE = Duration.ofSeconds(120);
    /** A command of the page: the longest are making the base image (35-80 s) and up's image build. */
    private static final Duration DOC_COMMAND = Duration.ofMinutes(4);

    @TempDir
    Path dir;

    private Commands commands;
    private Map<String, String> env;
    private String project;
    private String image;
    private int portPrefix;
    private int jmxBase;
    private ComposeDocCommands doc;
    private final long startNanos = System.nanoTime();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void threeNodeClusterInContainersServesSurvivesAKilledNodeAndHeals() throws Exception {
        commands = new Commands(dir, REPO);
        doc = ComposeDocCommands.read(REPO.resolve("docs/containers.md"));
        // Another run holding the daemon's directory is waited for at most this long, within the test's bound.
        try (DockerEngine engine = DockerEngine.acquire(commands, Duration.ofMinutes(4), doc)) {
            step(engine.startedByUs() ? "started dockerd, state in " + engine.stateDir().orElseThrow()
                    : "using the Docker engine that answers");
            project = "tideline-test-" + UUID.randomUUID().toString().substring(0, 8);
            image = "tideline-test:" + project;
            portPrefix = freePortPrefix();
            jmxBase = Ports.base(NODES) + 1;
            env = new HashMap<>(engine.env());
            // The page's commands name no project: this one reaches them through Compose's environment.
            env.put("COMPOSE_PROJECT_NAME", project);
            env.put("TIDELINE_IMAGE", image);
            env.put("TIDELINE_PORT_PREFIX", String.valueOf(portPrefix));
            // debootstrap's throwaway root file system (about 500 MB) goes into this test's own directory.
            env.put("TMPDIR", Files.createDirectories(dir.resolve("tmp")).toString());
            // The classic builder: its stage images carry the Dockerfile's label, so they can be removed by it.
            env.put("DOCKER_BUILDKIT", "0");
            env.put("COMPOSE_DOCKER_CLI_BUILD", "1");
            env.put("TIDELINE_CLASSPATH", System.getProperty("java.class.path"));
            // Three node JVMs in containers and the CLI's beside this one on two cores: small heaps, a JIT that
            // starts fast (the nodes' through the compose file's TIDELINE_JAVA_OPTS).
            env.put("JAVA_OPTS", "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
            env.put("TIDELINE_JAVA_OPTS", "-Xmx256m -XX:TieredStopAtLevel=1");
            boolean passed = false;
            try {
                runCluster();
                checkProjectNetworkCommands();
                passed = true;
            } finally {
                // Also after a JUnit timeout, which interrupted this thread: the clean-up must still wait for docker.
                boolean interrupted = Thread.interrupted();
                if (!passed) {
                    printDiagnostics(engine);
                }
                removeEverythingMade();
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private void runCluster() throws Exception {
        runDoc("up");
        step("the page's up commands ran: base image, jars, image " + image + ", three containers");
        List<String> containers = new ArrayList<>();
        for (int i = 1; i <= NODES; i++) {
            containers.add(compose(Duration.ofSeconds(30), "ps", "-q", "node-" + i).assertSucceeded().output().strip());
        }
        assertEquals(NODES, containers.stream().filter(id -> id.matches("[0-9a-f]{12,}")).count(), containers.toString());
        awaitHealthy(containers, Duration.ofSeconds(150));
        step("three containers healthy (project " + project + ", port prefix " + portPrefix + ")");
        for (int i = 1; i <= NODES; i++) {
            assertEquals(0.0, JmxProbe.underReplicatedPartitions("127.0.0.1", jmxBase + i - 1), "node " + i + " over JMX");
        }
        step("JMX answers on 127.0.0.1:" + jmxBase + "-" + (jmxBase + NODES - 1));

        // The page's topic: orders, one partition, three replicas, min.insync.replicas=2.
        runDoc("use");
        step("the page's use commands ran");
        String bootstrap = IntStream.rangeClosed(1, NODES).mapToObj(i -> "127.0.0.1:" + clientPort(i))
                .collect(Collectors.joining(","));
        produce(bootstrap, 1, 5);
        assertConsumed(bootstrap, 5);
        String described = tideline("admin", "--bootstrap-server", bootstrap, "topics", "--describe", "--topic", "orders")
                .assertSucceeded().output();
        Matcher leader = Pattern.compile("Partition: 0\\s+Leader: (\\d)\\s+Replicas: [1-3,]+\\s+Isr: (\\S+)").matcher(described);
        assertTrue(leader.find(), described);
        assertEquals(3, leader.group(2).split(",").length, "all three in sync: " + described);
        int killed = Integer.parseInt(leader.group(1));
        step("topic created, 5 records produced and consumed; killing node " + killed + ", the leader");

        // A crash of the leader's container: the controller fences it, a follower takes over with two in sync.
        docker(Duration.ofSeconds(30), "kill", containers.get(killed - 1)).assertSucceeded();
        // Polled on the survivors' /metrics (a JVM per CLI call would cost a second of CPU each), then shown by the CLI.
        Awaitility.await("UnderReplicatedPartitions 1 on the new leader").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .until(() -> underReplicatedOnNodes(others(killed)) == 1);
        String underReplicated = awaitUnderReplicatedLine(bootstrap, killed);
        assertTrue(underReplicated.contains("Offline: " + killed), underReplicated);
        step("under-replicated: " + underReplicated.strip());
        produce(bootstrap, 6, 10); // acks=all with min.insync.replicas=2: the two left suffice

        docker(Duration.ofSeconds(30), "start", containers.get(killed - 1)).assertSucceeded();
        awaitHealthy(containers, Duration.ofSeconds(150));
        Awaitility.await("UnderReplicatedPartitions 0 on every node").atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .until(() -> underReplicatedOnNodes(IntStream.rangeClosed(1, NODES).boxed().toList()) == 0);
        Awaitility.await("the CLI lists no under-replicated partition").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofSeconds(2))
                .until(() -> underReplicatedPartitions(bootstrap).isEmpty());
        step("node " + killed + " restarted, healthy, no under-replicated partition");
        // The restarted node caught up: it reads all ten from its own log when it leads, and serves them either way.
        assertConsumed("127.0.0.1:" + clientPort(killed), 10);
        String nodeLog = docker(Duration.ofSeconds(30), "logs", containers.get(killed - 1)).output();
        assertTrue(Pattern.compile("Node " + killed + " start-up recovered [1-9][0-9]* segments").matcher(nodeLog).find(),
                "a killed node recovers its logs:\n" + nodeLog);

        // The page's stop, then its down -v. docker stop is SIGTERM to the JVM itself (run-node execs down to it):
        // an orderly stop, exit 0, checked before down removes the containers.
        List<String> down = doc.block("down");
        assertTrue(down.get(0).endsWith(" stop"), "the page stops the nodes before removing them: " + down);
        runDocCommand(down.get(0));
        for (int i = 1; i <= NODES; i++) {
            String id = containers.get(i - 1);
            assertEquals("0", docker(Duration.ofSeconds(30), "inspect", "-f", "{{.State.ExitCode}}", id)
                    .assertSucceeded().output().strip(), "node " + i + "'s exit code");
            String log = docker(Duration.ofSeconds(30), "logs", id).output();
            assertTrue(log.contains("Node " + i + " shut down cleanly"), log);
        }
        step("stopped: every node shut down cleanly");
        for (String command : down.subList(1, down.size())) {
            runDocCommand(command);
        }
        assertEquals("", compose(Duration.ofSeconds(30), "ps", "-q").assertSucceeded().output().strip(),
                "no container left after the page's down");
        step("the page's down commands ran");
    }

    /** Each command of the page's block, in order, as {@link ComposeDocCommands} describes. */
    private void runDoc(String kind) throws Exception {
        for (String command : doc.block(kind)) {
            runDocCommand(command);
        }
    }

    private void runDocCommand(String documented) throws Exception {
        String command = ComposeDocCommands.forRun(documented, portPrefix, jmxBase);
        Map.Entry<String, String> export = ComposeDocCommands.export(command);
        if (export != null) {
            env.put(export.getKey(), export.getValue());
            return;
        }
        commands.run(env, DOC_COMMAND, List.of("bash", "-c", command)).assertSucceeded();
    }

    /**
     * The project network's commands (not run: their addresses are a bridge network's): each one's files pass
     * {@code docker-compose config}, and each {@code --bootstrap-server} is a gRPC address the files advertise.
     */
    private void checkProjectNetworkCommands() throws Exception {
        Pattern files = Pattern.compile("^docker-compose((?: -f \\S+)+) ");
        Pattern bootstrap = Pattern.compile("--bootstrap-server (\\S+)");
        // One docker-compose config per set of files (each run is a few seconds of Python starting up).
        Map<String, String> renderedByFiles = new HashMap<>();
        for (String command : doc.block("network")) {
            Matcher f = files.matcher(command);
            assertTrue(f.find(), "a docker-compose command with its files: " + command);
            String rendered = renderedByFiles.get(f.group(1));
            if (rendered == null) {
                List<String> config = new ArrayList<>(List.of("docker-compose"));
                config.addAll(List.of(f.group(1).strip().split(" ")));
                config.add("config");
                rendered = commands.run(env, Duration.ofSeconds(30), config).assertSucceeded().output();
                renderedByFiles.put(f.group(1), rendered);
            }
            assertFalse(rendered.contains("network_mode: host"), "the project network's files: " + command);
            Matcher b = bootstrap.matcher(command);
            while (b.find()) {
                assertTrue(Pattern.compile("(^|\\s)advertised\\.listeners=PLAINTEXT://" + Pattern.quote(b.group(1))
                        + "(\\s|$)", Pattern.MULTILINE).matcher(rendered).find(),
                        b.group(1) + " is a gRPC address the files advertise:\n" + rendered);
            }
        }
        step("the project network's commands check out against docker-compose config");
    }

    /** Docker's health status of every container is healthy (its probe: tideline health), within a bound. */
    private void awaitHealthy(List<String> containers, Duration atMost) {
        List<String> command = new ArrayList<>(List.of("inspect", "-f", "{{.Id}} {{.State.Status}} {{.State.Health.Status}}"));
        command.addAll(containers);
        Awaitility.await("three healthy containers").atMost(atMost).pollInterval(Duration.ofSeconds(1))
                .until(() -> {
                    List<String> states = docker(Duration.ofSeconds(30), command.toArray(String[]::new))
                            .assertSucceeded().output().lines().toList();
                    for (String state : states) {
                        // A node that exited will not become healthy: fail now, with its log.
                        if (state.contains(" exited ") || state.contains(" dead ")) {
                            String id = state.substring(0, state.indexOf(' '));
                            throw new AssertionError("container " + state + ":\n"
                                    + docker(Duration.ofSeconds(30), "logs", "--tail", "40", id).output());
                        }
                    }
                    return states.size() == containers.size() && states.stream().allMatch(l -> l.endsWith(" running healthy"));
                });
    }

    /** The CLI's under-replicated line of partition 0 once the killed node has left its ISR. */
    private String awaitUnderReplicatedLine(String bootstrap, int killed) {
        return Awaitility.await("orders-0 listed under-replicated").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofSeconds(2))
                .until(() -> underReplicatedPartitions(bootstrap).stream().filter(l -> isPartitionZero(l)
                        && !isrOf(l).contains(killed)).findFirst(), java.util.Optional::isPresent)
                .orElseThrow();
    }

    private static boolean isPartitionZero(String line) {
        return line.contains("Topic: orders") && line.contains("Partition: 0");
    }

    /** The sum of kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions over the nodes' /metrics. */
    private double underReplicatedOnNodes(List<Integer> nodes) throws Exception {
        double sum = 0;
        for (int node : nodes) {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort(node) + "/metrics"))
                    .timeout(Duration.ofSeconds(5)).build();
            String body = http.send(request, HttpResponse.BodyHandlers.ofString()).body();
            Matcher m = Pattern.compile("(?m)^kafka_server_replicamanager_underreplicatedpartitions (\\S+)$").matcher(body);
            assertTrue(m.find(), "node " + node + " exports UnderReplicatedPartitions");
            sum += Double.parseDouble(m.group(1));
        }
        return sum;
    }

    private static List<Integer> others(int node) {
        return IntStream.rangeClosed(1, NODES).filter(i -> i != node).boxed().toList();
    }

    private List<String> underReplicatedPartitions(String bootstrap) throws Exception {
        return tideline("admin", "--bootstrap-server", bootstrap, "topics", "--describe",
                "--under-replicated-partitions").assertSucceeded().output().lines().filter(l -> !l.isBlank()).toList();
    }

    private static List<Integer> isrOf(String line) {
        Matcher m = Pattern.compile("Isr: ([0-9,]+)").matcher(line);
        assertTrue(m.find(), line);
        return Pattern.compile(",").splitAsStream(m.group(1)).map(Integer::parseInt).toList();
    }

    private void produce(String bootstrap, int from, int to) throws Exception {
        String lines = IntStream.rangeClosed(from, to).mapToObj(i -> "order-" + i + "\n").collect(Collectors.joining());
        Path input = Files.writeString(Files.createTempFile(dir, "records", ".txt"), lines);
        commands.run(env, CLI, input, launcher("produce", "--bootstrap-server", bootstrap, "--topic", "orders",
                "--partition", "0", "--acks", "all")).assertSucceeded();
    }

    private void assertConsumed(String bootstrap, int count) throws Exception {
        String out = tideline("consume", "--bootstrap-server", bootstrap, "--topic", "orders", "--partition", "0",
                "--from-beginning", "--max-messages", String.valueOf(count), "--print-offsets").assertSucceeded().output();
        for (int i = 0; i < count; i++) {
            String record = i + "\torder-" + (i + 1);
            assertTrue(out.lines().anyMatch(record::equals), "offset " + i + " in:\n" + out);
        }
    }

    /** A line per step with the time since the start, so a slow run shows where it spent its time. */
    private void step(String what) {
        System.out.printf("ComposeClusterTest %5.1f s: %s%n", (System.nanoTime() - startNanos) / 1e9, what);
    }

    /** Diagnostics for a failed run, before anything is removed: each container's state and the end of its log. */
    private void printDiagnostics(DockerEngine engine) {
        try {
            if (env != null && project != null) {
                System.out.println(compose(Duration.ofSeconds(30), "ps").output());
                System.out.println(compose(Duration.ofSeconds(60), "logs", "--no-color", "--tail", "60").output());
            }
            System.out.println(engine.daemonLogTail());
        } catch (Exception | AssertionError e) {
            System.out.println("(diagnostics failed: " + e + ")");
        }
    }

    /**
     * The containers, their volumes, the image and the build's stage images; each step on its own, so that one
     * failing does not keep the others from running. The base image stays (it is the cache).
     */
    private void removeEverythingMade() {
        if (env == null) {
            return;
        }
        List<String> problems = new ArrayList<>();
        cleanUp(problems, () -> compose(COMPOSE, "down", "-v", "-t", "30", "--remove-orphans"));
        cleanUp(problems, () -> docker(Duration.ofSeconds(60), "image", "rm", image));
        cleanUp(problems, () -> docker(Duration.ofSeconds(60), "image", "prune", "-f", "--filter",
                "label=io.tideline.build-stage=jars"));
        if (!problems.isEmpty()) {
            System.out.println("clean-up: " + String.join("\n", problems));
        }
        step("removed the containers, volumes and images it made");
    }

    @FunctionalInterface
    private interface Step {
        Commands.Result run() throws Exception;
    }

    private static void cleanUp(List<String> problems, Step step) {
        try {
            Commands.Result r = step.run();
            if (r.exitCode() != 0 && !r.output().contains("No such image")) {
                problems.add(String.join(" ", r.command()) + ": " + r.output());
            }
        } catch (Exception | AssertionError e) {
            problems.add(e.toString());
        }
    }

    private Commands.Result compose(Duration atMost, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("docker-compose", "-f", script("docker-compose.yml"), "-f",
                script("docker-compose.host.yml"), "-p", project));
        command.addAll(List.of(args));
        return commands.run(env, atMost, command);
    }

    private Commands.Result docker(Duration atMost, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("docker"));
        command.addAll(List.of(args));
        return commands.run(env, atMost, command);
    }

    private Commands.Result tideline(String... args) throws Exception {
        return commands.run(env, CLI, launcher(args));
    }

    private static List<String> launcher(String... args) {
        List<String> command = new ArrayList<>(List.of("bash", script("tideline")));
        command.addAll(List.of(args));
        return command;
    }

    private static String script(String name) {
        return REPO.resolve("scripts").resolve(name).toString();
    }

    /** Node i's gRPC port under scripts/docker-compose.host.yml: P39(1+i). */
    private int clientPort(int node) {
        return Integer.parseInt(portPrefix + "39" + (1 + node));
    }

    /** Node i's metrics port: P29(1+i). */
    private int metricsPort(int node) {
        return Integer.parseInt(portPrefix + "29" + (1 + node));
    }

    /**
     * A TIDELINE_PORT_PREFIX whose twelve ports (Kafka P092-P094, quorum P192-P194, metrics P292-P294, gRPC
     * P392-P394) are free on loopback and reserved (test-support Ports). 10-32: below the ephemeral range (32768-),
     * away from cluster.sh's 9092-9394.
     */
    private static int freePortPrefix() {
        for (int attempt = 0; attempt < 100; attempt++) {
            int prefix = ThreadLocalRandom.current().nextInt(10, 33);
            int[] ports = new int[4 * NODES];
            int n = 0;
            for (String group : List.of("09", "19", "29", "39")) {
                for (int i = 1; i <= NODES; i++) {
                    ports[n++] = Integer.parseInt(prefix + group + (1 + i));
                }
            }
            if (Ports.claim(ports)) {
                return prefix;
            }
        }
        throw new AssertionError("no free port prefix found for scripts/docker-compose.host.yml");
    }

    /** The repository root: the nearest directory above the module's that holds scripts/tideline. */
    private static Path findRepository() {
        for (Path p = Path.of(System.getProperty("user.dir")).toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("scripts/tideline"))) {
                return p;
            }
        }
        throw new IllegalStateException("no scripts/tideline above " + System.getProperty("user.dir"));
    }
}
