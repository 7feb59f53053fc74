package io.tideline.node.broker;

import static io.tideline.node.broker.Images.created;
import static io.tideline.node.broker.Images.changed;
import static io.tideline.node.broker.Images.fourBrokers;
import static io.tideline.node.broker.Images.partition;
import static io.tideline.node.broker.Images.removeTopic;
import static io.tideline.node.broker.Images.replay;
import static io.tideline.node.broker.Images.topic;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.node.config.BrokerConfigResolver;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.replica.BrokerConfigApplier;
import io.tideline.node.replica.PartitionSettingsResolver;
import io.tideline.node.replica.ReplicaMetadataHandler;
import io.tideline.proto.metadata.BrokerConfigRecord;
import io.tideline.proto.metadata.ChangeReason;
import io.tideline.proto.metadata.ConfigEntry;
import io.tideline.proto.metadata.ConfigRecord;
import io.tideline.proto.metadata.MetadataRecord;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.follower.OutOfRangePolicy;
import io.tideline.replication.server.FailedReplicaReporter;
import io.tideline.replication.server.PartitionSettings;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.manager.LogManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Metadata deltas drive the replica manager: lead, follow, config changes, deletes. No network here. */
class ReplicaMetadataHandlerTest {
    private static final TopicPartition TP = new TopicPartition("orders", 0);

    @TempDir
    Path dir;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private LogManager logManager;
    private ReplicaManager replicaManager;
    private BrokerMetadataPublisher publisher;

    @BeforeEach
    void setUp() throws Exception {
        logManager = new LogManager(StoreConfig.fromMap(Map.of("log.dirs", dir.toString())), "c", 1, time, scheduler,
                new MetricRegistry(), new Random(1));
        logManager.startup();
        ReplicationConfig config = ReplicationConfig.fromMap(Map.of("min.insync.replicas", 1));
        replicaManager = new ReplicaManager(1, config, logManager, time, scheduler,
                (tp, id, epoch, proposal) -> new CompletableFuture<>(), FailedReplicaReporter.NONE,
                broker -> Optional.empty(), new MetricRegistry());
        PartitionSettingsResolver partitionSettings = new PartitionSettingsResolver(config);
        BrokerConfigApplier brokerConfigs = new BrokerConfigApplier(1, new BrokerConfigResolver(
                Map.of("log.dirs", dir.toString(), "min.insync.replicas", "1")), logManager, replicaManager,
                partitionSettings);
        ReplicaMetadataHandler replicas = new ReplicaMetadataHandler(1, replicaManager, logManager, partitionSettings);
        // The node's order: dynamic broker configs first, then the replicas.
        publisher = new BrokerMetadataPublisher(1, (delta, image) -> {
            brokerConfigs.onDelta(delta, image);
            replicas.onDelta(delta, image);
        });
    }

    private static MetadataRecord brokerConfig(int brokerId, Map<String, String> entries) {
        BrokerConfigRecord.Builder b = BrokerConfigRecord.newBuilder().setBrokerId(brokerId);
        entries.forEach((k, v) -> b.addEntries(ConfigEntry.newBuilder().setKey(k).setValue(v)));
        return MetadataRecord.newBuilder().setBrokerConfig(b).build();
    }

    @AfterEach
    void tearDown() throws Exception {
        replicaManager.close();
        logManager.close();
    }

    private static MetadataRecord configs(String topicId, String key, String value) {
        return MetadataRecord.newBuilder().setConfig(ConfigRecord.newBuilder().setTopicId(topicId)
                .addEntries(ConfigEntry.newBuilder().setKey(key).setValue(value))).build();
    }

    private PartitionSettings settings() {
        return replicaManager.partition(TP).orElseThrow().settings().orElseThrow();
    }

