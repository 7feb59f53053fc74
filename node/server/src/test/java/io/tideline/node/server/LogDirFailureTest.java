package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.io.FileUtils;
import io.tideline.proto.admin.Assignment;
import io.tideline.proto.admin.ConfigValue;
import io.tideline.proto.admin.CreateTopicsRequest;
import io.tideline.proto.admin.NewTopic;
import io.tideline.proto.client.FetchPartition;
import io.tideline.proto.client.FetchRequest;
import io.tideline.proto.client.MetadataRequest;
import io.tideline.proto.client.PartitionMetadata;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.proto.metadata.ChangeReason;
import io.tideline.store.manager.LogMetrics;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log dir that fails takes only its partitions offline: the broker reports it, the controller moves
 * their leadership and takes the replica out of the ISR, and the broker keeps serving its other dir. The
 * failure is real: the partition's directory disappears under the running broker, so the next segment
 * roll cannot create its files (an I/O error surfacing as KAFKA_STORAGE_ERROR).
 */
class LogDirFailureTest {
    private static final TopicPartition DOOMED = new TopicPartition("doomed", 0);
    private static final TopicPartition HEALTHY = new TopicPartition("healthy", 0);

    @TempDir
    Path dir;

    @Test
    void aFailedLogDirTakesItsPartitionsOfflineMovesLeadershipAndTheOtherDirKeepsServing() throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 3, Map.of())
                .withNodeOverride(1, "log.dirs", dir.resolve("node-1/dir-a") + "," + dir.resolve("node-1/dir-b"))
                .startAll()) {
            for (TopicPartition tp : new TopicPartition[] {DOOMED, HEALTHY}) {
                var created = cluster.admin(1).createTopics(CreateTopicsRequest.newBuilder().addTopics(NewTopic.newBuilder()
                        .setName(tp.topic()).setNumPartitions(-1).setReplicationFactor(-1)
                        .addAssignments(Assignment.newBuilder().setPartition(0).addReplicas(1).addReplicas(2).addReplicas(3))
                        .addConfigs(ConfigValue.newBuilder().setKey("segment.bytes").setValue("1024"))).build());
                assertEquals(Errors.NONE.code(), created.getResults(0).getErrorCode(), created.toString());
                awaitLeader(cluster, tp, 1);
            }
            TidelineNode node1 = cluster.node(1);
            Path doomedDir = node1.logManager().logDir(DOOMED).orElseThrow();
            Path healthyDir = node1.logManager().logDir(HEALTHY).orElseThrow();
            assertNotEquals(doomedDir, healthyDir, "the two partitions live in different log dirs");

            // The disk under one dir goes away: the partition directory vanishes.
            FileUtils.deleteRecursively(node1.logManager().getLog(DOOMED).orElseThrow().dir());
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
                    produce(cluster, 1, DOOMED) == Errors.KAFKA_STORAGE_ERROR.code()
                            || node1.logManager().offlineLogDirs().contains(doomedDir));

            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
                    node1.logManager().offlineLogDirs().contains(doomedDir) && node1.replicaManager().isOffline(DOOMED));
            assertEquals(1, node1.metrics().getGauges().get(LogMetrics.OFFLINE_LOG_DIRECTORY_COUNT).getValue());

            // The controller moved leadership away and took the replica out of the ISR.
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                PartitionMetadata p = partition(cluster, 2, DOOMED);
                return p.getLeaderId() > 1 && !p.getIsrList().contains(1);
            });
            assertTrue(node1.image().recentChanges(node1.image().topic(DOOMED.topic()).orElseThrow().id(), 0).stream()
                    .anyMatch(c -> c.getReason() == ChangeReason.LOG_DIR_FAILURE));
            int newLeader = partition(cluster, 2, DOOMED).getLeaderId();
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
                    produce(cluster, newLeader, DOOMED) == Errors.NONE.code());

            // The failed replica answers KAFKA_STORAGE_ERROR; the other dir keeps serving on the same broker.
            var fetched = cluster.client(1).fetch(FetchRequest.newBuilder().setMaxBytes(1 << 20).setMaxWaitMs(0)
                    .addPartitions(FetchPartition.newBuilder().setTopic(DOOMED.topic()).setPartition(0)
                            .setFetchOffset(0).setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(-1)).build());
            assertEquals(Errors.KAFKA_STORAGE_ERROR.code(), fetched.getPartitions(0).getErrorCode(), fetched.toString());
            assertEquals(1, partition(cluster, 1, HEALTHY).getLeaderId());
            assertEquals(Errors.NONE.code(), produce(cluster, 1, HEALTHY));
            assertTrue(node1.isHealthy(), "the broker keeps serving");
        }
    }

    private static void awaitLeader(NodeTestCluster cluster, TopicPartition tp, int leader) {
        // Node 1 may not have applied a just-created topic yet: its answer then has no partitions.
        Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreException(IndexOutOfBoundsException.class)
                .until(() -> partition(cluster, 1, tp).getLeaderId() == leader
                && cluster.node(leader).replicaManager().partition(tp).map(p -> p.isLeader()).orElse(false));
    }

    private static PartitionMetadata partition(NodeTestCluster cluster, int askedNode, TopicPartition tp) {
        return cluster.client(askedNode).metadata(MetadataRequest.newBuilder().addTopics(tp.topic()).build())
                .getTopics(0).getPartitions(0);
    }

    /** One 300-byte record with acks=1; returns the error code. */
    private static int produce(NodeTestCluster cluster, int node, TopicPartition tp) {
        MemoryRecords records = MemoryRecords.of(new RecordBatchBuilder(0L).append(System.currentTimeMillis(), "k",
                "v".repeat(300)).build());
        return cluster.client(node).produce(ProduceRequest.newBuilder().setAcks(1).setTimeoutMs(5000)
                .addPartitions(ProducePartition.newBuilder().setTopic(tp.topic()).setPartition(tp.partition())
                        .setRecords(ByteString.copyFrom(records.buffer()))).build()).getPartitions(0).getErrorCode();
    }
}
