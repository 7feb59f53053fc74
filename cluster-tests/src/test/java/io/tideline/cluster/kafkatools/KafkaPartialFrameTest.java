package io.tideline.cluster.kafkatools;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Raw sockets that declare 100 MiB request frames on the Kafka port and never send them (docs/behaviours.md B110,
 * B111): on every node three connections each send only a size field of 100 MiB, and one of them then trickles a
 * byte every half second. While they are open, Kafka's own producer (acks=all, through the Kafka listener) and
 * Tideline's CLI (acks=all, over gRPC) each produce 50 records within a few seconds (or, on a machine so busy that
 * the same produce took longer before the hostile connections, twice that), the node closes every hostile
 * connection once {@code kafka.request.receive.timeout.ms} has passed, and every node lives.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "cluster.sh is a bash script that reads /proc")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaPartialFrameTest {
    private static final int NODES = 3;
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static final int DECLARED = 100 * 1024 * 1024;
    private static final int HOSTILE_PER_NODE = 3;
    private static final int RECORDS = 50;
    /** Short, so that the test's wall time stays small; the default is 30 s. */
    private static final long RECEIVE_TIMEOUT_MS = 8_000;
    /** What "within a few seconds" means on two cores shared with other builds: the Kafka producer in this JVM. */
    private static final Duration PRODUCER_BOUND = Duration.ofSeconds(6);
    /** The CLI is a fresh JVM (2-4 s of start-up on two busy cores) before its one produce call. */
    private static final Duration CLI_BOUND = Duration.ofSeconds(12);

    @TempDir
    static Path dir;

    private ScriptCluster cluster;
    private List<Long> nodePids = List.of();
    private final List<Socket> hostile = new ArrayList<>();
    private final ScheduledExecutorService trickler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "trickler");
        t.setDaemon(true);
        return t;
    });

    @BeforeAll
    void startCluster() throws Exception {
        cluster = new ScriptCluster(REPO, dir, NODES, Map.of("kafka.request.receive.timeout.ms",
                String.valueOf(RECEIVE_TIMEOUT_MS)));
        nodePids = cluster.startAndRecordPids();
    }

    @AfterAll
    void stopCluster() throws Exception {
        trickler.shutdownNow();
        for (Socket s : hostile) {
            s.close();
        }
        if (cluster != null) {
            cluster.stopLeavingNothing(nodePids);
        }
    }

    @Test
    void framesDeclaredButNotSentStarveNobodyAndAreClosedAfterTheReceiveTimeout() throws Exception {
        cluster.tideline(Duration.ofSeconds(60), "admin", "--bootstrap-server", cluster.grpcBootstrap(), "topics",
                "--create", "--topic", "pinned", "--partitions", "3", "--replication-factor", "3", "--config",
                "min.insync.replicas=2").assertSucceeded();
        String bootstrap = "127.0.0.1:" + cluster.kafkaPort(1);
        try (KafkaProducer<String, String> producer = producer(bootstrap)) {
            // Before: connections and metadata in place, and the unhindered times to compare with.
            long producerBefore = produce(producer, "before");
            long cliBefore = produceWithCli("before");

            long declaredAt = System.nanoTime();
            Socket trickling = null;
            for (int node = 1; node <= NODES; node++) {
                for (int i = 0; i < HOSTILE_PER_NODE; i++) {
                    Socket s = new Socket("127.0.0.1", cluster.kafkaPort(node));
                    hostile.add(s);
                    new DataOutputStream(s.getOutputStream()).writeInt(DECLARED);
                    s.getOutputStream().flush();
                    if (i == 0) {
                        trickle(s);
                        trickling = s;
                    }
                }
            }

            // Both are tried, and their times printed, before either is judged.
            Attempt producerDuring = Attempt.of(() -> produce(producer, "during"));
            Attempt cliDuring = Attempt.of(() -> produceWithCli("during"));
            System.out.printf("acks=all produce of %d records: Kafka producer %d ms before, %s with %d frames "
                    + "of 100 MiB declared; Tideline CLI %d ms before, %s with them%n", RECORDS, producerBefore,
                    producerDuring, hostile.size(), cliBefore, cliDuring);
            // A few seconds, or twice the same produce without them when the machine is that busy.
            producerDuring.assertWithin(max(PRODUCER_BOUND, 2 * producerBefore), "Kafka's producer");
            cliDuring.assertWithin(max(CLI_BOUND, 2 * cliBefore), "Tideline's CLI");

            // The node, not the test, ends each of them, and not before the timeout (the trickler included).
            Awaitility.await("every hostile connection closed by its node").atMost(Duration.ofMillis(
                            RECEIVE_TIMEOUT_MS + 20_000)).pollInterval(Duration.ofMillis(200))
                    .until(() -> hostile.stream().allMatch(KafkaPartialFrameTest::closedByPeer));
            long closedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - declaredAt);
            System.out.printf("hostile connections closed by the nodes %d ms after their size fields%n", closedAfterMs);
            assertTrue(closedAfterMs >= RECEIVE_TIMEOUT_MS - 1_000, "closed after " + closedAfterMs + " ms");
            assertTrue(closedByPeer(trickling));

            // Every node lives and serves.
            for (long pid : nodePids) {
                assertTrue(cluster.isOurNode(pid), "node " + pid + " died");
            }
            Attempt.of(() -> produce(producer, "after")).assertWithin(max(PRODUCER_BOUND, 2 * producerBefore),
                    "Kafka's producer after");
        }
    }

    /** A produce's wall time, and how it failed if it did. */
    private record Attempt(long ms, Throwable failure) {
        interface Run {
            long ms() throws Exception;
        }

        static Attempt of(Run run) {
            long start = System.nanoTime();
            try {
                return new Attempt(run.ms(), null);
            } catch (Exception | AssertionError e) {
                return new Attempt(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), e);
            }
        }

        void assertWithin(Duration bound, String who) {
            if (failure != null) {
                throw new AssertionError(who + " failed after " + ms + " ms", failure);
            }
            assertTrue(ms <= bound.toMillis(), who + " took " + ms + " ms");
        }

        @Override
        public String toString() {
            return ms + " ms" + (failure == null ? "" : " (failed: " + failure + ")");
        }
    }

    private static Duration max(Duration bound, long ms) {
        return bound.toMillis() >= ms ? bound : Duration.ofMillis(ms);
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return new KafkaProducer<>(p);
    }

    /** 50 records over the topic's partitions, acks=all; the milliseconds until all are acknowledged. */
    private static long produce(KafkaProducer<String, String> producer, String label) throws Exception {
        long start = System.nanoTime();
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            sent.add(producer.send(new ProducerRecord<>("pinned", i % 3, null, label + "-" + i)));
        }
        for (Future<RecordMetadata> f : sent) {
            f.get(60, TimeUnit.SECONDS);
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    /** {@code scripts/tideline produce --acks all} of 50 lines over gRPC; the milliseconds of the whole run. */
    private long produceWithCli(String label) throws Exception {
        Path input = Files.writeString(Files.createTempFile(dir, "records", ".txt"), IntStream.range(0, RECORDS)
                .mapToObj(i -> label + "-cli-" + i).collect(Collectors.joining("\n")) + "\n");
        long start = System.nanoTime();
        cluster.tidelineWithInput(Duration.ofSeconds(90), input, "produce", "--bootstrap-server",
                cluster.grpcBootstrap(), "--topic", "pinned", "--partition", "0", "--acks", "all").assertSucceeded();
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    /** One byte of the frame's body every half second, until the connection is gone. */
    private void trickle(Socket s) {
        trickler.scheduleWithFixedDelay(() -> {
            try {
                s.getOutputStream().write(0);
                s.getOutputStream().flush();
            } catch (IOException e) {
                throw new IllegalStateException("closed", e);
            }
        }, 500, 500, TimeUnit.MILLISECONDS);
    }

    /** Whether the node ended the connection: end of stream or a reset, never an answer. */
    private static boolean closedByPeer(Socket s) {
        try {
            s.setSoTimeout(50);
            InputStream in = s.getInputStream();
            int b = in.read();
            if (b >= 0) {
                throw new AssertionError("the node answered a frame it never received in full");
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }
}
