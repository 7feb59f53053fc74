package io.tideline.node.server;

import static io.tideline.node.api.ApiTestSupport.createTopics;
import static io.tideline.node.api.ApiTestSupport.newTopic;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import com.google.protobuf.ByteString;
import io.tideline.proto.client.MetadataRequest;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.proto.client.PartitionMetadata;
import io.tideline.proto.client.TopicMetadata;
import io.tideline.replication.server.Partition;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition that went offline while unclean.leader.election.enable was false comes back when an operator turns
 * it on for the topic with Kafka's AdminClient: the controller's periodic unclean election
 * (unclean.leader.election.interval.ms, docs/metadata.md "Unclean election") elects the live replica that had
 * fallen out of the ISR. Before that, the partition stays offline.
 */
class UncleanElectionOfOfflinePartitionTest {
    private static final String TOPIC = "orphan";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @TempDir
    Path dir;

    @Test
    void turningUncleanElectionOnBringsBackAPartitionThatWasAlreadyOffline() throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 3, Map.of("replica.lag.time.max.ms", 2_000,
                "unclean.leader.election.interval.ms", 500)).startAll()) {
            createTopics(cluster, 1, newTopic(TOPIC, 1, 2, Map.of()));
            PartitionMetadata m = partition(cluster, 1).orElseThrow();
            int leader = m.getLeaderId();
            int follower = m.getReplicasList().stream().filter(r -> r != leader).findFirst().orElseThrow();
            int asking = IntStream.rangeClosed(1, 3).filter(id -> id != leader).findFirst().orElseThrow();

            // The follower stops fetching and, with a record it does not have, drops out of the ISR; then the
            // last ISR member goes away.
            cluster.node(follower).replicaManager().fetcherManager().stopFollowing(TP);
            MemoryRecords records = MemoryRecords.of(new RecordBatchBuilder(0L).append(System.currentTimeMillis(),
                    "k", "only the old leader has this").build());
            var produced = cluster.client(leader).produce(ProduceRequest.newBuilder().setAcks(1).setTimeoutMs(5_000)
                    .addPartitions(ProducePartition.newBuilder().setTopic(TOPIC).setPartition(0)
                            .setRecords(ByteString.copyFrom(records.buffer()))).build());
            assertEquals(0, produced.getPartitions(0).getErrorCode(), produced.toString());
            Awaitility.await("the follower leaves the ISR").atMost(Duration.ofSeconds(30)).until(() ->
                    partition(cluster, asking).map(p -> p.getIsrList().equals(List.of(leader))).orElse(false));
            cluster.stop(leader);
            Awaitility.await("the partition is offline").atMost(Duration.ofSeconds(30)).until(() ->
                    partition(cluster, asking).map(p -> p.getLeaderId() == -1).orElse(false));
            Awaitility.await("it stays offline while the setting is off").during(Duration.ofMillis(2_000))
                    .atMost(Duration.ofSeconds(10)).until(() ->
                            partition(cluster, asking).map(p -> p.getLeaderId() == -1).orElse(false));

            Properties p = new Properties();
            p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + cluster.kafkaPort(asking));
            p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
            p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
            try (Admin admin = Admin.create(p)) {
                admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, TOPIC), List.of(
                        new AlterConfigOp(new ConfigEntry("unclean.leader.election.enable", "true"),
                                AlterConfigOp.OpType.SET)))).all().get();
            }
            Awaitility.await("the live replica out of the ISR is elected").atMost(Duration.ofSeconds(20)).until(() ->
                    partition(cluster, asking).map(x -> x.getLeaderId() == follower).orElse(false)
                    && cluster.node(follower).replicaManager().partition(TP).map(Partition::isLeader).orElse(false));
            PartitionMetadata after = partition(cluster, asking).orElseThrow();
            assertEquals(List.of(follower), after.getIsrList(), "the new leader is the whole ISR: " + after);
            assertTrue(after.getLeaderEpoch() > m.getLeaderEpoch(), after.toString());
        }
    }

    private static java.util.Optional<PartitionMetadata> partition(NodeTestCluster cluster, int via) {
        TopicMetadata t = cluster.client(via).metadata(MetadataRequest.newBuilder().addTopics(TOPIC).build())
                .getTopics(0);
        return t.getPartitionsCount() == 0 ? java.util.Optional.empty() : java.util.Optional.of(t.getPartitions(0));
    }
}
