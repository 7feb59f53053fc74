package io.tideline.node.kafka.data;

import static io.tideline.node.kafka.data.KafkaDataTestSupport.WAIT;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.createTopic;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.leaderNode;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Gauge;
import io.tideline.common.errors.Errors;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.TidelineNode;
import io.tideline.replication.server.DeleteRecordsPartitionResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.NoOffsetForPartitionException;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients' own KafkaProducer and KafkaConsumer (assign) against three nodes' Kafka listeners: what was
 * acknowledged is read back exactly, auto.offset.reset below the log start offset, a consumer across a leader
 * change, and the records leaving by file transfer. The test that kills a node runs last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaClientsTest {
    @TempDir
    static Path dir;
    private static NodeTestCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new NodeTestCluster(dir, 3, Map.of()).startAll();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static KafkaProducer<byte[], byte[]> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.kafkaBootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        // Idempotence needs InitProducerId and the leader's producer state (other parts of issue 12).
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String reset) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.kafkaBootstrapServers());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, reset);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 200);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    private static List<RecordMetadata> send(KafkaProducer<byte[], byte[]> producer, String topic, int from, int count)
            throws Exception {
        List<RecordMetadata> acked = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            acked.add(producer.send(new ProducerRecord<>(topic, 0, 1_700_000_000_000L + i, bytes("k" + i), bytes("v" + i),
                    List.of(new RecordHeader("h", bytes("x" + i))))).get(30, TimeUnit.SECONDS));
        }
        return acked;
    }

    /** Polls until {@code count} records came (or fails after the bound). */
    private static List<ConsumerRecord<byte[], byte[]>> poll(KafkaConsumer<byte[], byte[]> consumer, int count) {
        List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
        Awaitility.await(count + " records").atMost(WAIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                .until(() -> {
                    consumer.poll(Duration.ofMillis(100)).forEach(got::add);
                    return got.size() >= count;
                });
        return got;
    }

    private static long fileTransferBytes(TidelineNode node) {
        return (Long) ((Gauge<?>) node.metrics().getGauges().get(FetchStats.BYTES)).getValue();
    }

    @Test
    @Order(1)
    void consumerReadsBackExactlyWhatTheProducerHadAcknowledged() throws Exception {
        createTopic(cluster, "roundtrip", 1, 3, Map.of());
        TidelineNode leader = leaderNode(cluster, "roundtrip", 0);
        long transferredBefore = fileTransferBytes(leader);
        List<RecordMetadata> acked;
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            acked = send(producer, "roundtrip", 0, 20);
        }
        for (int i = 0; i < acked.size(); i++) {
            assertEquals(i, acked.get(i).offset(), "acknowledged offsets are 0, 1, 2, ...");
            assertEquals(1_700_000_000_000L + i, acked.get(i).timestamp());
        }
        TopicPartition tp = new TopicPartition("roundtrip", 0);
        try (KafkaConsumer<byte[], byte[]> consumer = consumer("earliest")) {
            consumer.assign(List.of(tp));
            List<ConsumerRecord<byte[], byte[]>> got = poll(consumer, 20);
            assertEquals(20, got.size());
            for (int i = 0; i < 20; i++) {
                ConsumerRecord<byte[], byte[]> r = got.get(i);
                assertEquals(i, r.offset());
                assertEquals("k" + i, string(r.key()));
                assertEquals("v" + i, string(r.value()));
                assertEquals(1_700_000_000_000L + i, r.timestamp());
                Header[] headers = r.headers().toArray();
                assertEquals(1, headers.length);
                assertEquals("h", headers[0].key());
                assertArrayEquals(bytes("x" + i), headers[0].value());
            }
            assertEquals(20L, consumer.position(tp));
        }
        assertTrue(fileTransferBytes(leader) - transferredBefore >= leader.logManager()
                        .getLog(new io.tideline.common.TopicPartition("roundtrip", 0)).orElseThrow().size(),
                "every stored byte read went to the consumer as a file slice");
    }

    /** A topic of 10 records whose log start offset DeleteRecords moved to 5. */
    private static TopicPartition trimmed(String topic) throws Exception {
        createTopic(cluster, topic, 1, 3, Map.of());
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            send(producer, topic, 0, 10);
        }
        TidelineNode leader = leaderNode(cluster, topic, 0);
        io.tideline.common.TopicPartition ours = new io.tideline.common.TopicPartition(topic, 0);
        DeleteRecordsPartitionResult deleted = leader.replicaManager().deleteRecords(Map.of(ours, 5L), 10_000)
                .get(30, TimeUnit.SECONDS).get(ours);
        assertEquals(Errors.NONE, deleted.error(), deleted.toString());
        return new TopicPartition(topic, 0);
    }

    @Test
    @Order(2)
    void autoOffsetResetEarliestBelowTheLogStartOffsetLandsAtTheLogStartOffset() throws Exception {
        TopicPartition tp = trimmed("reset-earliest");
        try (KafkaConsumer<byte[], byte[]> consumer = consumer("earliest")) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, 2L);
            List<ConsumerRecord<byte[], byte[]>> got = poll(consumer, 5);
            assertEquals(5L, got.get(0).offset(), "reset to the log start offset");
            assertEquals("v5", string(got.get(0).value()));
        }
    }

    @Test
    @Order(3)
    void autoOffsetResetLatestBelowTheLogStartOffsetLandsAtTheEnd() throws Exception {
        TopicPartition tp = trimmed("reset-latest");
        try (KafkaConsumer<byte[], byte[]> consumer = consumer("latest")) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, 2L);
            Awaitility.await("reset to the end").atMost(WAIT).until(() -> {
                consumer.poll(Duration.ofMillis(100));
                return consumer.position(tp) == 10L;
            });
            try (KafkaProducer<byte[], byte[]> producer = producer()) {
                send(producer, tp.topic(), 10, 1);
            }
            assertEquals(10L, poll(consumer, 1).get(0).offset(), "the next record written is the first read");
        }
    }

    @Test
    @Order(4)
    void autoOffsetResetNoneRaisesAsKafkasConsumerDoes() throws Exception {
        TopicPartition tp = trimmed("reset-none");
        try (KafkaConsumer<byte[], byte[]> consumer = consumer("none")) {
            consumer.assign(List.of(tp));
            assertThrows(NoOffsetForPartitionException.class, () -> consumer.poll(Duration.ofSeconds(5)),
                    "no position and no reset policy");
            consumer.seek(tp, 2L);
            OffsetOutOfRangeException e = assertThrows(OffsetOutOfRangeException.class, () -> {
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(200));
                }
            });
            assertEquals(Map.of(tp, 2L), e.offsetOutOfRangePartitions());
        }
    }

    @Test
    @Order(5)
    void consumerFollowsALeaderChangeWithoutLoss() throws Exception {
        createTopic(cluster, "failover", 1, 3, Map.of());
        TopicPartition tp = new TopicPartition("failover", 0);
        TidelineNode oldLeader = leaderNode(cluster, "failover", 0);
        int oldEpoch = KafkaDataTestSupport.leaderEpoch(oldLeader, "failover", 0);
        Set<String> read = new LinkedHashSet<>();
        try (KafkaProducer<byte[], byte[]> producer = producer();
             KafkaConsumer<byte[], byte[]> consumer = consumer("earliest")) {
            send(producer, "failover", 0, 30);
            consumer.assign(List.of(tp));
            poll(consumer, 30).forEach(r -> read.add(string(r.value())));

            cluster.kill(oldLeader.nodeId());
            Awaitility.await("a new leader").atMost(WAIT).until(() -> {
                TidelineNode l = leaderNode(cluster, "failover", 0);
                return l != null && l.nodeId() != oldLeader.nodeId();
            });
            send(producer, "failover", 30, 30);
            poll(consumer, 30).forEach(r -> read.add(string(r.value())));
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            expected.add("v" + i);
        }
        assertEquals(expected, new ArrayList<>(read), "every acknowledged record, once, in order");

        // The old epoch is fenced at the new leader (what a consumer's OffsetForLeaderEpoch validation meets).
        TidelineNode newLeader = leaderNode(cluster, "failover", 0);
        OffsetForLeaderEpochRequestData data = new OffsetForLeaderEpochRequestData().setReplicaId(-1);
        OffsetForLeaderEpochRequestData.OffsetForLeaderTopic t =
                new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic("failover");
        t.partitions().add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(0)
                .setCurrentLeaderEpoch(oldEpoch).setLeaderEpoch(oldEpoch));
        data.topics().add(t);
        KafkaRequest request = KafkaDataTestSupport.request(ApiKeys.OFFSET_FOR_LEADER_EPOCH, (short) 4, data);
        OffsetForLeaderEpochResponseData answer = KafkaDataTestSupport.call(new OffsetForLeaderEpochApi(
                newLeader.nodeId(), newLeader::image, newLeader.replicaManager()), request);
        assertEquals(Errors.FENCED_LEADER_EPOCH.code(),
                answer.topics().iterator().next().partitions().get(0).errorCode());
        data.topics().iterator().next().partitions().get(0).setCurrentLeaderEpoch(-1);
        OffsetForLeaderEpochResponseData.EpochEndOffset end = KafkaDataTestSupport.<OffsetForLeaderEpochResponseData>call(
                new OffsetForLeaderEpochApi(newLeader.nodeId(), newLeader::image, newLeader.replicaManager()),
                KafkaDataTestSupport.request(ApiKeys.OFFSET_FOR_LEADER_EPOCH, (short) 4, data))
                .topics().iterator().next().partitions().get(0);
        assertEquals(oldEpoch, end.leaderEpoch(), end.toString());
        assertEquals(30L, end.endOffset(), "the old epoch ended where the new leader took over");
    }
}
