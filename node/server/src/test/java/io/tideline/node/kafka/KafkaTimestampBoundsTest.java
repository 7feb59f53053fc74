package io.tideline.node.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.store.log.Log;
import io.tideline.store.producer.ProducerStateEntry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Through the Kafka listener of a 2-node cluster, with kafka-clients: message.timestamp.after.max.ms and
 * before.max.ms refuse records dated too far from the leader's clock with INVALID_TIMESTAMP, are listed by
 * DescribeConfigs with their source and set by CreateTopics and IncrementalAlterConfigs (docs/behaviours.md
 * B150); an idempotent producer's entry expires producer.id.expiration.ms after its last write by the
 * brokers' clocks, though its record is dated 50 minutes ahead (B151).
 */
class KafkaTimestampBoundsTest {
    private static final long MINUTE = 60_000L;
    private static final long EXPIRATION_MS = 15_000L;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    static Path dir;
    private static NodeTestCluster cluster;
    private static Admin admin;

    @BeforeAll
    static void start() throws Exception {
        cluster = new NodeTestCluster(dir, 2, Map.of("producer.id.expiration.ms", (int) EXPIRATION_MS,
                "producer.id.expiration.check.interval.ms", 250)).startAll();
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.kafkaBootstrapServers());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        admin = Admin.create(props);
        admin.createTopics(List.of(new NewTopic("dated", 1, (short) 2), new NewTopic("dated-idempotent", 1, (short) 2),
                new NewTopic("dated-strict", 1, (short) 2).configs(Map.of("message.timestamp.after.max.ms", "60000"))))
                .all().get(30, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static KafkaProducer<String, String> producer(boolean idempotent) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.kafkaBootstrapServers());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, idempotent);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    private static RecordMetadata send(KafkaProducer<String, String> producer, String topic, long timestamp)
            throws Exception {
        return producer.send(new ProducerRecord<>(topic, 0, timestamp, "k", "v")).get(30, TimeUnit.SECONDS);
    }

    private static Class<?> refusal(KafkaProducer<String, String> producer, String topic, long timestamp) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> send(producer, topic, timestamp));
        return e.getCause().getClass();
    }

    private static Config describe(String topic) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        return admin.describeConfigs(List.of(resource)).all().get(20, TimeUnit.SECONDS).get(resource);
    }

    @Test
    void aRecordDatedTwoHoursAheadIsRefusedWithInvalidTimestampAndOneWithinTheHourIsWritten() throws Exception {
        try (KafkaProducer<String, String> producer = producer(false)) {
            long now = System.currentTimeMillis();
            assertEquals(InvalidTimestampException.class, refusal(producer, "dated", now + 120 * MINUTE));
            assertEquals(0, send(producer, "dated", now + 50 * MINUTE).offset());
            assertEquals(InvalidTimestampException.class, refusal(producer, "dated-strict", now + 5 * MINUTE),
                    "the topic's own after.max.ms of one minute");
            assertEquals(0, send(producer, "dated-strict", now).offset());
        }
    }

    @Test
    void describeConfigsListsBothKeysWithTheirSourceAndAlterConfigsSetsThem() throws Exception {
        Config defaults = describe("dated");
        assertEquals("3600000", defaults.get("message.timestamp.after.max.ms").value());
        assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, defaults.get("message.timestamp.after.max.ms").source());
        assertEquals(String.valueOf(Long.MAX_VALUE), defaults.get("message.timestamp.before.max.ms").value());
        assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, defaults.get("message.timestamp.before.max.ms").source());
        Config strict = describe("dated-strict");
        assertEquals("60000", strict.get("message.timestamp.after.max.ms").value());
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, strict.get("message.timestamp.after.max.ms").source());

        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "dated-strict");
        admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(
                new ConfigEntry("message.timestamp.before.max.ms", "600000"), AlterConfigOp.OpType.SET))))
                .all().get(20, TimeUnit.SECONDS);
        Awaitility.await("node 1 runs dated-strict-0 with before.max.ms 600000").atMost(WAIT).until(() ->
                cluster.node(1).replicaManager().log(new TopicPartition("dated-strict", 0))
                        .map(l -> l.config().messageTimestampBeforeMaxMs() == 600_000L).orElse(false)
                && cluster.node(2).replicaManager().log(new TopicPartition("dated-strict", 0))
                        .map(l -> l.config().messageTimestampBeforeMaxMs() == 600_000L).orElse(false));
        try (KafkaProducer<String, String> producer = producer(false)) {
            assertEquals(InvalidTimestampException.class,
                    refusal(producer, "dated-strict", System.currentTimeMillis() - 20 * MINUTE));
        }
        ExecutionException negative = assertThrows(ExecutionException.class, () -> admin.incrementalAlterConfigs(
                Map.of(resource, List.of(new AlterConfigOp(new ConfigEntry("message.timestamp.after.max.ms", "-1"),
                        AlterConfigOp.OpType.SET)))).all().get(20, TimeUnit.SECONDS));
        assertInstanceOf(org.apache.kafka.common.errors.InvalidConfigurationException.class, negative.getCause());
    }

    @Test
    void aFutureDatedProducerEntryExpiresByTheBrokersClocks() throws Exception {
        TopicPartition tp = new TopicPartition("dated-idempotent", 0);
        try (KafkaProducer<String, String> producer = producer(true)) {
            long sentAt = System.currentTimeMillis();
            long dated = sentAt + 50 * MINUTE;
            send(producer, "dated-idempotent", dated);
            long written = System.nanoTime();
            for (int node = 1; node <= 2; node++) {
                Log log = cluster.node(node).replicaManager().log(tp).orElseThrow();
                Awaitility.await("node " + node + " knows the producer").atMost(WAIT)
                        .until(() -> !log.activeProducers().isEmpty());
                ProducerStateEntry entry = log.activeProducers().get(0);
                assertEquals(dated, entry.lastTimestamp(), "node " + node + ": the client's timestamp is kept");
                assertTrue(entry.lastAppendTimeMs() >= sentAt && entry.lastAppendTimeMs() <= System.currentTimeMillis(),
                        "node " + node + " counts from its own clock at the write: " + entry);
            }
            for (int node = 1; node <= 2; node++) {
                Log log = cluster.node(node).replicaManager().log(tp).orElseThrow();
                Awaitility.await("node " + node + " forgets the producer").atMost(WAIT)
                        .until(() -> log.activeProducers().isEmpty());
            }
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - written);
            assertTrue(waitedMs >= EXPIRATION_MS - 2_000, "forgotten after " + waitedMs + " ms, before "
                    + EXPIRATION_MS + " ms of idleness");
        }
    }
}
