package io.tideline.cluster.kafkatools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceDataCollection;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compression bombs against a 3-node {@code scripts/cluster.sh} cluster of real node processes (heaps of 256 MiB),
 * through the Kafka listener (docs/behaviours.md B120-B122). Each leader gets, over a raw socket, Produce requests
 * whose one batch is about 1 MiB on the wire and inflates to about 1 GiB (gzip, zstd), 240 MiB (lz4) or 20 MiB
 * (snappy), written by kafka-clients' own encoders, plus a batch of many small records that only add up to too
 * much: each is answered MESSAGE_TOO_LARGE. Every node then still runs, and Kafka's producer and consumer round-trip
 * records through every leader with each codec, and a topic's compression.type is the codec every replica stores.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "cluster.sh is a bash script that reads /proc")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CompressionBombProduceTest {
    private static final int NODES = 3;
    private static final int PARTITIONS = 6;
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static final String BOMBS = "bombs";
    private static final List<CompressionType> CODECS =
            List.of(CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4, CompressionType.ZSTD);
    /** max.message.bytes' default: the batch on the wire must pass it, so that only its inflated size is refused. */
    private static final int MAX_MESSAGE_BYTES = 1_048_588;
    private static final int UNIT = 4 << 20;

    @TempDir
    static Path dir;

    private ScriptCluster cluster;
    private List<Long> nodePids = List.of();
    private String bootstrap;
    private Admin admin;

    @BeforeAll
    void startCluster() throws Exception {
        cluster = new ScriptCluster(REPO, dir, NODES);
        nodePids = cluster.startAndRecordPids();
        bootstrap = cluster.kafkaBootstrap();
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        admin = Admin.create(props);
    }

    @AfterAll
    void stopCluster() throws Exception {
        if (admin != null) {
            admin.close(Duration.ofSeconds(10));
        }
        if (cluster != null) {
            cluster.stopLeavingNothing(nodePids);
        }
    }

    @Test
    @Order(1)
    void everyLeaderAnswersEveryCodecsBombWithMessageTooLargeAndLives() throws Exception {
        Map<Integer, TopicPartitionInfo> byLeader = leadersOfEachNode(BOMBS);
        for (TopicPartitionInfo p : byLeader.values()) {
            Node leader = p.leader();
            for (CompressionType codec : CODECS) {
                for (MemoryRecords bomb : List.of(oneHugeRecord(codec), manySmallRecords(codec))) {
                    assertTrue(bomb.sizeInBytes() <= MAX_MESSAGE_BYTES, codec + ": " + bomb.sizeInBytes() + " bytes");
                    PartitionProduceResponse answer = produce(leader, BOMBS, p.partition(), bomb);
                    assertEquals(Errors.MESSAGE_TOO_LARGE.code(), answer.errorCode(), "node " + leader.id() + ", "
                            + codec + " bomb of " + bomb.sizeInBytes() + " bytes: " + answer);
                }
            }
        }
        for (long pid : nodePids) {
            assertTrue(cluster.isOurNode(pid), "node process " + pid + " still runs");
        }
        Map<TopicPartition, Long> ends = admin.listOffsets(Map.of(new TopicPartition(BOMBS, 0),
                org.apache.kafka.clients.admin.OffsetSpec.latest())).all().get(30, TimeUnit.SECONDS)
                .entrySet().stream().collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
        assertEquals(Map.of(new TopicPartition(BOMBS, 0), 0L), ends, "no bomb was written");
    }

    @Test
    @Order(2)
    void kafkasProducerAndConsumerRoundTripEveryCodecThroughEveryLeader() throws Exception {
        for (CompressionType codec : List.of(CompressionType.LZ4, CompressionType.SNAPPY, CompressionType.ZSTD,
                CompressionType.GZIP, CompressionType.NONE)) {
            String topic = "codec-" + codec.name;
            Map<Integer, TopicPartitionInfo> byLeader = leadersOfEachNode(topic);
            Map<String, String> sent = new TreeMap<>();
            Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec.name);
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
            props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
            try (KafkaProducer<String, String> producer =
                         new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
                for (TopicPartitionInfo p : byLeader.values()) {
                    for (int i = 0; i < 200; i++) {
                        String key = "p" + p.partition() + "-" + i;
                        String value = codec.name + " value that repeats " + (i % 5) + " " + key;
                        producer.send(new ProducerRecord<>(topic, p.partition(), key, value)).get(60, TimeUnit.SECONDS);
                        sent.put(key, value);
                    }
                }
            }
            Map<String, String> read = consumeAll(topic, sent.size());
            assertEquals(sent, read, codec + ": what Kafka's consumer read back");
        }
        for (long pid : nodePids) {
            assertTrue(cluster.isOurNode(pid), "node process " + pid + " still runs");
        }
    }

    /**
     * A topic's compression.type other than producer: every batch a producer sends in another codec is stored
     * recompressed on the leader and, as fetched, on every follower (B210-B219); Kafka's consumer reads it all.
     * Each topic gets a producer whose codec is not the topic's, so that every batch is recompressed.
     */
    @Test
    @Order(3)
    void aTopicsCompressionTypeIsWhatEveryReplicaStores() throws Exception {
        List<String> targets = List.of("uncompressed", "gzip", "snappy", "lz4", "zstd");
        List<String> producerCodecs = List.of("zstd", "lz4", "gzip", "none", "snappy");
        for (int t = 0; t < targets.size(); t++) {
            String target = targets.get(t);
            String topic = "stored-" + target;
            Map<Integer, TopicPartitionInfo> byLeader = leadersOfEachNode(topic, Map.of("compression.type", target));
            Map<String, String> sent = new TreeMap<>();
            Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, producerCodecs.get(t));
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
            props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
            try (KafkaProducer<String, String> producer =
                         new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
                for (TopicPartitionInfo p : byLeader.values()) {
                    for (int i = 0; i < 100; i++) {
                        String key = "p" + p.partition() + "-" + i;
                        String value = target + " value that repeats " + (i % 5) + " " + key;
                        producer.send(new ProducerRecord<>(topic, p.partition(), key, value)).get(60, TimeUnit.SECONDS);
                        sent.put(key, value);
                    }
                }
            }
            assertEquals(sent, consumeAll(topic, sent.size()), target + ": what Kafka's consumer read back");
            CompressionType expected = target.equals("uncompressed") ? CompressionType.NONE
                    : CompressionType.forName(target);
            for (TopicPartitionInfo p : byLeader.values()) {
                for (Node replica : p.replicas()) {
                    Awaitility.await(topic + "-" + p.partition() + " on node " + replica.id())
                            .atMost(Duration.ofSeconds(30)).until(() -> storedRecords(replica.id(), topic,
                                    p.partition(), expected) == 100);
                }
            }
        }
    }

    /**
     * Records in the segments of node {@code nodeId}'s replica, read from its log dir with Kafka's own FileRecords,
     * after checking that every batch there is in {@code codec}.
     */
    private int storedRecords(int nodeId, String topic, int partition, CompressionType codec) throws IOException {
        Path dir = cluster.clusterDir().resolve("node-" + nodeId).resolve("logs").resolve(topic + "-" + partition);
        int records = 0;
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(dir)) {
            for (Path segment : files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList()) {
                try (FileRecords log = FileRecords.open(segment.toFile(), false)) {
                    for (RecordBatch batch : log.batches()) {
                        assertEquals(codec, batch.compressionType(), segment + " at offset " + batch.baseOffset());
                        records += (int) (batch.lastOffset() - batch.baseOffset() + 1);
                    }
                }
            }
        }
        return records;
    }

    /** One partition led by each node, the topic created first with RF 3 and leaders awaited. */
    private Map<Integer, TopicPartitionInfo> leadersOfEachNode(String topic) throws Exception {
        return leadersOfEachNode(topic, Map.of());
    }

    private Map<Integer, TopicPartitionInfo> leadersOfEachNode(String topic, Map<String, String> configs)
            throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) NODES).configs(configs))).all()
                .get(60, TimeUnit.SECONDS);
        Map<Integer, TopicPartitionInfo> byLeader = new TreeMap<>();
        Awaitility.await(topic + " has a leader on every node").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                    TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                            .get(topic);
                    byLeader.clear();
                    for (TopicPartitionInfo p : d.partitions()) {
                        assertTrue(p.leader() != null && p.isr().size() == NODES, "leader and full ISR: " + p);
                        byLeader.putIfAbsent(p.leader().id(), p);
                    }
                    assertEquals(NODES, byLeader.size(), "leaders: " + d);
                });
        return byLeader;
    }

    private Map<String, String> consumeAll(String topic, int expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Map<String, String> read = new HashMap<>();
        try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Awaitility.await(topic + ": every record consumed").atMost(Duration.ofSeconds(60)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    read.put(r.key(), r.value());
                }
                return read.size() >= expected;
            });
        }
        return read;
    }

    /** One Produce request (v11, acks=1) holding {@code records} for one partition, sent to {@code leader}. */
    private static PartitionProduceResponse produce(Node leader, String topic, int partition, MemoryRecords records)
            throws IOException {
        short version = 11;
        TopicProduceDataCollection topics = new TopicProduceDataCollection();
        topics.add(new TopicProduceData().setName(topic).setPartitionData(
                List.of(new PartitionProduceData().setIndex(partition).setRecords(records))));
        ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(30_000).setTopicData(topics);
        RequestHeader header = new RequestHeader(ApiKeys.PRODUCE, version, "compression-bomb", 7);
        ByteBuffer frame = new ProduceRequest(data, version).serializeWithHeader(header);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(leader.host(), leader.port()), 10_000);
            // A node that dies mid-request shows as a read that ends or times out, not a hang.
            socket.setSoTimeout(60_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(frame.remaining());
            out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            int size = in.readInt();
            assertTrue(size > 0 && size < (1 << 20), "response size " + size);
            byte[] response = in.readNBytes(size);
            ProduceResponse parsed = (ProduceResponse) AbstractResponse.parseResponse(ByteBuffer.wrap(response), header);
            return parsed.data().responses().iterator().next().partitionResponses().get(0);
        }
    }

    /**
     * One record of about 1 GiB of zeros (240 MiB for lz4, 20 MiB for snappy: what fits in 1 MiB), written with
     * kafka-clients' encoder as concatenated streams (gzip members, frames), each reader reads them as one.
     */
    private static MemoryRecords oneHugeRecord(CompressionType codec) throws IOException {
        long inflated = switch (codec) {
            case GZIP -> 1000L << 20;
            case ZSTD -> 1L << 30;
            case LZ4 -> 240L << 20;
            default -> 20L << 20;
        };
        int valueBytes = (int) inflated;
        ByteBuffer head = ByteBuffer.allocate(32);
        int body = 4 + varintSize(valueBytes) + valueBytes + 1;
        writeVarint(body, head);
        head.put((byte) 0).put((byte) 0).put((byte) 0); // attributes, timestamp delta 0, offset delta 0
        writeVarint(-1, head); // null key
        writeVarint(valueBytes, head);
        ByteBufferOutputStream wire = new ByteBufferOutputStream(1 << 20);
        compressInto(wire, codec, head.array(), head.position());
        byte[] zeros = compressed(codec, new byte[UNIT], UNIT);
        for (int i = 0; i < valueBytes / UNIT; i++) {
            wire.write(zeros);
        }
        int rest = valueBytes % UNIT + 1; // the last zero is the record's header count
        compressInto(wire, codec, new byte[rest], rest);
        return batch(codec, 1, wire.buffer().flip());
    }

    /** Records of 64 KiB of zeros each, every one well formed, 64 MiB in all (20 MiB for snappy): only the total is too much. */
    private static MemoryRecords manySmallRecords(CompressionType codec) throws IOException {
        int valueBytes = 64 * 1024;
        int count = (int) ((codec == CompressionType.SNAPPY ? 20L << 20 : 64L << 20) / (valueBytes + 16));
        ByteBufferOutputStream wire = new ByteBufferOutputStream(1 << 20);
        ByteBuffer record = ByteBuffer.allocate(valueBytes + 32);
        try (OutputStream out = Compression.of(codec).build().wrapForOutput(wire, (byte) 2)) {
            for (int i = 0; i < count; i++) {
                record.clear();
                writeVarint(3 + varintSize(i) + varintSize(valueBytes) + valueBytes + 1, record);
                record.put((byte) 0).put((byte) 0);
                writeVarint(i, record);
                writeVarint(-1, record);
                writeVarint(valueBytes, record);
                record.put(new byte[valueBytes]).put((byte) 0);
                out.write(record.array(), 0, record.position());
            }
        }
        return batch(codec, count, wire.buffer().flip());
    }

    private static byte[] compressed(CompressionType codec, byte[] plain, int length) throws IOException {
        ByteBufferOutputStream out = new ByteBufferOutputStream(64 * 1024);
        compressInto(out, codec, plain, length);
        ByteBuffer b = out.buffer().flip();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return bytes;
    }

    private static void compressInto(ByteBufferOutputStream wire, CompressionType codec, byte[] plain, int length)
            throws IOException {
        try (OutputStream out = Compression.of(codec).build().wrapForOutput(wire, (byte) 2)) {
            out.write(plain, 0, length);
        }
    }

    /** A v2 batch header (CRC-32C over attributes onwards) in front of {@code compressed}. */
    private static MemoryRecords batch(CompressionType codec, int count, ByteBuffer compressed) {
        ByteBuffer b = ByteBuffer.allocate(61 + compressed.remaining()).order(ByteOrder.BIG_ENDIAN);
        long now = System.currentTimeMillis();
        b.putLong(0L).putInt(b.capacity() - 12).putInt(-1).put((byte) 2).putInt(0).putShort((short) codec.id)
                .putInt(count - 1).putLong(now).putLong(now).putLong(-1L).putShort((short) -1).putInt(-1).putInt(count)
                .put(compressed).flip();
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 21, b.limit() - 21);
        b.putInt(17, (int) crc.getValue());
        return MemoryRecords.readableRecords(b);
    }

    private static int varintSize(int value) {
        int v = (value << 1) ^ (value >> 31);
        int bytes = 1;
        while ((v & 0xffffff80) != 0) {
            bytes++;
            v >>>= 7;
        }
        return bytes;
    }

    private static void writeVarint(int value, ByteBuffer out) {
        int v = (value << 1) ^ (value >> 31);
        while ((v & 0xffffff80) != 0) {
            out.put((byte) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        out.put((byte) v);
    }
}
