package io.tideline.node.kafka.data;

import static io.tideline.node.kafka.data.KafkaDataTestSupport.WAIT;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.createTopic;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.leaderNode;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.TidelineNode;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProducePartitionResponse;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.proto.client.ProduceResponse;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import io.tideline.store.record.CompressionType;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's own producer and consumer against three nodes (docs/behaviours.md B210-B216): every producer
 * compression.type into a topic of every compression.type reads back in order with keys, values, headers and
 * timestamps intact, and the leader's and followers' logs hold the topic's codec (the producer's under
 * {@code producer}); a keyless record on a compacted topic fails the send with InvalidRecordException and writes
 * nothing. The gRPC Produce follows the same rules.
 */
class KafkaProduceCompressionTest {
    private static final List<String> PRODUCER_CODECS = List.of("none", "gzip", "snappy", "lz4", "zstd");
    private static final List<String> TOPIC_SETTINGS = List.of("producer", "uncompressed", "gzip", "snappy", "lz4", "zstd");
    private static final int RECORDS_PER_CODEC = 200;
    private static final long T0 = 1_700_000_000_000L;

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

    @Test
    void everyProducerCodecIntoEveryTopicSettingReadsBackAndIsStoredInTheTopicsCodec() throws Exception {
        for (String setting : TOPIC_SETTINGS) {
            createTopic(cluster, topic(setting), 1, 3, Map.of("compression.type", setting));
        }
        // Offset ranges of each producer codec, the same in every topic: the producers run one after another.
        Map<String, long[]> ranges = new HashMap<>();
        for (int c = 0; c < PRODUCER_CODECS.size(); c++) {
            String codec = PRODUCER_CODECS.get(c);
            try (KafkaProducer<byte[], byte[]> producer = producer(codec)) {
                Map<String, List<Future<RecordMetadata>>> sent = new HashMap<>();
                for (String setting : TOPIC_SETTINGS) {
                    List<Future<RecordMetadata>> futures = new ArrayList<>();
                    for (int i = 0; i < RECORDS_PER_CODEC; i++) {
                        int n = c * RECORDS_PER_CODEC + i;
                        futures.add(producer.send(new ProducerRecord<>(topic(setting), 0, T0 + n, key(n), value(n),
                                headers(n))));
                    }
                    sent.put(setting, futures);
                }
                producer.flush();
                for (String setting : TOPIC_SETTINGS) {
                    List<Future<RecordMetadata>> futures = sent.get(setting);
                    for (int i = 0; i < futures.size(); i++) {
                        assertEquals(c * RECORDS_PER_CODEC + i, futures.get(i).get(30, TimeUnit.SECONDS).offset(),
                                codec + " into " + setting);
                    }
                }
            }
            ranges.put(codec, new long[] {c * RECORDS_PER_CODEC, (c + 1) * RECORDS_PER_CODEC - 1});
        }

        int total = PRODUCER_CODECS.size() * RECORDS_PER_CODEC;
        for (String setting : TOPIC_SETTINGS) {
            List<ConsumerRecord<byte[], byte[]>> got = consumeFromStart(topic(setting), total);
            assertEquals(total, got.size(), setting);
            for (int n = 0; n < total; n++) {
                ConsumerRecord<byte[], byte[]> r = got.get(n);
                assertEquals(n, r.offset(), setting);
                assertEquals(T0 + n, r.timestamp(), setting + " offset " + n);
                assertArrayEquals(key(n), r.key(), setting + " offset " + n);
                assertArrayEquals(value(n), r.value(), setting + " offset " + n);
                Header[] headers = r.headers().toArray();
                assertEquals(2, headers.length, setting + " offset " + n);
                assertEquals("trace", headers[0].key());
                assertArrayEquals(("t" + n).getBytes(StandardCharsets.UTF_8), headers[0].value());
                assertEquals("none", headers[1].key());
                assertNull(headers[1].value());
            }

            TopicPartition tp = new TopicPartition(topic(setting), 0);
            TidelineNode leader = leaderNode(cluster, topic(setting), 0);
            List<RecordBatch> leaderBatches = storedBatches(leader.replicaManager().log(tp).orElseThrow());
            assertTrue(leaderBatches.size() >= PRODUCER_CODECS.size(), setting + ": " + leaderBatches.size() + " batches");
            for (RecordBatch batch : leaderBatches) {
                String producerCodec = codecAt(ranges, batch.baseOffset());
                assertEquals(codecAt(ranges, batch.lastOffset()), producerCodec, "one producer per batch");
                assertEquals(expectedCodec(setting, producerCodec), batch.compressionType(),
                        setting + " holding a batch from a " + producerCodec + " producer: " + batch);
                assertTrue(batch.producerId() >= 0, "the idempotent producer's id is kept: " + batch);
            }
            // Followers hold the leader's bytes, batch for batch.
            for (TidelineNode node : cluster.running()) {
                if (node == leader) {
                    continue;
                }
                Awaitility.await("follower " + node.nodeId() + " of " + tp).atMost(WAIT).until(() ->
                        node.replicaManager().log(tp).map(l -> l.logEndOffset() == total).orElse(false));
                List<RecordBatch> copied = storedBatches(node.replicaManager().log(tp).orElseThrow());
                assertEquals(leaderBatches.size(), copied.size(), setting + " on node " + node.nodeId());
                for (int i = 0; i < copied.size(); i++) {
                    assertEquals(leaderBatches.get(i).buffer(), copied.get(i).buffer(),
                            setting + " batch " + i + " on node " + node.nodeId());
                }
            }
        }
    }

