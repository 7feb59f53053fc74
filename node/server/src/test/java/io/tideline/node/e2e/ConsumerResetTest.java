package io.tideline.node.e2e;

import static io.tideline.node.e2e.E2e.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.ConsumerMetrics;
import io.tideline.client.ConsumerRecord;
import io.tideline.client.DeleteRecordsResult;
import io.tideline.client.OffsetOutOfRangeException;
import io.tideline.client.ProducerRecord;
import io.tideline.client.RecordMetadata;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineConsumer;
import io.tideline.client.TidelineProducer;
import io.tideline.common.TopicPartition;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.store.log.Log;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * docs/behaviours.md B27 and B31, end to end: a consumer whose position fell below the log start offset,
 * once by DeleteRecords and once by retention of old segments, under each auto.offset.reset. earliest
 * moves to the new log start offset and reports exactly the offsets it skipped, latest moves to the high
 * watermark, none throws an OffsetOutOfRangeException with the requested offset and both bounds.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsumerResetTest {
    private static final int RECORDS = 30;
    /** Where the consumer stands when the records below the new log start offset go away. */
    private static final long POSITION = 5;
    private static final long DELETE_BEFORE = 20;

    private NodeTestCluster cluster;
    private TidelineAdmin admin;

    @BeforeAll
    void startCluster(@TempDir Path dir) throws Exception {
        // One node: these rules are the consumer's; replicated retention and DeleteRecords have
        // their own tests, and a single node keeps these six cases cheap.
        cluster = new NodeTestCluster(dir, 1, Map.of()).startAll();
        admin = new TidelineAdmin(E2e.clientConfig(cluster, Map.of()));
    }

    @AfterAll
    void stopCluster() {
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private record Skip(TopicPartition tp, long from, long to, long skipped) {
    }

    @ParameterizedTest(name = "auto.offset.reset={0} after {1}")
    @CsvSource({"earliest, delete-records", "latest, delete-records", "none, delete-records",
            "earliest, retention", "latest, retention", "none, retention"})
    void aPositionBelowTheLogStartOffsetIsHandledPerAutoOffsetReset(String reset, String cause) throws Exception {
        String topic = "reset-" + reset + "-" + cause;
        TopicPartition tp = new TopicPartition(topic, 0);
        boolean retention = cause.equals("retention");
        Map<String, String> configs = new HashMap<>();
        if (retention) {
            // Small segments so most records sit in closed segments, all older than retention.ms.
            configs.putAll(Map.of("segment.bytes", "400", "retention.ms", "60000"));
        }
        int leader = E2e.createTopic(cluster, admin, topic, 1, 1, configs).get(0).leader();
        long oldTimestamp = System.currentTimeMillis() - TimeUnit.HOURS.toMillis(1);
        produce(topic, RECORDS, oldTimestamp);
        Log leaderLog = cluster.node(leader).replicaManager().log(tp).orElseThrow();
        assertEquals(RECORDS, leaderLog.highWatermark());

        try (TidelineConsumer consumer = new TidelineConsumer(E2e.clientConfig(cluster, Map.of(
                "auto.offset.reset", reset,
                "fetch.max.wait.ms", 100,
                // One batch (one record, see produce) per fetch: the consumer reads slowly and is still behind.
                "max.partition.fetch.bytes", 1)))) {
            List<Skip> skips = new CopyOnWriteArrayList<>();
            consumer.setOffsetResetListener((p, from, to, skipped) -> skips.add(new Skip(p, from, to, skipped)));
            consumer.assign(List.of(tp));
            consumer.seek(tp, 0);
            List<ConsumerRecord> read = pollUntil(consumer, POSITION);
            assertEquals(POSITION, read.size());
            assertEquals(POSITION, consumer.position(tp));

            long logStart;
            if (retention) {
                assertTrue(cluster.node(leader).logManager().cleanupLogs() > 0, "the retention pass deleted segments");
                logStart = leaderLog.logStartOffset();
            } else {
                DeleteRecordsResult deleted = admin.deleteRecords(Map.of(tp, DELETE_BEFORE)).get(tp);
                assertTrue(deleted.isSuccess(), deleted.toString());
                assertEquals(DELETE_BEFORE, deleted.lowWatermark());
                logStart = DELETE_BEFORE;
            }
            assertEquals(logStart, leaderLog.logStartOffset());
            assertTrue(logStart > POSITION && logStart < RECORDS, "log start offset " + logStart);
            long highWatermark = leaderLog.highWatermark();
            assertEquals(RECORDS, highWatermark);
            long skippedBefore = skippedByReset(consumer);
            assertEquals(0, skippedBefore);
            // The consumer fetches ahead while the application works, as Kafka's does, so the record at its
            // position may have been fetched before the deletion. A consumer that comes back afterwards (a
            // restart resumes with seek) fetches anew: a seek drops what was fetched before it.
            consumer.seek(tp, POSITION);

            switch (reset) {
                case "earliest" -> {
                    List<ConsumerRecord> rest = pollUntil(consumer, RECORDS - logStart);
                    assertEquals(logStart, rest.get(0).offset(), "resumed at the log start offset");
                    assertEquals(RECORDS - 1, rest.get(rest.size() - 1).offset());
                    assertEquals(List.of(new Skip(tp, POSITION, logStart, logStart - POSITION)), skips);
                    assertEquals(logStart - POSITION, skippedByReset(consumer) - skippedBefore);
                    assertEquals(RECORDS, consumer.position(tp));
                }
                case "latest" -> {
                    List<ConsumerRecord> returned = new ArrayList<>();
                    Awaitility.await("the reset to the high watermark").atMost(E2e.WAIT).pollDelay(Duration.ZERO)
                            .until(() -> returned.addAll(consumer.poll(Duration.ofMillis(100))) || !skips.isEmpty());
                    assertEquals(List.of(), returned, "nothing below the high watermark is returned");
                    assertEquals(List.of(new Skip(tp, POSITION, highWatermark, highWatermark - POSITION)), skips);
                    assertEquals(highWatermark - POSITION, skippedByReset(consumer) - skippedBefore);
                    assertEquals(highWatermark, consumer.position(tp));
                    // It reads on from the high watermark: the next record produced is the next one returned.
                    produce(topic, 1, System.currentTimeMillis());
                    List<ConsumerRecord> next = pollUntil(consumer, 1);
                    assertEquals(highWatermark, next.get(0).offset());
                }
                case "none" -> {
                    for (int attempt = 0; attempt < 2; attempt++) {
                        OffsetOutOfRangeException e = assertThrows(OffsetOutOfRangeException.class,
                                () -> consumer.poll(Duration.ofSeconds(5)));
                        assertEquals(tp, e.partition());
                        assertEquals(POSITION, e.requestedOffset());
                        assertEquals(logStart, e.logStartOffset());
                        assertEquals(highWatermark, e.highWatermark());
                        assertTrue(e.getMessage().contains(tp.toString()) && e.getMessage().contains("" + POSITION)
                                && e.getMessage().contains("" + logStart), e.getMessage());
                        // The position stays, so the next poll throws again until the application seeks.
                        assertEquals(POSITION, consumer.position(tp));
                    }
                    assertEquals(List.of(), skips);
                    assertEquals(0, skippedByReset(consumer));
                    consumer.seek(tp, logStart);
                    assertEquals(logStart, pollUntil(consumer, 1).get(0).offset());
                }
                default -> throw new IllegalArgumentException(reset);
            }
        }
    }

    /** Sends {@code count} records one batch each (batch.size 0) with timestamps from {@code firstTimestamp}. */
    private void produce(String topic, int count, long firstTimestamp) throws Exception {
        try (TidelineProducer producer = new TidelineProducer(E2e.clientConfig(cluster, Map.of(
                "acks", "all", "linger.ms", 0, "batch.size", 0)))) {
            List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                futures.add(producer.send(new ProducerRecord(topic, 0, bytes("key-" + i), bytes("value-" + i),
                        firstTimestamp + i)));
            }
            producer.flush();
            for (CompletableFuture<RecordMetadata> f : futures) {
                f.get(1, TimeUnit.SECONDS);
            }
        }
    }

    private static List<ConsumerRecord> pollUntil(TidelineConsumer consumer, long count) {
        List<ConsumerRecord> out = new ArrayList<>();
        Awaitility.await(count + " records").atMost(E2e.WAIT).pollDelay(Duration.ZERO).until(() -> {
            out.addAll(consumer.poll(Duration.ofMillis(100)));
            return out.size() >= count;
        });
        assertEquals(count, out.size());
        return out;
    }

    private static long skippedByReset(TidelineConsumer consumer) {
        return consumer.metrics().counter(ConsumerMetrics.RECORDS_SKIPPED_BY_RESET).getCount();
    }
}
