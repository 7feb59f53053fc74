package io.tideline.node.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.node.api.ApiTestSupport;
import io.tideline.node.metadata.TopicImage;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.proto.metadata.PartitionRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kafka-clients against a 3-node cluster's Kafka listeners: the cluster and its topics as Metadata describes them. */
class KafkaListenerClusterTest {
    private static final String TOPIC = "orders";

    @TempDir
    static Path dir;
    private static NodeTestCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new NodeTestCluster(dir, 3, Map.of("broker.rack", "rack-a")).startAll();
        ApiTestSupport.createTopics(cluster, 1, ApiTestSupport.newTopic(TOPIC, 3, 3, Map.of()));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Properties props() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.kafkaBootstrapServers());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        return p;
    }

    @Test
    void describeClusterListsEveryBrokerAtItsKafkaPort() throws Exception {
        try (Admin admin = Admin.create(props())) {
            DescribeClusterResult result = admin.describeCluster();
            Collection<Node> nodes = result.nodes().get();
            assertEquals(Map.of(1, cluster.kafkaPort(1), 2, cluster.kafkaPort(2), 3, cluster.kafkaPort(3)),
                    nodes.stream().collect(Collectors.toMap(Node::id, Node::port)));
            nodes.forEach(n -> assertEquals("127.0.0.1", n.host()));
            nodes.forEach(n -> assertEquals("rack-a", n.rack()));
            assertEquals("tideline", result.clusterId().get());
            assertTrue(Set.of(1, 2, 3).contains(result.controller().get().id()));
        }
    }

    @Test
    void aConsumerSeesTopicsAndPartitionsAsTheMetadataImageHasThem() {
        Properties p = props();
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.remove(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG);
        TopicImage image = cluster.node(1).image().topic(TOPIC).orElseThrow();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            assertEquals(Set.of(TOPIC), consumer.listTopics(Duration.ofSeconds(20)).keySet());
            List<PartitionInfo> partitions = consumer.partitionsFor(TOPIC, Duration.ofSeconds(20));
            Map<Integer, PartitionInfo> byIndex = new TreeMap<>();
            partitions.forEach(info -> byIndex.put(info.partition(), info));
            assertEquals(Set.of(0, 1, 2), byIndex.keySet());
            for (PartitionRecord expected : image.partitions().values()) {
                PartitionInfo got = byIndex.get(expected.getPartition());
                assertEquals(expected.getLeader(), got.leader().id());
                assertEquals(cluster.kafkaPort(expected.getLeader()), got.leader().port(), "the leader's Kafka port");
                assertEquals(expected.getReplicasList(), ids(got.replicas()));
                assertEquals(Set.copyOf(expected.getIsrList()), Set.copyOf(ids(got.inSyncReplicas())));
                assertEquals(List.of(), ids(got.offlineReplicas()));
            }
        }
    }

    @Test
    void metadataGivesKafkasFormOfTheTopicId() throws Exception {
        try (Admin admin = Admin.create(props())) {
            String ours = cluster.node(1).image().topic(TOPIC).orElseThrow().id();
            assertEquals(ours, admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC).topicId().toString());
        }
    }

    @Test
    void apiVersionsListsExactlyTheRegisteredApis() throws Exception {
        ApiVersionsRequest request = new ApiVersionsRequest(new ApiVersionsRequestData()
                .setClientSoftwareName("test").setClientSoftwareVersion("1"), (short) 4);
        ApiVersionsResponseData answer;
        try (KafkaWire wire = new KafkaWire(cluster.kafkaPort(2))) {
            wire.send(KafkaWire.frame(KafkaWire.request(request, 1)));
            answer = ((ApiVersionsResponse) wire.read(KafkaWire.headerOf(request, 1))).data();
        }
        Map<Short, String> expected = new TreeMap<>();
        cluster.node(2).kafkaApis().orElseThrow().all().values().forEach(api ->
                expected.put(api.key().id, api.minVersion() + "-" + api.maxVersion()));
        Map<Short, String> advertised = new TreeMap<>();
        for (ApiVersion v : answer.apiKeys()) {
            advertised.put(v.apiKey(), v.minVersion() + "-" + v.maxVersion());
        }
        assertEquals(expected, advertised);
        assertEquals("0-5", advertised.get(org.apache.kafka.common.protocol.ApiKeys.API_VERSIONS.id));
        assertEquals("0-13", advertised.get(org.apache.kafka.common.protocol.ApiKeys.METADATA.id));
    }

    private static List<Integer> ids(Node[] nodes) {
        return Arrays.stream(nodes).map(Node::id).toList();
    }
}
