package io.tideline.node.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.node.api.ApiTestSupport;
import io.tideline.node.metadata.TopicImage;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.proto.admin.CreateTopicsRequest;
import io.tideline.proto.admin.CreateTopicsResponse;
import io.tideline.proto.admin.NewTopic;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * auto.create.topics.enable on the Kafka listener (docs/behaviours.md B240-B241), and the broker defaults of a gRPC
 * CreateTopics with -1 (B242). Three nodes, each with its own settings: node 1 creates with 3 partitions of 2
 * replicas, node 2 has the key false, node 3 asks for 4 replicas on 3 brokers.
 */
class KafkaAutoCreateTopicsTest {
    @TempDir
    static Path dir;
    private static NodeTestCluster cluster;
    private static final AtomicInteger MARKERS = new AtomicInteger();

    @BeforeAll
    static void start() throws Exception {
        cluster = new NodeTestCluster(dir, 3, Map.of("num.partitions", 3, "default.replication.factor", 2))
                .withNodeOverride(2, "auto.create.topics.enable", false)
                .withNodeOverride(3, "default.replication.factor", 4)
                .startAll();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static MetadataResponse.TopicMetadata metadata(int node, String topic, boolean allowAutoCreation)
            throws Exception {
        MetadataRequest request = new MetadataRequest(new MetadataRequestData().setTopics(new ArrayList<>(List.of(
                new MetadataRequestData.MetadataRequestTopic().setName(topic))))
                .setAllowAutoTopicCreation(allowAutoCreation), (short) 12);
        try (KafkaWire wire = new KafkaWire(cluster.kafkaPort(node))) {
            wire.send(KafkaWire.frame(KafkaWire.request(request, 1)));
            MetadataResponse response = (MetadataResponse) wire.read(KafkaWire.headerOf(request, 1));
            return response.topicMetadata().iterator().next();
        }
    }

    private static Optional<TopicImage> topic(int node, String name) {
        return cluster.node(node).image().topic(name);
    }

    /**
     * The controller applies commands in order: once a topic created after the request shows in node 1's image, a
     * creation the request had set off would show too.
     */
    private static void assertNeverCreated(String... names) {
        String marker = "marker-" + MARKERS.incrementAndGet();
        ApiTestSupport.createTopics(cluster, 1, ApiTestSupport.newTopic(marker, 1, 1, Map.of()));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> topic(1, marker).isPresent());
        for (String name : names) {
            assertTrue(topic(1, name).isEmpty(), name + " was created");
        }
    }

    @Test
    void metadataCreatesAMissingTopicWithTheReceivingBrokersDefaults() throws Exception {
        MetadataResponse.TopicMetadata first = metadata(1, "auto-made", true);
        // As a Kafka KRaft broker: retriable UNKNOWN_TOPIC_OR_PARTITION until this broker's image has it.
        assertTrue(first.error() == Errors.NONE || first.error() == Errors.UNKNOWN_TOPIC_OR_PARTITION, first.toString());
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> topic(1, "auto-made").isPresent());
        TopicImage made = topic(1, "auto-made").orElseThrow();
        assertEquals(3, made.partitions().size());
        made.partitions().values().forEach(p -> assertEquals(2, p.getReplicasCount(), p.toString()));

        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
            MetadataResponse.TopicMetadata t = metadata(1, "auto-made", true);
            return t.error() == Errors.NONE && t.partitionMetadata().size() == 3
                    && t.partitionMetadata().stream().allMatch(p -> p.leaderId.isPresent());
        });
    }

    @Test
    void aKafkaProducerDeliversToATopicThatDidNotExist() throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + cluster.kafkaPort(1));
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            RecordMetadata sent = producer.send(new ProducerRecord<>("auto-produced", 0, "k", "v")).get(60, TimeUnit.SECONDS);
            assertEquals(0, sent.offset());
        }
        assertEquals(3, topic(1, "auto-produced").orElseThrow().partitions().size());
    }

    @Test
    void aRequestThatDoesNotAllowCreationCreatesNothing() throws Exception {
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, metadata(1, "auto-not-allowed", false).error());
        assertNeverCreated("auto-not-allowed");
    }

    @Test
    void aBrokerWithTheKeyFalseCreatesNothing() throws Exception {
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, metadata(2, "auto-key-false", true).error());
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION, metadata(2, "bad name!", true).error());
        assertNeverCreated("auto-key-false");
    }

    @Test
    void invalidAndInternalNamesAreNotCreated() throws Exception {
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION, metadata(1, "bad name!", true).error());
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION, metadata(1, "x".repeat(250), true).error());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, metadata(1, "__consumer_offsets", true).error());
        assertNeverCreated("bad name!", "x".repeat(250), "__consumer_offsets");
    }

    @Test
    void aReplicationFactorAboveTheBrokersIsInvalidReplicationFactor() throws Exception {
        assertEquals(Errors.INVALID_REPLICATION_FACTOR, metadata(3, "auto-too-wide", true).error());
        assertNeverCreated("auto-too-wide");
    }

    @Test
    void grpcCreateTopicsWithMinusOneTakesTheReceivingBrokersDefaults() {
        CreateTopicsResponse created = cluster.admin(1).createTopics(CreateTopicsRequest.newBuilder().addTopics(
                NewTopic.newBuilder().setName("grpc-defaults").setNumPartitions(-1).setReplicationFactor(-1)).build());
        assertEquals(Errors.NONE.code(), created.getResults(0).getErrorCode(), created.toString());
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> topic(1, "grpc-defaults").isPresent());
        TopicImage t = topic(1, "grpc-defaults").orElseThrow();
        assertEquals(3, t.partitions().size());
        t.partitions().values().forEach(p -> assertEquals(2, p.getReplicasCount(), p.toString()));

        CreateTopicsResponse tooWide = cluster.admin(3).createTopics(CreateTopicsRequest.newBuilder().addTopics(
                NewTopic.newBuilder().setName("grpc-too-wide").setNumPartitions(1).setReplicationFactor(-1)).build());
        assertEquals(Errors.INVALID_REPLICATION_FACTOR.code(), tooWide.getResults(0).getErrorCode(), tooWide.toString());
    }
}