    @Test
    void leadsFollowsAndAppliesTopicConfigChanges() {
        MetadataImage led = replay(fourBrokers(), 11, topic("orders", "t1"),
                configs("t1", "min.insync.replicas", "2"),
                created(partition("t1", 0, List.of(1, 2), List.of(1, 2), 1, 0, 0)));
        publisher.publish(led);
        assertTrue(replicaManager.partition(TP).orElseThrow().isLeader());
        assertEquals(2, settings().minInsyncReplicas());
        assertEquals(List.of(1, 2), replicaManager.partition(TP).get().isr());

        MetadataImage altered = replay(led, 12, configs("t1", "replica.fetch.out.of.range.policy", "rebuild"));
        publisher.publish(altered);
        assertEquals(OutOfRangePolicy.REBUILD, settings().outOfRangePolicy(), "config change applied without a new epoch");

        MetadataImage followed = replay(altered, 13,
                changed(partition("t1", 0, List.of(1, 2), List.of(1, 2), 2, 1, 1), ChangeReason.LEADER_CHANGE));
        publisher.publish(followed);
        assertFalse(replicaManager.partition(TP).get().isLeader());
        assertTrue(replicaManager.fetcherManager().isFollowing(TP));
        assertEquals(2, replicaManager.followerStatus(TP).orElseThrow().leaderId());
    }

    @Test
    void aDynamicBrokerMinInsyncReplicasReachesTheLeadersOfTopicsWithoutTheirOwn() {
        TopicPartition audit = new TopicPartition("audit", 0);
        MetadataImage led = replay(fourBrokers(), 11, topic("orders", "t1"), topic("audit", "t2"),
                configs("t2", "min.insync.replicas", "1"),
                created(partition("t1", 0, List.of(1, 2), List.of(1, 2), 1, 0, 0)),
                created(partition("t2", 0, List.of(1, 2), List.of(1, 2), 1, 0, 0)));
        publisher.publish(led);
        assertEquals(1, replicaManager.partition(TP).orElseThrow().minInsyncReplicas(), "static");

        MetadataImage clusterWide = replay(led, 12, brokerConfig(-1, Map.of("min.insync.replicas", "2")));
        publisher.publish(clusterWide);
        assertEquals(2, settings().minInsyncReplicas());
        assertEquals(2, replicaManager.partition(TP).get().minInsyncReplicas(), "the leader checks produces against it");
        assertEquals(1, replicaManager.partition(audit).orElseThrow().minInsyncReplicas(), "the topic's own value wins");

        // This broker's own value beats the default; deleting it lets the default back.
        MetadataImage own = replay(clusterWide, 13, brokerConfig(1, Map.of("min.insync.replicas", "1")));
        publisher.publish(own);
        assertEquals(1, replicaManager.partition(TP).get().minInsyncReplicas());
        MetadataImage back = replay(own, 14, brokerConfig(1, Map.of()));
        publisher.publish(back);
        assertEquals(2, replicaManager.partition(TP).get().minInsyncReplicas());

        // A partition created after the change starts with it.
        publisher.publish(replay(back, 15, topic("later", "t3"),
                created(partition("t3", 0, List.of(1, 2), List.of(1, 2), 1, 0, 0))));
        assertEquals(2, replicaManager.partition(new TopicPartition("later", 0)).orElseThrow().minInsyncReplicas());
    }

    @Test
    void deletedTopicStopsTheReplicaAndDeletesItsLog() throws Exception {
        MetadataImage led = replay(fourBrokers(), 11, topic("orders", "t1"),
                created(partition("t1", 0, List.of(1, 2), List.of(1, 2), 1, 0, 0)));
        publisher.publish(led);
        Path logDir = replicaManager.log(TP).orElseThrow().dir();
        assertTrue(Files.exists(logDir));

        publisher.publish(replay(led, 12, removeTopic("t1")));
        assertTrue(replicaManager.partition(TP).isEmpty());
        assertTrue(logManager.getLog(TP).isEmpty());
        assertFalse(Files.exists(logDir), "the log directory is renamed for deletion");
    }
}
