package io.tideline.node.group;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.codahale.metrics.Gauge;
import io.tideline.node.server.NodeTestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group that read a key's value and committed before the key's tombstone, then stayed behind while the cleaner
 * removed the tombstone after delete.retention.ms, is reported by the leader's gauge (docs/behaviours.md B194); a
 * group already past the tombstone is not.
 */
class MissedTombstonesTest {
    private static final String TOPIC = "profiles";

    @Test
    void aGroupBelowARemovedTombstoneIsCountedAndOnePastItIsNot(@TempDir Path dir) throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 1, Map.of("log.cleaner.backoff.ms", 50)).startAll()) {
            Properties props = new Properties();
            props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.kafkaBootstrapServers());
            props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            try (Admin admin = Admin.create(props);
                 KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1).configs(Map.of(
                        "cleanup.policy", "compact", "segment.bytes", "1024", "min.cleanable.dirty.ratio", "0.01",
                        "delete.retention.ms", "0")))).all().get(30, TimeUnit.SECONDS);
                producer.send(new ProducerRecord<>(TOPIC, 0, "alice", "v1")).get(30, TimeUnit.SECONDS);
                long tombstone = producer.send(new ProducerRecord<>(TOPIC, 0, "alice", null)).get(30, TimeUnit.SECONDS)
                        .offset();
                // "behind" read alice's value and stopped; "ahead" read past her tombstone.
                admin.alterConsumerGroupOffsets("behind", Map.of(tp, new OffsetAndMetadata(1))).all()
                        .get(30, TimeUnit.SECONDS);
                admin.alterConsumerGroupOffsets("ahead", Map.of(tp, new OffsetAndMetadata(tombstone + 1))).all()
                        .get(30, TimeUnit.SECONDS);
                @SuppressWarnings("unchecked")
                Gauge<Integer> gauge = (Gauge<Integer>) cluster.node(1).metrics().getGauges()
                        .get(MissedTombstones.GAUGE);
                assertEquals(0, gauge.getValue());
                // Other keys roll segments and keep the log dirty, so that a first cleaning stamps the tombstone's
                // delete horizon and a later one removes it.
                int[] filler = {0};
                Awaitility.await("the tombstone is removed and the group behind it counted")
                        .atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
                            producer.send(new ProducerRecord<>(TOPIC, 0, "k" + (filler[0]++ % 20),
                                    "x".repeat(200))).get(30, TimeUnit.SECONDS);
                            return gauge.getValue() == 1;
                        });
            }
        }
    }
}
