package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.admin.Assignment;
import io.tideline.proto.admin.ConfigValue;
import io.tideline.proto.admin.CreateTopicsRequest;
import io.tideline.proto.admin.DeleteRecordsPartition;
import io.tideline.proto.admin.DeleteRecordsRequest;
import io.tideline.proto.admin.NewTopic;
import io.tideline.proto.client.FetchPartition;
import io.tideline.proto.client.FetchPartitionResponse;
import io.tideline.proto.client.FetchRequest;
import io.tideline.proto.client.MetadataRequest;
import io.tideline.proto.client.PartitionMetadata;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProducePartitionResponse;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.store.log.Log;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.testsupport.disk.SmallFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk on one node of three, for real: node 3's log dir is an 8 MiB tmpfs (root only, see
 * {@link SmallFileSystem}), and node 3 leads the partition. Once the disk fills, node 3's append fails, its dir
 * goes offline, the controller is told and moves the leadership away; every record acknowledged with acks=all,
 * before and after, is readable from the new leader; and a DeleteRecords done before the fault is not undone on
 * node 3 when it restarts on the freed disk (docs/behaviours.md B140-B145).
 */
class FullDiskTest {
    private static final TopicPartition TP = new TopicPartition("full", 0);

    @TempDir
    Path dir;

    @Test
    void aFullDiskTakesTheDirOfflineMovesLeadershipAndLosesNoAcknowledgedRecord() throws Exception {
        try (SmallFileSystem disk = SmallFileSystem.mount(dir.resolve("node-3-disk"), 8);
             NodeTestCluster cluster = new NodeTestCluster(dir, 3, Map.of("auto.leader.rebalance.enable", false))
                     .withNodeOverride(3, "log.dirs", disk.path().resolve("logs").toString())
                     .startAll()) {
            var created = cluster.admin(1).createTopics(CreateTopicsRequest.newBuilder().addTopics(NewTopic.newBuilder()
                    .setName(TP.topic()).setNumPartitions(-1).setReplicationFactor(-1)
                    .addAssignments(Assignment.newBuilder().setPartition(0).addReplicas(3).addReplicas(1).addReplicas(2))
                    .addConfigs(ConfigValue.newBuilder().setKey("min.insync.replicas").setValue("2"))
                    .addConfigs(ConfigValue.newBuilder().setKey("segment.bytes").setValue("65536"))).build());
            assertEquals(Errors.NONE.code(), created.getResults(0).getErrorCode(), created.toString());
            Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> leaderSeenBy(cluster, 1) == 3 && partition(cluster, 1).getIsrCount() == 3);

            Map<Long, String> acknowledged = new LinkedHashMap<>();
            for (int i = 0; i < 30; i++) {
                ProducePartitionResponse r = produce(cluster, 3, "before-" + i);
                assertEquals(Errors.NONE.code(), r.getErrorCode(), r.toString());
                acknowledged.put(r.getBaseOffset(), "before-" + i);
            }
            var deleted = cluster.admin(3).deleteRecords(DeleteRecordsRequest.newBuilder().setTimeoutMs(10_000)
                    .addPartitions(DeleteRecordsPartition.newBuilder().setTopic(TP.topic()).setPartition(0).setOffset(10))
                    .build());
            assertEquals(Errors.NONE.code(), deleted.getPartitions(0).getErrorCode(), deleted.toString());
            assertEquals(10, deleted.getPartitions(0).getLowWatermark());

            disk.fill();
            // The producer goes on as a client does: to whichever node it sees as the leader, retrying failures.
            AtomicInteger after = new AtomicInteger();
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> {
                int leader = leaderSeenBy(cluster, 1);
                if (leader >= 1) {
                    String value = "after-" + after.get();
                    ProducePartitionResponse r = produce(cluster, leader, value);
                    if (r.getErrorCode() == Errors.NONE.code()) {
                        acknowledged.put(r.getBaseOffset(), value);
                        after.incrementAndGet();
                    }
                }
                return after.get() == 30;
            });

