package io.tideline.node.kafka.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.ProducerRecord;
import io.tideline.client.TidelineProducer;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.TidelineNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DeleteRecordsOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients' own AdminClient against the Kafka listeners of a three-node cluster: every admin call the
 * listener serves, the DeleteRecords offset table (docs/behaviours.md B23) through {@code deleteRecords}, each
 * checked against the cluster's state.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaAdminClientTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private NodeTestCluster cluster;
    private Admin admin;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        cluster = new NodeTestCluster(dir, 3, Map.of()).startAll();
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.kafkaBootstrapServers());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        p.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        admin = Admin.create(p);
    }

    @AfterAll
    void stop() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void topicsAreCreatedWithConfigsValidatedDescribedGrownAndDeletedByNameAndById() throws Exception {
        CreateTopicsResult dry = admin.createTopics(List.of(new NewTopic("ka-dry", 2, (short) 3)),
                new CreateTopicsOptions().validateOnly(true));
        dry.all().get();
        assertEquals(2, dry.numPartitions("ka-dry").get());
        assertTrue(cluster.node(1).image().topic("ka-dry").isEmpty());

        CreateTopicsResult created = admin.createTopics(List.of(
                new NewTopic("ka-orders", 2, (short) 3).configs(Map.of("retention.ms", "600000", "min.insync.replicas", "2")),
                new NewTopic("ka-defaults", Optional.empty(), Optional.empty()),
                new NewTopic("ka-placed", Map.of(0, List.of(2, 3), 1, List.of(3, 1)))));
        created.all().get();
        Awaitility.await("the topics in node 1's image").atMost(WAIT).until(() ->
                cluster.node(1).image().topic("ka-orders").isPresent());
        assertEquals(Uuid.fromString(cluster.node(1).image().topic("ka-orders").orElseThrow().id()),
                created.topicId("ka-orders").get());
        assertEquals(3, created.replicationFactor("ka-orders").get());
        Config configs = created.config("ka-orders").get();
        assertEquals("600000", configs.get("retention.ms").value());
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, configs.get("retention.ms").source());
        assertEquals(1, created.numPartitions("ka-defaults").get(), "num.partitions' default");
        assertEquals(1, created.replicationFactor("ka-defaults").get(), "default.replication.factor's default");

        ExecutionException exists = assertThrows(ExecutionException.class,
                () -> admin.createTopics(List.of(new NewTopic("ka-orders", 1, (short) 1))).all().get());
        assertInstanceOf(TopicExistsException.class, exists.getCause());
        ExecutionException badConfig = assertThrows(ExecutionException.class, () -> admin.createTopics(List.of(
                new NewTopic("ka-bad", 1, (short) 1).configs(Map.of("retention.ms", "soon")))).all().get());
        assertInstanceOf(InvalidConfigurationException.class, badConfig.getCause());

        awaitLed("ka-placed", 2);
        TopicDescription placed = admin.describeTopics(List.of("ka-placed")).allTopicNames().get().get("ka-placed");
        assertEquals(List.of(2, 3), placed.partitions().get(0).replicas().stream().map(Node::id).toList());
        assertEquals(List.of(3, 1), placed.partitions().get(1).replicas().stream().map(Node::id).toList());
        assertTrue(admin.listTopics().names().get().containsAll(Set.of("ka-orders", "ka-defaults", "ka-placed")));

        admin.createPartitions(Map.of("ka-orders", NewPartitions.increaseTo(4))).all().get();
        Awaitility.await("4 partitions").atMost(WAIT).until(() ->
                admin.describeTopics(List.of("ka-orders")).allTopicNames().get().get("ka-orders").partitions().size() == 4);

        admin.deleteTopics(List.of("ka-defaults")).all().get();
        Uuid placedId = Uuid.fromString(cluster.node(1).image().topic("ka-placed").orElseThrow().id());
        admin.deleteTopics(TopicCollection.ofTopicIds(List.of(placedId))).all().get();
        Awaitility.await("both deleted").atMost(WAIT).until(() -> cluster.running().stream().allMatch(n ->
                n.image().topic("ka-defaults").isEmpty() && n.image().topic("ka-placed").isEmpty()));
        ExecutionException unknown = assertThrows(ExecutionException.class,
                () -> admin.deleteTopics(List.of("ka-never")).all().get());
        assertInstanceOf(UnknownTopicOrPartitionException.class, unknown.getCause());
    }

    @Test
    void topicAndBrokerConfigsAreDescribedAndAlteredIncrementallyIncludingTheThrottles() throws Exception {
        admin.createTopics(List.of(new NewTopic("ka-conf", 1, (short) 3))).all().get();
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "ka-conf");
        ConfigResource broker2 = new ConfigResource(ConfigResource.Type.BROKER, "2");
        admin.incrementalAlterConfigs(Map.of(
                topic, List.of(new AlterConfigOp(new ConfigEntry("retention.ms", "120000"), AlterConfigOp.OpType.SET),
                        new AlterConfigOp(new ConfigEntry("leader.replication.throttled.replicas", "0:1"),
                                AlterConfigOp.OpType.APPEND),
                        new AlterConfigOp(new ConfigEntry("follower.replication.throttled.replicas", "0:2"),
                                AlterConfigOp.OpType.SET)),
                broker2, List.of(new AlterConfigOp(new ConfigEntry("leader.replication.throttled.rate", "1048576"),
                        AlterConfigOp.OpType.SET),
                        new AlterConfigOp(new ConfigEntry("follower.replication.throttled.rate", "1048576"),
                                AlterConfigOp.OpType.SET)))).all().get();
        Awaitility.await("configs applied").atMost(WAIT).until(() -> cluster.running().stream().allMatch(n ->
                "120000".equals(n.image().topic("ka-conf").orElseThrow().configs().get("retention.ms"))
                        && "1048576".equals(n.image().brokerConfigs(2).get("leader.replication.throttled.rate"))));

        Map<ConfigResource, Config> described = admin.describeConfigs(List.of(topic, broker2)).all().get();
        ConfigEntry retention = described.get(topic).get("retention.ms");
        assertEquals("120000", retention.value());
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, retention.source());
        assertFalse(retention.isReadOnly());
        assertFalse(retention.isSensitive());
        ConfigEntry segmentBytes = described.get(topic).get("segment.bytes");
        assertEquals(String.valueOf(1024 * 1024 * 1024), segmentBytes.value());
        assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, segmentBytes.source());
        assertEquals(ConfigEntry.ConfigType.INT, segmentBytes.type());
        assertEquals("0:1", described.get(topic).get("leader.replication.throttled.replicas").value());
        ConfigEntry rate = described.get(broker2).get("leader.replication.throttled.rate");
        assertEquals("1048576", rate.value());
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG, rate.source());

        // What kafka-reassign-partitions does when a move is done: the throttles go.
        admin.incrementalAlterConfigs(Map.of(
                topic, List.of(new AlterConfigOp(new ConfigEntry("leader.replication.throttled.replicas", ""),
                        AlterConfigOp.OpType.DELETE), new AlterConfigOp(new ConfigEntry("retention.ms", ""),
                        AlterConfigOp.OpType.DELETE)),
                broker2, List.of(new AlterConfigOp(new ConfigEntry("leader.replication.throttled.rate", ""),
                        AlterConfigOp.OpType.DELETE)))).all().get();
        Awaitility.await("configs removed").atMost(WAIT).until(() -> cluster.running().stream().allMatch(n ->
                !n.image().topic("ka-conf").orElseThrow().configs().containsKey("retention.ms")
                        && !n.image().brokerConfigs(2).containsKey("leader.replication.throttled.rate")));

        ExecutionException notAList = assertThrows(ExecutionException.class, () -> admin.incrementalAlterConfigs(Map.of(
                topic, List.of(new AlterConfigOp(new ConfigEntry("retention.ms", "5"), AlterConfigOp.OpType.APPEND))))
                .all().get());
        assertInstanceOf(InvalidConfigurationException.class, notAList.getCause());
    }

    @Test
    void deleteRecordsFollowsTheOffsetTableThroughTheAdminClient() throws Exception {
        admin.createTopics(List.of(new NewTopic("ka-records", 1, (short) 3))).all().get();
        awaitLed("ka-records", 1);
        produce("ka-records", 20);
        TopicPartition tp = new TopicPartition("ka-records", 0);
        io.tideline.common.TopicPartition ours = new io.tideline.common.TopicPartition("ka-records", 0);
        int leader = cluster.node(1).image().topic("ka-records").orElseThrow().partition(0).getLeader();
        Awaitility.await("high watermark 20").atMost(WAIT).until(() ->
                cluster.node(leader).replicaManager().partition(ours).orElseThrow().log().highWatermark() == 20);

        assertEquals(5, lowWatermark(tp, 5), "inside the log");
        assertEquals(5, lowWatermark(tp, 3), "below the log start offset: unchanged");
        assertEquals(5, lowWatermark(tp, 5), "at the log start offset");
        assertEquals(5, lowWatermark(tp, 0), "0: a no-op");
        assertEquals(12, lowWatermark(tp, 12), "between");
        ExecutionException above = assertThrows(ExecutionException.class, () -> lowWatermark(tp, 21));
        assertInstanceOf(OffsetOutOfRangeException.class, above.getCause());
        ExecutionException negative = assertThrows(ExecutionException.class, () -> lowWatermark(tp, -2));
        assertInstanceOf(OffsetOutOfRangeException.class, negative.getCause());
        // kafka-clients' deleteRecords finds leaders with Metadata and retries a partition it finds none for, an
        // unknown topic included, until its timeout: against Kafka as here. KafkaAdminApisTest has the broker's own
        // UNKNOWN_TOPIC_OR_PARTITION and NOT_LEADER_OR_FOLLOWER answers, which this client never lets a caller see.
        TopicPartition unknown = new TopicPartition("ka-records", 4);
        ExecutionException timedOut = assertThrows(ExecutionException.class, () -> admin.deleteRecords(
                Map.of(unknown, RecordsToDelete.beforeOffset(1)), new DeleteRecordsOptions().timeoutMs(1_000))
                .lowWatermarks().get(unknown).get());
        assertInstanceOf(TimeoutException.class, timedOut.getCause());
        assertEquals(12, cluster.node(leader).replicaManager().partition(ours).orElseThrow().log().logStartOffset(),
                "the refused requests moved nothing");
        assertEquals(20, lowWatermark(tp, -1), "-1: the high watermark");
        assertEquals(20, lowWatermark(tp, 20), "at the high watermark");
        for (TidelineNode n : cluster.running()) {
            assertEquals(20, n.replicaManager().partition(ours).orElseThrow().log().logStartOffset(), "node " + n.nodeId());
        }
    }

    private long lowWatermark(TopicPartition tp, long beforeOffset) throws Exception {
        return admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(beforeOffset))).lowWatermarks().get(tp).get()
                .lowWatermark();
    }

    @Test
    void aReassignmentRunsToItsEndWhileListedAndElectionsAreAnswered() throws Exception {
        admin.createTopics(List.of(new NewTopic("ka-move", Map.of(0, List.of(1, 2))))).all().get();
        awaitLed("ka-move", 1);
        produce("ka-move", 10);
        TopicPartition tp = new TopicPartition("ka-move", 0);
        admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(3, 2)))))
                .all().get();
        Awaitility.await("the move to [3, 2] completes").atMost(WAIT).until(() -> {
            Map<TopicPartition, PartitionReassignment> ongoing = admin.listPartitionReassignments(Set.of(tp))
                    .reassignments().get();
            if (ongoing.containsKey(tp)) {
                assertEquals(List.of(3), ongoing.get(tp).addingReplicas());
                assertEquals(List.of(1), ongoing.get(tp).removingReplicas());
                return false;
            }
            return cluster.running().stream().allMatch(n ->
                    n.image().topic("ka-move").orElseThrow().partition(0).getReplicasList().equals(List.of(3, 2)));
        });
        assertTrue(admin.listPartitionReassignments().reassignments().get().isEmpty());
        ExecutionException cancel = assertThrows(ExecutionException.class, () -> admin.alterPartitionReassignments(
                Map.of(tp, Optional.empty())).all().get());
        assertInstanceOf(NoReassignmentInProgressException.class, cancel.getCause());

        // Leadership goes to the preferred replica, 3, unless the move's end already put it there.
        Map<TopicPartition, Optional<Throwable>> elected = admin.electLeaders(ElectionType.PREFERRED, Set.of(tp))
                .partitions().get();
        elected.get(tp).ifPresent(e -> assertInstanceOf(ElectionNotNeededException.class, e));
        Awaitility.await("3 leads").atMost(WAIT).until(() ->
                cluster.node(1).image().topic("ka-move").orElseThrow().partition(0).getLeader() == 3);
        ExecutionException notNeeded = assertThrows(ExecutionException.class,
                () -> admin.electLeaders(ElectionType.PREFERRED, Set.of(tp)).all().get());
        assertInstanceOf(ElectionNotNeededException.class, notNeeded.getCause());
        Map<TopicPartition, Optional<Throwable>> all = admin.electLeaders(ElectionType.PREFERRED, null).partitions().get();
        assertTrue(all.containsKey(tp), all.toString());
    }

    @Test
    void describeClusterAndDescribeLogDirsAnswerForEveryBroker() throws Exception {
        DescribeClusterResult described = admin.describeCluster();
        Collection<Node> nodes = described.nodes().get();
        assertEquals(Map.of(1, cluster.kafkaPort(1), 2, cluster.kafkaPort(2), 3, cluster.kafkaPort(3)),
                nodes.stream().collect(Collectors.toMap(Node::id, Node::port)));
        assertEquals(cluster.node(1).config().node().clusterId(), described.clusterId().get());
        assertTrue(Set.of(1, 2, 3).contains(described.controller().get().id()));

        admin.createTopics(List.of(new NewTopic("ka-dirs", 2, (short) 3))).all().get();
        awaitLed("ka-dirs", 2);
        produce("ka-dirs", 5);
        Awaitility.await("every replica has the batches").atMost(WAIT).until(() -> {
            Map<Integer, Map<String, LogDirDescription>> dirs = admin.describeLogDirs(List.of(1, 2, 3))
                    .allDescriptions().get();
            boolean all = true;
            for (int id = 1; id <= 3; id++) {
                Map<String, LogDirDescription> byDir = dirs.get(id);
                assertEquals(Set.of(cluster.node(id).config().store().logDirs().get(0).toString()), byDir.keySet());
                LogDirDescription d = byDir.values().iterator().next();
                assertTrue(d.totalBytes().isPresent() && d.usableBytes().isPresent(), d.toString());
                assertTrue(d.replicaInfos().containsKey(new TopicPartition("ka-dirs", 0)), d.toString());
                assertTrue(d.replicaInfos().containsKey(new TopicPartition("ka-dirs", 1)), d.toString());
                all &= d.replicaInfos().get(new TopicPartition("ka-dirs", 0)).size() > 0;
            }
            return all;
        });
    }

    private void produce(String topic, int records) throws Exception {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", cluster.bootstrapServers());
        config.put("acks", "all");
        config.put("retry.backoff.ms", 50);
        try (TidelineProducer producer = new TidelineProducer(config)) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord(topic, 0, null, ("v" + i).getBytes(StandardCharsets.UTF_8))).get();
            }
        }
    }

    private void awaitLed(String topic, int partitions) {
        Awaitility.await(topic + " in every image").atMost(WAIT).until(() -> cluster.running().stream().allMatch(n ->
                n.image().topic(topic).map(t -> t.partitions().size() == partitions).orElse(false)));
        Awaitility.await(topic + " led in full").atMost(WAIT).until(() -> {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
            return d.partitions().size() == partitions && d.partitions().stream().allMatch(p -> p.leader() != null
                    && p.isr().size() == p.replicas().size() && cluster.running().stream().anyMatch(n ->
                    n.nodeId() == p.leader().id() && n.replicaManager().partition(
                            new io.tideline.common.TopicPartition(topic, p.partition())).map(x -> x.isLeader()).orElse(false)));
        });
    }
}