    @Test
    void aKeylessRecordOnACompactedTopicFailsTheSendWithInvalidRecordException() throws Exception {
        String topic = "compacted";
        createTopic(cluster, topic, 1, 3, Map.of("cleanup.policy", "compact", "compression.type", "lz4"));
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaProducer<byte[], byte[]> producer = producer("gzip")) {
            assertEquals(0, producer.send(new ProducerRecord<>(topic, 0, T0, key(0), value(0))).get(30, TimeUnit.SECONDS)
                    .offset());
            ExecutionException e = assertThrows(ExecutionException.class, () -> producer.send(
                    new ProducerRecord<>(topic, 0, T0 + 1, null, value(1))).get(30, TimeUnit.SECONDS));
            assertInstanceOf(InvalidRecordException.class, e.getCause(), String.valueOf(e.getCause()));
            assertTrue(e.getCause().getMessage().contains(
                    "Compacted topic cannot accept message without key in topic partition compacted-0"),
                    e.getCause().getMessage());
        }
        Log log = leaderNode(cluster, topic, 0).replicaManager().log(tp).orElseThrow();
        assertEquals(1, log.logEndOffset(), "nothing of the refused batch is written");

        // A tombstone has a key and is accepted.
        try (KafkaProducer<byte[], byte[]> producer = producer("none")) {
            assertEquals(1, producer.send(new ProducerRecord<>(topic, 0, T0 + 2, key(0), (byte[]) null)).get(30, TimeUnit.SECONDS)
                    .offset());
        }
        List<ConsumerRecord<byte[], byte[]>> got = consumeFromStart(topic, 2);
        assertArrayEquals(value(0), got.get(0).value());
        assertNull(got.get(1).value());
        assertEquals(2, log.logEndOffset());
    }

    @Test
    void theGrpcProduceFollowsTheSameRules() throws Exception {
        String topic = "grpc-compacted";
        createTopic(cluster, topic, 1, 3, Map.of("cleanup.policy", "compact", "compression.type", "zstd"));
        TidelineNode leader = leaderNode(cluster, topic, 0);
        MemoryRecords keyless = MemoryRecords.of(new RecordBatchBuilder(0L, CompressionType.GZIP)
                .append(T0, "k", "keyed").append(T0, (String) null, "keyless").build());
        ProducePartitionResponse refused = grpcProduce(leader, topic, keyless);
        assertEquals(Errors.INVALID_RECORD.code(), refused.getErrorCode(), refused.toString());
        assertEquals("Compacted topic cannot accept message without key in topic partition grpc-compacted-0",
                refused.getErrorMessage());

        MemoryRecords keyed = MemoryRecords.of(new RecordBatchBuilder(0L, CompressionType.GZIP)
                .append(T0, "k", "keyed").append(T0, "k2", "also keyed").build());
        ProducePartitionResponse accepted = grpcProduce(leader, topic, keyed);
        assertEquals(Errors.NONE.code(), accepted.getErrorCode(), accepted.toString());
        assertEquals(0, accepted.getBaseOffset());
        Log log = leader.replicaManager().log(new TopicPartition(topic, 0)).orElseThrow();
        List<RecordBatch> stored = storedBatches(log);
        assertEquals(1, stored.size());
        assertEquals(CompressionType.ZSTD, stored.get(0).compressionType());
        assertEquals("also keyed", new String(stored.get(0).records().get(1).value(), StandardCharsets.UTF_8));
    }

    // ---------------------------------------------------------------- helpers

    private static ProducePartitionResponse grpcProduce(TidelineNode leader, String topic, MemoryRecords records) {
        ProduceResponse response = cluster.client(leader.nodeId()).produce(ProduceRequest.newBuilder().setAcks(-1)
                .setTimeoutMs(10_000).addPartitions(ProducePartition.newBuilder().setTopic(topic).setPartition(0)
                        .setRecords(ByteString.copyFrom(records.buffer()))).build());
        return response.getPartitions(0);
    }

    private static String topic(String setting) {
        return "codec-" + setting;
    }

    private static CompressionType expectedCodec(String setting, String producerCodec) {
        String label = switch (setting) {
            case "producer" -> producerCodec;
            case "uncompressed" -> "none";
            default -> setting;
        };
        for (CompressionType t : CompressionType.values()) {
            if (t.label.equals(label)) {
                return t;
            }
        }
        throw new AssertionError(label);
    }

    private static String codecAt(Map<String, long[]> ranges, long offset) {
        return ranges.entrySet().stream().filter(e -> e.getValue()[0] <= offset && offset <= e.getValue()[1])
                .map(Map.Entry::getKey).findFirst().orElseThrow(() -> new AssertionError("offset " + offset));
    }

    private static byte[] key(int n) {
        return ("key-" + n).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int n) {
        return ("value " + n + " " + "abcdefgh".repeat(n % 20)).getBytes(StandardCharsets.UTF_8);
    }

    private static List<Header> headers(int n) {
        return List.of(new RecordHeader("trace", ("t" + n).getBytes(StandardCharsets.UTF_8)), new RecordHeader("none", null));
    }

    private static KafkaProducer<byte[], byte[]> producer(String compression) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.kafkaBootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        // Several records per batch, so that the codecs have something to compress.
        p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static List<ConsumerRecord<byte[], byte[]>> consumeFromStart(String topic, int count) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.kafkaBootstrapServers());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 200);
        List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(new org.apache.kafka.common.TopicPartition(topic, 0)));
            consumer.seekToBeginning(consumer.assignment());
            Awaitility.await(count + " records of " + topic).atMost(WAIT).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(1)).until(() -> {
                        consumer.poll(Duration.ofMillis(100)).forEach(got::add);
                        return got.size() >= count;
                    });
        }
        return got;
    }

    /** Every batch of the log, read through the Log API, on a heap copy. */
    private static List<RecordBatch> storedBatches(Log log) throws Exception {
        try (FetchDataInfo fetch = log.read(log.logStartOffset(), Integer.MAX_VALUE, log.logEndOffset(), true)) {
            ByteBuffer stored = fetch.records().toMemoryRecords().buffer();
            ByteBuffer copy = ByteBuffer.allocate(stored.remaining()).put(stored).flip();
            return MemoryRecords.readableRecords(copy).batches();
        }
    }
}
