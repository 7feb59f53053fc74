package io.tideline.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.tideline.common.errors.Errors;
import io.tideline.proto.admin.AdminServiceGrpc;
import io.tideline.proto.admin.CreateTopicsRequest;
import io.tideline.proto.admin.CreateTopicsResponse;
import io.tideline.proto.admin.NewTopic;
import io.tideline.proto.client.ClientServiceGrpc;
import io.tideline.proto.client.FetchPartition;
import io.tideline.proto.client.FetchPartitionResponse;
import io.tideline.proto.client.FetchRequest;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProducePartitionResponse;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatchBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * The raw gRPC stubs against one node, for tests that run nodes as processes (no Java client needed):
 * one partition, string values.
 */
final class RawNodeClient implements AutoCloseable {
    private static final long DEADLINE_MS = 10_000;
    private final ManagedChannel channel;

    RawNodeClient(int port) {
        this.channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    }

    private ClientServiceGrpc.ClientServiceBlockingStub client() {
        return ClientServiceGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS);
    }

    /** Creates a one-partition topic and waits until its leader takes fetches. */
    void createTopic(String topic, int replicationFactor) {
        CreateTopicsResponse created = AdminServiceGrpc.newBlockingStub(channel)
                .withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS)
                .createTopics(CreateTopicsRequest.newBuilder().addTopics(NewTopic.newBuilder().setName(topic)
                        .setNumPartitions(1).setReplicationFactor(replicationFactor)).build());
        assertEquals(Errors.NONE.code(), created.getResults(0).getErrorCode(), created.toString());
        Awaitility.await(topic + " led").atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                .until(() -> fetch(topic, 0).getErrorCode() == Errors.NONE.code());
    }

    /** Produces one batch of {@code values} with acks=all; returns the partition's answer. */
    ProducePartitionResponse produce(String topic, List<String> values) {
        RecordBatchBuilder batch = new RecordBatchBuilder(0L);
        for (String value : values) {
            batch.append(System.currentTimeMillis(), (byte[]) null, value.getBytes(StandardCharsets.UTF_8));
        }
        return client().produce(ProduceRequest.newBuilder().setAcks(-1).setTimeoutMs((int) DEADLINE_MS)
                .addPartitions(ProducePartition.newBuilder().setTopic(topic).setPartition(0)
                        .setRecords(ByteString.copyFrom(MemoryRecords.of(batch.build()).buffer())))
                .build()).getPartitions(0);
    }

    FetchPartitionResponse fetch(String topic, long offset) {
        return client().fetch(FetchRequest.newBuilder().setMaxBytes(1 << 20).setMaxWaitMs(0)
                .addPartitions(FetchPartition.newBuilder().setTopic(topic).setPartition(0).setFetchOffset(offset)
                        .setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(-1)).build()).getPartitions(0);
    }

    /** Every value below the high watermark, by offset, once the high watermark has reached {@code atLeast}. */
    TreeMap<Long, String> readAll(String topic, long atLeast) {
        Awaitility.await(topic + " high watermark at " + atLeast).atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(100)).until(() -> fetch(topic, 0).getHighWatermark() >= atLeast);
        TreeMap<Long, String> values = new TreeMap<>();
        long next = 0;
        while (true) {
            FetchPartitionResponse r = fetch(topic, next);
            assertEquals(Errors.NONE.code(), r.getErrorCode(), r.toString());
            if (next >= r.getHighWatermark()) {
                return values;
            }
            long from = next;
            for (Record record : MemoryRecords.readableRecords(r.getRecords().asReadOnlyByteBuffer()).records()) {
                values.put(record.offset(), new String(record.value(), StandardCharsets.UTF_8));
                next = Math.max(next, record.offset() + 1);
            }
            if (next == from) {
                throw new AssertionError("fetch at " + from + " below the high watermark returned nothing: " + r);
            }
        }
    }

    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
