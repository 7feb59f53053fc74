package io.tideline.node.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.TidelineNode;
import io.tideline.proto.admin.ConfigValue;
import io.tideline.proto.admin.CreateTopicsRequest;
import io.tideline.proto.admin.CreateTopicsResponse;
import io.tideline.proto.admin.NewTopic;
import io.tideline.proto.client.MetadataRequest;
import io.tideline.proto.client.PartitionMetadata;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.TopicMetadata;
import io.tideline.replication.server.Partition;
import io.tideline.store.log.Log;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.awaitility.Awaitility;

/** Helpers shared by the client API tests: batches, topic creation, leader lookup, log fingerprints. */
public final class ApiTestSupport {
    private ApiTestSupport() {
    }

    /** One batch of {@code values}, the i-th record stamped {@code firstTimestamp + i}. */
    static MemoryRecords batch(long firstTimestamp, String... values) {
        RecordBatchBuilder b = new RecordBatchBuilder(0L);
        for (int i = 0; i < values.length; i++) {
            b.append(firstTimestamp + i, "k" + i, values[i]);
        }
        return MemoryRecords.of(b.build());
    }

    static ByteString bytes(MemoryRecords records) {
        return ByteString.copyFrom(records.buffer());
    }

    static ProducePartition producePartition(String topic, int partition, ByteString records) {
        return ProducePartition.newBuilder().setTopic(topic).setPartition(partition).setRecords(records).build();
    }

    static List<String> values(ByteString records) {
        return MemoryRecords.readableRecords(records.asReadOnlyByteBuffer()).records().stream()
                .map(r -> new String(r.value(), java.nio.charset.StandardCharsets.UTF_8)).toList();
    }

    public static NewTopic newTopic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
        NewTopic.Builder t = NewTopic.newBuilder().setName(name).setNumPartitions(partitions)
                .setReplicationFactor(replicationFactor);
        configs.forEach((k, v) -> t.addConfigs(ConfigValue.newBuilder().setKey(k).setValue(v)));
        return t.build();
    }

    /**
     * Creates topics in one request through node {@code via} and waits until every partition has a serving
     * leader and a full ISR.
     */
    public static void createTopics(NodeTestCluster cluster, int via, NewTopic... topics) {
        CreateTopicsResponse created = cluster.admin(via).createTopics(CreateTopicsRequest.newBuilder()
                .addAllTopics(List.of(topics)).build());
        created.getResultsList().forEach(r -> assertEquals(Errors.NONE.code(), r.getErrorCode(), created.toString()));
        for (NewTopic t : topics) {
            for (int p = 0; p < t.getNumPartitions(); p++) {
                int partition = p;
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
                        leaderServing(cluster, via, t.getName(), partition)
                        && isrComplete(cluster, via, t.getName(), partition, t.getReplicationFactor()));
            }
        }
    }

    private static boolean isrComplete(NodeTestCluster cluster, int via, String topic, int partition, int rf) {
        return knownPartition(cluster, via, topic, partition).map(m -> m.getIsrCount() == rf).orElse(false);
    }

    private static boolean leaderServing(NodeTestCluster cluster, int via, String topic, int partition) {
        int leader = knownPartition(cluster, via, topic, partition).map(PartitionMetadata::getLeaderId).orElse(-1);
        return leader > 0 && cluster.node(leader).replicaManager().partition(new TopicPartition(topic, partition))
                .map(Partition::isLeader).orElse(false);
    }

    /**
     * The partition as node {@code via} describes it, or empty while that node has not applied the topic yet:
     * CreateTopics answers once the controller has committed the topic, and a broker's metadata image can trail
     * that commit, as Kafka's metadata cache does (meanwhile the node answers UNKNOWN_TOPIC_OR_PARTITION).
     */
    private static Optional<PartitionMetadata> knownPartition(NodeTestCluster cluster, int via, String topic,
                                                              int partition) {
        TopicMetadata t = cluster.client(via).metadata(MetadataRequest.newBuilder().addTopics(topic).build())
                .getTopics(0);
        return t.getErrorCode() == Errors.NONE.code() && partition < t.getPartitionsCount()
                ? Optional.of(t.getPartitions(partition)) : Optional.empty();
    }

    static PartitionMetadata partitionMetadata(NodeTestCluster cluster, int via, String topic, int partition) {
        return cluster.client(via).metadata(MetadataRequest.newBuilder().addTopics(topic).build()).getTopics(0)
                .getPartitions(partition);
    }

    public static Log log(TidelineNode node, String topic, int partition) {
        return node.logManager().getLog(new TopicPartition(topic, partition)).orElseThrow();
    }

    /**
     * Everything a request could change on a node's disk, per partition: log start offset, log end offset,
     * high watermark and a digest of every segment file's bytes; plus the topic names in the metadata image.
     * Two equal fingerprints mean nothing was written, deleted or moved.
     */
    public static Map<String, String> fingerprint(TidelineNode node) {
        Map<String, String> out = new TreeMap<>();
        out.put("topics", node.image().topics().keySet().toString());
        for (Log log : node.logManager().allLogs()) {
            out.put(log.topicPartition().toString(), "start=" + log.logStartOffset() + " end=" + log.logEndOffset()
                    + " hw=" + log.highWatermark() + " segments=" + segmentDigests(log.dir()));
        }
        return out;
    }

    private static Map<String, String> segmentDigests(Path dir) {
        Map<String, String> digests = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.getFileName().toString().endsWith(".log")).toList()) {
                byte[] content = Files.readAllBytes(f);
                digests.put(f.getFileName().toString(), content.length + ":"
                        + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        return digests;
    }
}
