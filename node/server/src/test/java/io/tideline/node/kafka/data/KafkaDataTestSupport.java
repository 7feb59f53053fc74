package io.tideline.node.kafka.data;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.kafka.KafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.TidelineNode;
import io.tideline.proto.admin.ConfigValue;
import io.tideline.proto.admin.CreateTopicsRequest;
import io.tideline.proto.admin.CreateTopicsResponse;
import io.tideline.proto.admin.NewTopic;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.replication.server.Partition;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.RequestHeader;
import org.awaitility.Awaitility;

/** Helpers of the data API tests: requests as the listener parses them, topics, leaders, Kafka batches. */
final class KafkaDataTestSupport {
    static final Duration WAIT = Duration.ofSeconds(30);
    private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 40000);

    private KafkaDataTestSupport() {
    }

    /**
     * The request as the listener hands it to an API: {@code body} written at {@code version} and parsed back, so
     * fields the version lacks are gone and records are slices of the frame's buffer, as on the wire.
     */
    static KafkaRequest request(ApiKeys key, short version, ApiMessage body) {
        return new KafkaRequest(new RequestHeader(key, version, "kdata-test", 7), roundTrip(body, version), PEER);
    }

    /** Writes {@code message} at {@code version} and reads it back: fails as the listener's writer would. */
    @SuppressWarnings("unchecked")
    static <T extends ApiMessage> T roundTrip(T message, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buffer = ByteBuffer.allocate(message.size(cache, version));
        message.write(new ByteBufferAccessor(buffer), cache, version);
        buffer.flip();
        try {
            return (T) message.getClass().getConstructor(Readable.class, short.class)
                    .newInstance(new ByteBufferAccessor(buffer), version);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    static <T extends ApiMessage> T call(KafkaApi api, KafkaRequest request) throws Exception {
        @SuppressWarnings("unchecked")
        CompletableFuture<T> answer = (CompletableFuture<T>) api.handle(request);
        return answer.get(30, TimeUnit.SECONDS);
    }

    static MemoryRecords kafkaBatch(long firstTimestamp, String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(firstTimestamp + i, ("k" + i).getBytes(StandardCharsets.UTF_8),
                    values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    /** Creates the topic through node 1 and waits until each partition has a serving leader and a full ISR. */
    static void createTopic(NodeTestCluster cluster, String name, int partitions, int replicationFactor,
                            Map<String, String> configs) {
        NewTopic.Builder t = NewTopic.newBuilder().setName(name).setNumPartitions(partitions)
                .setReplicationFactor(replicationFactor);
        configs.forEach((k, v) -> t.addConfigs(ConfigValue.newBuilder().setKey(k).setValue(v)));
        CreateTopicsResponse created = cluster.admin(1).createTopics(CreateTopicsRequest.newBuilder().addTopics(t).build());
        assertEquals(Errors.NONE.code(), created.getResults(0).getErrorCode(), created.toString());
        for (int p = 0; p < partitions; p++) {
            int partition = p;
            Awaitility.await("leader and full ISR of " + name + "-" + p).atMost(WAIT).until(() ->
                    cluster.running().stream().allMatch(n -> n.image().partition(name, partition)
                            .map(r -> r.getIsrCount() == replicationFactor).orElse(false))
                    && leaderNode(cluster, name, partition) != null);
        }
    }

    /** The node leading {@code topic}-{@code partition} locally, null when none does yet. */
    static TidelineNode leaderNode(NodeTestCluster cluster, String topic, int partition) {
        for (TidelineNode n : cluster.running()) {
            int leader = n.image().partition(topic, partition).map(PartitionRecord::getLeader).orElse(-1);
            if (leader == n.nodeId() && n.replicaManager().partition(new TopicPartition(topic, partition))
                    .map(Partition::isLeader).orElse(false)) {
                return n;
            }
        }
        return null;
    }

    /** A running node that does not lead the partition. */
    static TidelineNode followerNode(NodeTestCluster cluster, String topic, int partition) {
        TidelineNode leader = leaderNode(cluster, topic, partition);
        return cluster.running().stream().filter(n -> n != leader).findFirst().orElseThrow();
    }

    static Uuid topicId(TidelineNode node, String topic) {
        return Uuid.fromString(node.image().topic(topic).orElseThrow().id());
    }

    static int leaderEpoch(TidelineNode node, String topic, int partition) {
        return node.image().partition(topic, partition).orElseThrow().getLeaderEpoch();
    }
}
