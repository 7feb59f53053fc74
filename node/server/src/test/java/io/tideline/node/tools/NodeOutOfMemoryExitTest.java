package io.tideline.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.tideline.client.ProducerRecord;
import io.tideline.client.RecordMetadata;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineProducer;
import io.tideline.client.TopicDescription;
import io.tideline.proto.client.ClientServiceGrpc;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.testsupport.ports.Ports;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that runs out of heap exits at once, and the cluster carries on without it. Three real node
 * processes; node 3 runs through {@code scripts/tideline server} (whose JVM options are under test) with a
 * heap far below what its configuration lets a request take (socket.request.max.bytes and
 * queued.max.request.bytes above the heap: the misconfiguration the start-up warning names). One request
 * larger than that heap then runs it out of memory. It must exit with -XX:+ExitOnOutOfMemoryError's code,
 * free its port, and the controller must fence it and move its leaderships, so that acks=all produces to
 * the partitions it led succeed on the other two.
 */
@DisabledOnOs(value = OS.WINDOWS, disabledReason = "runs bash and real processes")
class NodeOutOfMemoryExitTest {
    private static final Duration START = Duration.ofSeconds(60);
    private static final int VICTIM = 3;
    private static final int REQUEST_BYTES = 96 * 1024 * 1024;

    @TempDir
    Path dir;

    private final List<NodeProcess> processes = new ArrayList<>();

    @AfterEach
    void stopEveryProcess() {
        processes.forEach(NodeProcess::close);
    }

    @Test
    void aNodeOutOfHeapExitsAtOnceAndTheControllerMovesItsLeaderships() throws Exception {
        int[] ports = Ports.distinct(6);
        int[] clientPorts = {0, ports[0], ports[1], ports[2]};
        String voters = "1@127.0.0.1:" + ports[3] + ",2@127.0.0.1:" + ports[4] + ",3@127.0.0.1:" + ports[5];
        NodeProcess[] nodes = new NodeProcess[4];
        for (int id = 1; id <= 3; id++) {
            Path config = writeConfig(id, voters, clientPorts[id], id == VICTIM);
            Path output = dir.resolve("node-" + id + ".out");
            nodes[id] = id == VICTIM
                    ? NodeProcess.startWithLauncher(config, output, "-Xmx64m -XX:MaxDirectMemorySize=512m -XX:+UseSerialGC")
                    : NodeProcess.start(config, output);
            processes.add(nodes[id]);
        }
        for (int id = 1; id <= 3; id++) {
            nodes[id].awaitStarted(START);
        }
        nodes[VICTIM].find("queued.max.request.bytes=1073741824 is more than half of the maximum heap");
        assertTrue(!nodes[VICTIM].output().contains("without -XX:+ExitOnOutOfMemoryError"),
                "the launcher runs a node with the flag:\n" + nodes[VICTIM].output());

        String bootstrap = "127.0.0.1:" + clientPorts[1];
        try (TidelineAdmin admin = new TidelineAdmin(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopic("orders", 3, 3, Map.of("min.insync.replicas", "2"));
            Awaitility.await("every partition led").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> partitions(admin).stream().allMatch(p -> p.leader() > 0 && p.isr().size() == 3));
            List<Integer> ledByVictim = partitions(admin).stream().filter(p -> p.leader() == VICTIM)
                    .map(TopicDescription.PartitionDescription::partition).toList();
            assertTrue(!ledByVictim.isEmpty(), "placement gives node 3 a leadership: " + partitions(admin));

            sendRequestLargerThanTheHeap(clientPorts[VICTIM]);
            assertTrue(nodes[VICTIM].awaitExit(Duration.ofSeconds(30)) == OutOfMemoryPolicy.EXIT_OUT_OF_MEMORY,
                    "exit code of -XX:+ExitOnOutOfMemoryError:\n" + nodes[VICTIM].output());
            nodes[VICTIM].find("Terminating due to java.lang.OutOfMemoryError: Java heap space");
            assertPortFree(clientPorts[VICTIM]);

            Awaitility.await("node 3's leaderships moved").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200)).until(() -> partitions(admin).stream()
                            .allMatch(p -> p.leader() > 0 && p.leader() != VICTIM));
            try (TidelineProducer producer = new TidelineProducer(Map.of("bootstrap.servers", bootstrap, "acks", "all",
                    "linger.ms", "0"))) {
                for (int partition : ledByVictim) {
                    RecordMetadata written = producer.send(new ProducerRecord("orders", partition, null,
                            "after".getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
                    assertEquals(0, written.offset());
                }
            }
        }
        for (int id = 1; id < VICTIM; id++) {
            assertTrue(nodes[id].isAlive(), "node " + id + " still serves");
        }
    }

    private static List<TopicDescription.PartitionDescription> partitions(TidelineAdmin admin) {
        return admin.describeTopics(List.of("orders")).get(0).partitions();
    }

    /** One produce whose records alone are larger than node 3's heap: parsing it must allocate them. */
    private static void sendRequestLargerThanTheHeap(int port) throws InterruptedException {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext()
                .maxInboundMessageSize(1 << 20).build();
        try {
            ProduceRequest request = ProduceRequest.newBuilder().setAcks(-1).setTimeoutMs(30_000)
                    .addPartitions(ProducePartition.newBuilder().setTopic("orders").setPartition(0)
                            .setRecords(ByteString.copyFrom(new byte[REQUEST_BYTES]))).build();
            ClientServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS).produce(request);
            throw new AssertionError("node 3 answered a request larger than its heap");
        } catch (io.grpc.StatusRuntimeException expected) {
            // The node died under it.
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static void assertPortFree(int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            throw new AssertionError("port " + port + " still accepts connections after the node exited");
        } catch (ConnectException expected) {
            // Nothing listens any more.
        }
    }

    private Path writeConfig(int id, String voters, int clientPort, boolean victim) throws IOException {
        Properties p = new Properties();
        p.putAll(Map.of(
                "node.id", String.valueOf(id),
                "process.roles", "broker,controller",
                "controller.quorum.voters", voters,
                "listeners", "PLAINTEXT://127.0.0.1:" + clientPort,
                "log.dirs", dir.resolve("node-" + id + "/logs").toString(),
                "metadata.log.dir", dir.resolve("node-" + id + "/metadata").toString(),
                "broker.heartbeat.interval.ms", "200",
                "broker.session.timeout.ms", "3000",
                "controlled.shutdown.timeout.ms", "5000",
                "metrics.http.port", "-1"));
        if (victim) {
            // Bounds above the heap: one request may take more memory than the node has.
            p.put("socket.request.max.bytes", String.valueOf(2 * REQUEST_BYTES));
            p.put("queued.max.request.bytes", String.valueOf(1L << 30));
        }
        Path file = dir.resolve("node-" + id + ".properties");
        try (var w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(w, "out-of-memory test node " + id);
        }
        return file;
    }
}