            TidelineNode node3 = cluster.node(3);
            assertEquals(1, node3.logManager().offlineLogDirs().size(), "node 3's only dir is offline");
            assertTrue(node3.replicaManager().isOffline(TP));
            PartitionMetadata moved = partition(cluster, 1);
            assertTrue(moved.getLeaderId() == 1 || moved.getLeaderId() == 2, moved.toString());
            assertFalse(moved.getIsrList().contains(3), "node 3 left the ISR: " + moved);
            assertTrue(node3.isHealthy(), "node 3 stays up, serving nothing from its failed dir");

            int newLeader = moved.getLeaderId();
            assertAllReadable(cluster, newLeader, acknowledged, 10);

            // Node 3 stops and restarts on the freed disk: the DeleteRecords it answered before the fault holds.
            disk.free();
            cluster.stop(3);
            TidelineNode restarted = cluster.restart(3);
            Log local = restarted.logManager().getLog(TP).orElseThrow();
            assertTrue(local.logStartOffset() >= 10, "node 3's log starts at " + local.logStartOffset());
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> restarted.replicaManager().log(TP)
                    .map(l -> l.logEndOffset() == cluster.node(newLeader).replicaManager().log(TP).orElseThrow()
                            .logEndOffset()).orElse(false));
            assertTrue(restarted.replicaManager().log(TP).orElseThrow().logStartOffset() >= 10);
        }
    }

    private static void assertAllReadable(NodeTestCluster cluster, int leader, Map<Long, String> acknowledged,
                                          long deletedBefore) {
        Map<Long, String> read = new LinkedHashMap<>();
        long next = deletedBefore;
        while (true) {
            FetchPartitionResponse p = cluster.client(leader).fetch(FetchRequest.newBuilder().setMaxBytes(1 << 20)
                    .setMaxWaitMs(0).addPartitions(FetchPartition.newBuilder().setTopic(TP.topic()).setPartition(0)
                            .setFetchOffset(next).setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(-1)).build())
                    .getPartitions(0);
            assertEquals(Errors.NONE.code(), p.getErrorCode(), p.toString());
            MemoryRecords records = MemoryRecords.readableRecords(p.getRecords().asReadOnlyByteBuffer());
            long before = next;
            for (Record r : records.records()) {
                if (r.offset() >= next) {
                    read.put(r.offset(), new String(r.value(), StandardCharsets.UTF_8));
                    next = r.offset() + 1;
                }
            }
            if (next >= p.getHighWatermark() || next == before) {
                break;
            }
        }
        Set<Long> missing = new HashSet<>();
        acknowledged.forEach((offset, value) -> {
            if (offset >= deletedBefore && !String.valueOf(read.get(offset)).startsWith(value + "-")) {
                missing.add(offset);
            }
        });
        assertEquals(Set.of(), missing, "acknowledged records not readable from the new leader; read " + read);
    }

    private static int leaderSeenBy(NodeTestCluster cluster, int node) {
        try {
            return partition(cluster, node).getLeaderId();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private static PartitionMetadata partition(NodeTestCluster cluster, int askedNode) {
        return cluster.client(askedNode).metadata(MetadataRequest.newBuilder().addTopics(TP.topic()).build())
                .getTopics(0).getPartitions(0);
    }

    /** One 2 KiB record with acks=all. */
    private static ProducePartitionResponse produce(NodeTestCluster cluster, int node, String value) {
        MemoryRecords records = MemoryRecords.of(new RecordBatchBuilder(0L).append(System.currentTimeMillis(), "k",
                value + "-" + "x".repeat(2048)).build());
        try {
            return cluster.client(node).produce(ProduceRequest.newBuilder().setAcks(-1).setTimeoutMs(5000)
                    .addPartitions(ProducePartition.newBuilder().setTopic(TP.topic()).setPartition(0)
                            .setRecords(ByteString.copyFrom(records.buffer()))).build()).getPartitions(0);
        } catch (RuntimeException e) {
            return ProducePartitionResponse.newBuilder().setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code())
                    .setErrorMessage(e.toString()).build();
        }
    }
}
