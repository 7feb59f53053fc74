package io.tideline.node.kafka;

import static io.tideline.node.kafka.KafkaWire.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.node.quorum.QuorumServer;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.TidelineNode;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.admin.SupportedVersionRange;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.DescribeQuorumRequest;
import org.apache.kafka.common.requests.DescribeQuorumResponse;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * DescribeQuorum and ApiVersions' features on a three-node cluster, through Kafka's admin client and raw frames to
 * a chosen node (docs/kafka-protocol.md, DescribeQuorum and Features). The answers are compared with the Ratis
 * leader's own state on the node that holds it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DescribeQuorumApiTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String METADATA = "__cluster_metadata";

    private NodeTestCluster cluster;
    private Admin admin;
    private int correlation;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        cluster = new NodeTestCluster(dir, 3, Map.of()).startAll();
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.kafkaBootstrapServers());
        admin = Admin.create(p);
    }

    @AfterAll
    void stop() {
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void adminClientSeesTheRatisLeaderEveryVoterAndAHighWatermarkThatFollowsCommits() throws Exception {
        QuorumInfo before = awaitSettledQuorum();
        int leader = before.leaderId();
        assertTrue(quorum(leader).isLeader(), "node " + leader + " named leader is Ratis' leader");
        assertEquals(Set.of(1, 2, 3), before.voters().stream().map(QuorumInfo.ReplicaState::replicaId)
                .collect(Collectors.toSet()));
        assertEquals(List.of(), before.observers(), "every broker is a voter");
        assertTrue(before.leaderEpoch() >= 1, "epoch is the Raft term: " + before.leaderEpoch());
        assertTrue(before.highWatermark() > 0, "high watermark " + before.highWatermark());
        QuorumInfo.ReplicaState self = replica(before, leader);
        assertTrue(self.logEndOffset() >= before.highWatermark(), "the leader holds what is committed");
        long now = System.currentTimeMillis();
        for (QuorumInfo.ReplicaState v : before.voters()) {
            long fetch = v.lastFetchTimestamp().orElseThrow();
            assertTrue(fetch <= now && fetch > now - WAIT.toMillis(), "voter " + v.replicaId() + " answered at " + fetch);
            assertTrue(v.replicaDirectoryId().equals(org.apache.kafka.common.Uuid.ZERO_UUID), "no directory ids");
        }

        admin.createTopics(List.of(new NewTopic("dq-commit", 1, (short) 3))).all().get();
        Awaitility.await().atMost(WAIT).until(() -> admin.describeMetadataQuorum().quorumInfo().get().highWatermark()
                > before.highWatermark());
    }

    @Test
    void everyNodeAnswersWithTheLeadersViewAndTheVotersQuorumAddresses() throws Exception {
        QuorumInfo settled = awaitSettledQuorum();
        SortedMap<Integer, InetSocketAddress> voters = cluster.config(1).node().voters();
        for (int id = 1; id <= 3; id++) {
            DescribeQuorumResponseData r = describe(id, request(METADATA, 0), (short) 2);
            assertEquals(Errors.NONE.code(), r.errorCode());
            DescribeQuorumResponseData.PartitionData p = r.topics().get(0).partitions().get(0);
            assertEquals(Errors.NONE.code(), p.errorCode());
            assertEquals(settled.leaderId(), p.leaderId(), "node " + id + " names the leader");
            assertEquals(settled.leaderEpoch(), p.leaderEpoch());
            assertEquals(3, p.currentVoters().size());
            assertEquals(3, r.nodes().size());
            for (DescribeQuorumResponseData.Node n : r.nodes()) {
                DescribeQuorumResponseData.Listener l = n.listeners().iterator().next();
                assertEquals(DescribeQuorumApi.QUORUM_LISTENER, l.name());
                assertEquals(voters.get(n.nodeId()).getPort(), l.port());
                assertEquals("127.0.0.1", l.host());
            }
        }
    }

    @Test
    void anythingButTheMetadataPartitionIsUnknownForEachPartitionNamed() throws Exception {
        DescribeQuorumRequestData otherTopic = request("orders", 0);
        DescribeQuorumRequestData otherPartition = request(METADATA, 1);
        DescribeQuorumRequestData twoPartitions = request(METADATA, 0);
        twoPartitions.topics().get(0).partitions().add(new DescribeQuorumRequestData.PartitionData().setPartitionIndex(1));
        DescribeQuorumRequestData noTopics = new DescribeQuorumRequestData();
        for (DescribeQuorumRequestData bad : List.of(otherTopic, otherPartition, twoPartitions, noTopics)) {
            DescribeQuorumResponseData r = describe(2, bad, (short) 2);
            assertEquals(Errors.NONE.code(), r.errorCode(), bad.toString());
            assertEquals(bad.topics().size(), r.topics().size());
            for (int t = 0; t < bad.topics().size(); t++) {
                assertEquals(bad.topics().get(t).topicName(), r.topics().get(t).topicName());
                assertEquals(bad.topics().get(t).partitions().size(), r.topics().get(t).partitions().size());
                r.topics().get(t).partitions().forEach(p ->
                        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), p.errorCode(), bad.toString()));
            }
        }
    }

    @Test
    void olderVersionsCarryOnlyTheirFields() throws Exception {
        awaitSettledQuorum();
        DescribeQuorumResponseData v0 = describe(3, request(METADATA, 0), (short) 0);
        DescribeQuorumResponseData.PartitionData p0 = v0.topics().get(0).partitions().get(0);
        assertEquals(3, p0.currentVoters().size());
        p0.currentVoters().forEach(v -> assertEquals(-1, v.lastFetchTimestamp(), "v0 has no fetch times"));
        DescribeQuorumResponseData v1 = describe(3, request(METADATA, 0), (short) 1);
        assertTrue(v1.topics().get(0).partitions().get(0).currentVoters().stream().allMatch(v -> v.lastFetchTimestamp() > 0));
        assertEquals(0, v1.nodes().size(), "Nodes are v2+");
    }

    @Test
    void apiVersionsReportsEveryFeatureAtLevelZeroAndNoneFinalized() throws Exception {
        FeatureMetadata features = admin.describeFeatures().featureMetadata().get();
        assertEquals(Set.copyOf(KafkaFeatures.SUPPORTED), features.supportedFeatures().keySet());
        for (SupportedVersionRange range : features.supportedFeatures().values()) {
            assertEquals(0, range.minVersion());
            assertEquals(0, range.maxVersion());
        }
        assertEquals(Map.of(), features.finalizedFeatures());
        assertEquals(Optional.empty(), features.finalizedFeaturesEpoch());
        assertTrue(!features.supportedFeatures().containsKey("metadata.version"));

        assertEquals(0, apiVersions((short) 3).supportedFeatures().size(),
                "below v4 a feature with minimum level 0 is left out, as Kafka does");
        assertEquals(KafkaFeatures.SUPPORTED.size(), apiVersions((short) 4).supportedFeatures().size());
    }

    @Test
    void updateFeaturesIsNotServed() {
        ExecutionException e = assertThrows(ExecutionException.class, () -> admin.updateFeatures(
                Map.of("group.version", new FeatureUpdate((short) 1, FeatureUpdate.UpgradeType.UPGRADE)),
                new org.apache.kafka.clients.admin.UpdateFeaturesOptions()).all().get());
        assertInstanceOf(UnsupportedVersionException.class, e.getCause());
    }

    private QuorumInfo awaitSettledQuorum() {
        // Settled: a leader that Ratis agrees on, every follower holding the leader's whole log.
        return Awaitility.await().atMost(WAIT).ignoreExceptions().until(() -> admin.describeMetadataQuorum().quorumInfo().get(),
                q -> q.leaderId() > 0 && quorum(q.leaderId()).isLeader()
                        && q.voters().stream().allMatch(v -> v.logEndOffset() == replica(q, q.leaderId()).logEndOffset()));
    }

    private QuorumServer quorum(int id) {
        TidelineNode node = cluster.node(id);
        return node.quorum().orElseThrow();
    }

    private static QuorumInfo.ReplicaState replica(QuorumInfo q, int id) {
        return q.voters().stream().filter(v -> v.replicaId() == id).findFirst().orElseThrow();
    }

    private static DescribeQuorumRequestData request(String topic, int partition) {
        DescribeQuorumRequestData data = new DescribeQuorumRequestData();
        data.topics().add(new DescribeQuorumRequestData.TopicData().setTopicName(topic)
                .setPartitions(new java.util.ArrayList<>(List.of(
                        new DescribeQuorumRequestData.PartitionData().setPartitionIndex(partition)))));
        return data;
    }

    private DescribeQuorumResponseData describe(int node, DescribeQuorumRequestData data, short version) throws Exception {
        DescribeQuorumRequest request = new DescribeQuorumRequest.Builder(data).build(version);
        int id = ++correlation;
        try (KafkaWire w = new KafkaWire(cluster.kafkaPort(node))) {
            w.send(frame(KafkaWire.request(request, id)));
            return ((DescribeQuorumResponse) w.read(KafkaWire.headerOf(request, id))).data();
        }
    }

    private ApiVersionsResponseData apiVersions(short version) throws Exception {
        ApiVersionsRequest request = new ApiVersionsRequest(new ApiVersionsRequestData()
                .setClientSoftwareName("wire-test").setClientSoftwareVersion("1"), version);
        int id = ++correlation;
        try (KafkaWire w = new KafkaWire(cluster.kafkaPort(1))) {
            w.send(frame(KafkaWire.request(request, id)));
            return ((ApiVersionsResponse) w.read(KafkaWire.headerOf(request, id))).data();
        }
    }
}
