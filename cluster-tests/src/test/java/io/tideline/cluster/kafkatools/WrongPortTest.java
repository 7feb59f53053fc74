package io.tideline.cluster.kafkatools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineClientException;
import io.tideline.client.TransportException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The port layout from outside (docs/kafka-protocol.md "Ports", docs/behaviours.md B230-B231), on a one-node
 * {@code cluster.sh} cluster: start names both bootstrap servers, status has a Kafka column, Kafka's Admin and
 * kafka-topics pointed at the gRPC port get a correct answer, and Tideline's CLI and client pointed at the Kafka
 * port get the node's one line naming the gRPC address, each within 5 s.
 *
 * <p>In-process clients are held to 5 s. The tool and CLI runs are fresh JVMs (2-4 s of start-up on two busy
 * cores), so they are held to 5 s more than the same command against the right port took.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "cluster.sh is a bash script that reads /proc")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WrongPortTest {
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static final Duration BOUND = Duration.ofSeconds(5);
    private static final String TOPIC = "placed";

    @TempDir
    static Path dir;

    private ScriptCluster cluster;
    private KafkaTools kafka;
    private List<Long> nodePids = List.of();
    private ChildProcess.Result start;

    @BeforeAll
    void startCluster() throws Exception {
        cluster = new ScriptCluster(REPO, dir, 1);
        kafka = KafkaTools.fromBuild(REPO, dir, new ChildProcess(REPO, Files.createDirectories(dir.resolve("tools")),
                Map.of()));
        start = cluster.start();
        nodePids = cluster.recordedPids();
        cluster.tideline(Duration.ofSeconds(60), "admin", "--bootstrap-server", cluster.grpcBootstrap(), "topics",
                "--create", "--topic", TOPIC, "--partitions", "1", "--replication-factor", "1").assertSucceeded();
    }

    @AfterAll
    void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.stopLeavingNothing(nodePids);
        }
    }

    @Test
    void startNamesBothBootstrapServersKafkasFirstAndStatusHasAKafkaColumn() throws Exception {
        String kafkaAddress = "127.0.0.1:" + cluster.kafkaPort(1);
        assertTrue(start.stdout().contains("cluster of 1 nodes serving; Kafka bootstrap server " + kafkaAddress
                + "; gRPC (tideline CLI) bootstrap server " + cluster.grpcBootstrap()), start.toString());
        ChildProcess.Result status = cluster.clusterSh(Duration.ofSeconds(60), "status").assertSucceeded();
        assertTrue(Pattern.compile("(?m)^node\\s+state\\s+pid\\s+kafka\\s+grpc\\s+quorum\\s+metrics$")
                .matcher(status.stdout()).find(), status.toString());
        assertTrue(Pattern.compile("(?m)^1\\s+serving\\s+" + nodePids.get(0) + "\\s+" + Pattern.quote(kafkaAddress)
                + "\\s+" + Pattern.quote(cluster.grpcBootstrap()) + "\\s").matcher(status.stdout()).find(),
                status.toString());
        assertEquals(kafkaAddress, cluster.kafkaBootstrap());
    }

    @Test
    void kafkasAdminOnTheGrpcPortIsRelayedAndAnswersCorrectly() throws Exception {
        long startNs = System.nanoTime();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.grpcBootstrap(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000"))) {
            Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            Duration took = Duration.ofNanos(System.nanoTime() - startNs);
            System.out.printf("Kafka Admin listTopics through the gRPC port: %d ms%n", took.toMillis());
            assertTrue(topics.contains(TOPIC), topics.toString());
            assertTrue(took.compareTo(BOUND) < 0, "listTopics through the gRPC port took " + took);
            // Its Metadata named the Kafka listener, so what follows goes there directly and works as anywhere.
            admin.createTopics(List.of(new NewTopic("made-via-grpc-port", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            assertEquals(cluster.kafkaPort(1), admin.describeCluster().nodes().get(30, TimeUnit.SECONDS)
                    .iterator().next().port());
        }
        ChildProcess.Result log = cluster.clusterSh(Duration.ofSeconds(30), "logs", "1").assertSucceeded();
        assertTrue(log.stdout().contains("sent a Kafka request to the gRPC API's port " + cluster.grpcBootstrap()
                + "; relaying its connection to this node's Kafka listener. Kafka clients belong on 127.0.0.1:"
                + cluster.kafkaPort(1)), "one WARN naming the mistake");
    }

    @Test
    void kafkaTopicsListOnTheGrpcPortEndsWithTheTopics() throws Exception {
        Timed right = Timed.run(() -> kafka.run(Duration.ofSeconds(60), KafkaTools.TOPIC_COMMAND, "--bootstrap-server",
                "127.0.0.1:" + cluster.kafkaPort(1), "--list").assertSucceeded());
        Timed wrong = Timed.run(() -> kafka.run(Duration.ofSeconds(60), KafkaTools.TOPIC_COMMAND, "--bootstrap-server",
                cluster.grpcBootstrap(), "--list").assertSucceeded());
        System.out.printf("kafka-topics --list: %d ms on the gRPC port, %d ms on the Kafka port%n",
                wrong.took.toMillis(), right.took.toMillis());
        assertTrue(wrong.result.stdout().lines().anyMatch(TOPIC::equals), wrong.result.toString());
        assertEquals(right.result.stdout(), wrong.result.stdout());
        assertTrue(wrong.took.compareTo(right.took.plus(BOUND)) < 0,
                "kafka-topics --list on the gRPC port took " + wrong.took + ", on the Kafka port " + right.took);
    }

    @Test
    void tidelinesClientOnTheKafkaPortFailsAtOnceNamingTheGrpcAddress() {
        long startNs = System.nanoTime();
        try (TidelineAdmin admin = new TidelineAdmin(Map.of("bootstrap.servers", "127.0.0.1:" + cluster.kafkaPort(1),
                "default.api.timeout.ms", "30000"))) {
            TidelineClientException e = assertThrows(TidelineClientException.class, admin::listTopics);
            Duration took = Duration.ofNanos(System.nanoTime() - startNs);
            System.out.printf("Tideline client listTopics on the Kafka port failed after %d ms%n", took.toMillis());
            TransportException transport = assertInstanceOf(TransportException.class, e);
            assertEquals("this is Tideline's Kafka listener (Apache Kafka's protocol); the gRPC API (tideline CLI, "
                    + "Tideline clients) is on " + cluster.grpcBootstrap(), transport.wrongListener().orElseThrow());
            assertTrue(took.compareTo(BOUND) < 0, "the failure took " + took);
        }
    }

    @Test
    void theTidelineCliOnTheKafkaPortPrintsOneLineNamingTheGrpcAddress() throws Exception {
        Timed right = Timed.run(() -> cluster.tideline(Duration.ofSeconds(60), "admin", "--bootstrap-server",
                cluster.grpcBootstrap(), "topics", "--list").assertSucceeded());
        Timed wrong = Timed.run(() -> cluster.tideline(Duration.ofSeconds(60), "admin", "--bootstrap-server",
                "127.0.0.1:" + cluster.kafkaPort(1), "topics", "--list"));
        System.out.printf("tideline admin topics --list: %d ms on the Kafka port (exit %d), %d ms on the gRPC port%n",
                wrong.took.toMillis(), wrong.result.exitCode(), right.took.toMillis());
        assertEquals(1, wrong.result.exitCode(), wrong.result.toString());
        assertEquals("admin: wrong port: ListTopics to 127.0.0.1:" + cluster.kafkaPort(1) + ": this is Tideline's "
                + "Kafka listener (Apache Kafka's protocol); the gRPC API (tideline CLI, Tideline clients) is on "
                + cluster.grpcBootstrap(), wrong.result.stderr().strip(), wrong.result.toString());
        assertTrue(wrong.took.compareTo(right.took.plus(BOUND)) < 0,
                "the CLI on the Kafka port took " + wrong.took + ", on the gRPC port " + right.took);

        ChildProcess.Result health = cluster.tideline(Duration.ofSeconds(60), "health", "--server",
                "127.0.0.1:" + cluster.kafkaPort(1));
        assertEquals(1, health.exitCode(), health.toString());
        assertTrue(health.stderr().strip().startsWith("health: wrong port: 127.0.0.1:" + cluster.kafkaPort(1)
                + ": this is Tideline's Kafka listener"), health.toString());
    }

    private record Timed(ChildProcess.Result result, Duration took) {
        interface Run {
            ChildProcess.Result run() throws Exception;
        }

        static Timed run(Run run) throws Exception {
            long startNs = System.nanoTime();
            ChildProcess.Result result = run.run();
            return new Timed(result, Duration.ofNanos(System.nanoTime() - startNs));
        }
    }
}
