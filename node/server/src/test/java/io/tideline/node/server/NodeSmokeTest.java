package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import io.tideline.common.errors.Errors;
import io.tideline.proto.admin.CreateTopicsRequest;
import io.tideline.proto.admin.CreateTopicsResponse;
import io.tideline.proto.admin.NewTopic;
import io.tideline.proto.admin.ConfigValue;
import io.tideline.proto.client.FetchPartition;
import io.tideline.proto.client.FetchRequest;
import io.tideline.proto.client.FetchResponse;
import io.tideline.proto.client.MetadataRequest;
import io.tideline.proto.client.MetadataResponse;
import io.tideline.proto.client.PartitionMetadata;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.proto.client.ProduceResponse;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeSmokeTest {
    @TempDir
    Path dir;

    @Test
    void threeNodesCreateProduceAcksAllAndFetch() throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 3, Map.of()).startAll()) {
            CreateTopicsResponse created = cluster.admin(1).createTopics(CreateTopicsRequest.newBuilder()
                    .addTopics(NewTopic.newBuilder().setName("orders").setNumPartitions(1).setReplicationFactor(3)
                            .addConfigs(ConfigValue.newBuilder().setKey("min.insync.replicas").setValue("2")))
                    .build());
            assertEquals(Errors.NONE.code(), created.getResults(0).getErrorCode(), created.toString());
            int[] leader = new int[1];
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
                MetadataResponse m = cluster.client(1).metadata(MetadataRequest.newBuilder().addTopics("orders").build());
                if (m.getTopics(0).getPartitionsCount() == 0) {
                    return false; // node 1 has not applied the committed topic yet
                }
                PartitionMetadata p = m.getTopics(0).getPartitions(0);
                leader[0] = p.getLeaderId();
                return p.getLeaderId() > 0 && cluster.node(p.getLeaderId()).replicaManager().partition(
                        new io.tideline.common.TopicPartition("orders", 0)).map(x -> x.isLeader()).orElse(false);
            });
            MemoryRecords records = MemoryRecords.of(new RecordBatchBuilder(0L).append(1L, "k", "hello").build());
            ProduceResponse produced = cluster.client(leader[0]).produce(ProduceRequest.newBuilder().setAcks(-1)
                    .setTimeoutMs(10_000).addPartitions(ProducePartition.newBuilder().setTopic("orders").setPartition(0)
                            .setRecords(ByteString.copyFrom(records.buffer()))).build());
            assertEquals(Errors.NONE.code(), produced.getPartitions(0).getErrorCode(), produced.toString());
            FetchResponse fetched = cluster.client(leader[0]).fetch(FetchRequest.newBuilder().setMaxBytes(1 << 20)
                    .setMaxWaitMs(100).addPartitions(FetchPartition.newBuilder().setTopic("orders").setPartition(0)
                            .setFetchOffset(0).setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(-1)).build());
            assertEquals(Errors.NONE.code(), fetched.getPartitions(0).getErrorCode(), fetched.toString());
            assertEquals(1, fetched.getPartitions(0).getHighWatermark());
            assertEquals("hello", new String(MemoryRecords.readableRecords(fetched.getPartitions(0).getRecords()
                    .asReadOnlyByteBuffer()).records().get(0).value(), java.nio.charset.StandardCharsets.UTF_8));
        }
    }
}
