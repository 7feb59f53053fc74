package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Gauge;
import com.google.protobuf.ByteString;
import io.tideline.common.errors.Errors;
import io.tideline.proto.admin.CreateTopicsRequest;
import io.tideline.proto.admin.CreateTopicsResponse;
import io.tideline.proto.admin.NewTopic;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.proto.client.ProduceResponse;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import java.io.DataOutputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka listener and the gRPC listener each have their own queued.max.request.bytes (docs/behaviours.md B112):
 * Kafka connections that hold the Kafka listener's pool past its bound with frames they do not finish leave gRPC
 * requests, produces included, read and answered at once.
 */
class ListenerRequestMemoryTest {
    private static final int MIB = 1024 * 1024;

    @TempDir
    Path dir;

    @SuppressWarnings("unchecked")
    private static long gauge(TidelineNode node, String name) {
        return ((Gauge<Long>) node.metrics().getGauges().get(name)).getValue();
    }

    @Test
    void kafkaFramesHoldingTheKafkaPoolLeaveTheGrpcListenersPoolFree() throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 1, Map.of("queued.max.request.bytes", String.valueOf(MIB),
                "socket.request.max.bytes", String.valueOf(MIB))).startAll()) {
            TidelineNode node = cluster.node(1);
            List<Socket> hostile = new ArrayList<>();
            try {
                // Two frames of 1 MiB, each but its last byte sent, and neither finishes. Between them they take the
                // pool past its bound: one frame at a time is let past it when nothing handled would free room
                // (B110), and which one, and how far the other gets first, depends on how the node reads them.
                for (int i = 0; i < 2; i++) {
                    Socket s = new Socket("127.0.0.1", cluster.kafkaPort(1));
                    hostile.add(s);
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    out.writeInt(MIB);
                    out.write(new byte[MIB - 1]);
                    out.flush();
                }
                Awaitility.await("the Kafka listener's pool held past its bound").atMost(Duration.ofSeconds(20))
                        .until(() -> gauge(node, SocketServerMetrics.PREFIX + "MemoryPoolUsed") > MIB);

                CreateTopicsResponse created = cluster.admin(1).withDeadlineAfter(20, TimeUnit.SECONDS).createTopics(
                        CreateTopicsRequest.newBuilder().addTopics(NewTopic.newBuilder().setName("t")
                                .setNumPartitions(1).setReplicationFactor(1)).build());
                assertEquals(Errors.NONE.code(), created.getResults(0).getErrorCode(), created.toString());
                MemoryRecords records = MemoryRecords.of(new RecordBatchBuilder(0L).append(1L, "k", "v").build());
                ProduceRequest produce = ProduceRequest.newBuilder().setAcks(-1).setTimeoutMs(5_000)
                        .addPartitions(ProducePartition.newBuilder().setTopic("t").setPartition(0)
                                .setRecords(ByteString.copyFrom(records.buffer()))).build();
                Awaitility.await("a gRPC produce answered").atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                    long start = System.nanoTime();
                    ProduceResponse produced = cluster.client(1).withDeadlineAfter(5, TimeUnit.SECONDS)
                            .produce(produce);
                    assertEquals(Errors.NONE.code(), produced.getPartitions(0).getErrorCode(), produced.toString());
                    assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2));
                });
                assertTrue(gauge(node, SocketServerMetrics.PREFIX + "MemoryPoolAvailable") < 0,
                        "the Kafka frames still hold their pool");
                assertTrue(gauge(node, SocketServerMetrics.GRPC_PREFIX + "MemoryPoolAvailable") > MIB / 2,
                        "the gRPC listener's pool holds none of the Kafka frames");
            } finally {
                for (Socket s : hostile) {
                    s.close();
                }
            }
            Awaitility.await("the Kafka pool given back once its peers are gone").atMost(Duration.ofSeconds(20))
                    .until(() -> gauge(node, SocketServerMetrics.PREFIX + "MemoryPoolUsed") == 0);
        }
    }
}
