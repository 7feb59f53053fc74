package io.tideline.node.e2e;

import static io.tideline.node.e2e.E2e.bytes;
import static io.tideline.node.e2e.E2e.string;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.client.ConsumerRecord;
import io.tideline.client.ProducerRecord;
import io.tideline.client.RecordMetadata;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineConsumer;
import io.tideline.client.TidelineProducer;
import io.tideline.client.internals.Murmur2;
import io.tideline.common.TopicPartition;
import io.tideline.node.server.NodeTestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Java client against real nodes: records produced with acks=all (explicit partitions, keys, no key)
 * come back from the consumer with the offsets the producer was given, in order per partition, with
 * their keys, values and timestamps.
 */
class ProduceConsumeTest {
    private static final String TOPIC = "events";
    private static final int PARTITIONS = 3;
    private static final int RECORDS = 600;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} node(s)")
    @ValueSource(ints = {1, 3})
    void everyAcknowledgedRecordIsConsumedAtItsOffsetWithItsKeyValueAndTimestamp(int nodes) throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, nodes, Map.of()).startAll();
             TidelineAdmin admin = new TidelineAdmin(E2e.clientConfig(cluster, Map.of()))) {
            E2e.createTopic(cluster, admin, TOPIC, PARTITIONS, nodes,
                    Map.of("min.insync.replicas", String.valueOf(Math.min(2, nodes))));

            List<ProducerRecord> sent = records(System.currentTimeMillis() - RECORDS);
            List<RecordMetadata> acked = produce(cluster, sent);
            Map<Integer, List<Expected>> expected = checkPlacement(sent, acked);

            try (TidelineConsumer consumer = new TidelineConsumer(E2e.clientConfig(cluster, Map.of(
                    "fetch.max.wait.ms", 100,
                    // Small fetches: the records come over many rounds, not in one answer.
                    "max.partition.fetch.bytes", 2048,
                    "max.poll.records", 70)))) {
                List<TopicPartition> all = new ArrayList<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    all.add(new TopicPartition(TOPIC, p));
                }
                consumer.assign(all);
                consumer.seekToBeginning(all);
                Map<Integer, List<ConsumerRecord>> consumed = new TreeMap<>();
                List<ConsumerRecord> total = new ArrayList<>();
                Awaitility.await("all " + RECORDS + " records consumed").atMost(E2e.WAIT).pollDelay(Duration.ZERO)
                        .until(() -> {
                            for (ConsumerRecord r : consumer.poll(Duration.ofMillis(200))) {
                                total.add(r);
                                consumed.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(r);
                            }
                            return total.size() >= RECORDS;
                        });
                assertEquals(RECORDS, total.size());
                for (int p = 0; p < PARTITIONS; p++) {
                    List<Expected> want = expected.getOrDefault(p, List.of());
                    List<ConsumerRecord> got = consumed.getOrDefault(p, List.of());
                    assertEquals(want.size(), got.size(), "records of partition " + p);
                    for (int i = 0; i < want.size(); i++) {
                        Expected e = want.get(i);
                        ConsumerRecord r = got.get(i);
                        String where = "partition " + p + ", record " + i;
                        assertEquals(TOPIC, r.topic(), where);
                        assertEquals(e.offset(), r.offset(), where);
                        assertEquals(e.record().timestamp().longValue(), r.timestamp(), where);
                        assertArrayEquals(e.record().key(), r.key(), where);
                        assertArrayEquals(e.record().value(), r.value(), where);
                    }
                }
                Map<TopicPartition, Long> ends = consumer.endOffsets(all);
                Map<TopicPartition, Long> starts = consumer.beginningOffsets(all);
                for (TopicPartition tp : all) {
                    assertEquals(expected.getOrDefault(tp.partition(), List.of()).size(), ends.get(tp), "end of " + tp);
                    assertEquals(0L, starts.get(tp), "start of " + tp);
                    assertEquals(ends.get(tp), consumer.position(tp), "position of " + tp);
                }
            }
        }
    }

    private record Expected(ProducerRecord record, long offset) {
    }

    /**
     * A third with an explicit partition, a third keyed (placed by murmur2), a third with neither (sticky
     * partition). Timestamps are explicit and distinct; one value is null, one key empty.
     */
    private static List<ProducerRecord> records(long firstTimestamp) {
        List<ProducerRecord> records = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            long ts = firstTimestamp + i;
            byte[] value = i == 3 ? null : bytes("value-" + i + "-" + "x".repeat(i % 40));
            ProducerRecord r = switch (i % 3) {
                case 0 -> new ProducerRecord(TOPIC, (i / 3) % PARTITIONS, i == 6 ? new byte[0] : null, value, ts);
                case 1 -> new ProducerRecord(TOPIC, null, bytes("key-" + (i % 17)), value, ts);
                default -> new ProducerRecord(TOPIC, null, null, value, ts);
            };
            records.add(r);
        }
        return records;
    }

    private static List<RecordMetadata> produce(NodeTestCluster cluster, List<ProducerRecord> records)
            throws Exception {
        try (TidelineProducer producer = new TidelineProducer(E2e.clientConfig(cluster, Map.of(
                "acks", "all",
                "linger.ms", 5,
                // Small batches: many Produce requests, several in a row per partition.
                "batch.size", 1024,
                "delivery.timeout.ms", 30_000)))) {
            List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
            for (ProducerRecord r : records) {
                futures.add(producer.send(r));
            }
            producer.flush();
            List<RecordMetadata> acked = new ArrayList<>();
            for (CompletableFuture<RecordMetadata> f : futures) {
                acked.add(f.get(1, TimeUnit.SECONDS));
            }
            return acked;
        }
    }

    /**
     * Checks where each record went and returns, per partition, the records in offset order. Offsets of
     * one partition follow the send order without gaps (one batch in flight per partition, nothing
     * retried on a healthy cluster).
     */
    private static Map<Integer, List<Expected>> checkPlacement(List<ProducerRecord> sent, List<RecordMetadata> acked) {
        Map<Integer, List<Expected>> byPartition = new HashMap<>();
        Map<String, Integer> partitionOfKey = new HashMap<>();
        for (int i = 0; i < sent.size(); i++) {
            ProducerRecord r = sent.get(i);
            RecordMetadata m = acked.get(i);
            String what = "record " + i + " " + r;
            assertEquals(TOPIC, m.topic(), what);
            assertEquals(r.timestamp().longValue(), m.timestamp(), what);
            if (r.partition() != null) {
                assertEquals(r.partition().intValue(), m.partition(), what);
            } else if (r.key() != null) {
                assertEquals(Murmur2.partition(r.key(), PARTITIONS), m.partition(), what);
                assertEquals(partitionOfKey.computeIfAbsent(string(r.key()), k -> m.partition()), m.partition(), what);
            }
            List<Expected> list = byPartition.computeIfAbsent(m.partition(), p -> new ArrayList<>());
            assertEquals(list.size(), m.offset(), "offset of " + what);
            list.add(new Expected(r, m.offset()));
        }
        assertEquals(PARTITIONS, byPartition.size(), "every partition got records");
        return byPartition;
    }
}
