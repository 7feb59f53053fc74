package io.tideline.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The consumer against fake brokers. The log of orders-0 holds offsets 0..9 in two batches ([0, 5) and
 * [5, 10)); the out-of-range tests move its log start offset to 6, into the second batch, as a
 * DeleteRecords(6) would (docs/behaviours.md B27: a consumer at 2 is below the log start offset).
 */
class TidelineConsumerTest {
    private static final Duration POLL = Duration.ofSeconds(5);
    private static final TopicPartition TP0 = new TopicPartition("orders", 0);

    private final FakeCluster cluster = new FakeCluster("consumer-test-" + System.nanoTime(), 2);
    private final List<TidelineConsumer> consumers = new ArrayList<>();
    private final List<long[]> skips = new ArrayList<>();

    @BeforeEach
    void setUp() {
        cluster.createTopic("orders", 2);
        cluster.append(TP0, "v0", "v1", "v2", "v3", "v4");
        cluster.append(TP0, "v5", "v6", "v7", "v8", "v9");
    }

    @AfterEach
    void tearDown() {
        consumers.forEach(TidelineConsumer::close);
        cluster.close();
    }

    private TidelineConsumer consumer(String reset, Object... keyValues) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", cluster.bootstrap());
        props.put("auto.offset.reset", reset);
        props.put("retry.backoff.ms", "10");
        props.put("fetch.max.wait.ms", "50");
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        TidelineConsumer consumer = new TidelineConsumer(props, Time.SYSTEM, cluster.channels());
        consumer.setOffsetResetListener((tp, from, to, skipped) -> skips.add(new long[] {tp.partition(), from, to,
                skipped}));
        consumers.add(consumer);
        return consumer;
    }

    private static List<Long> offsets(List<ConsumerRecord> records) {
        return records.stream().map(ConsumerRecord::offset).toList();
    }

    private static List<String> values(List<ConsumerRecord> records) {
        return records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
    }

    private static long skippedMetric(TidelineConsumer consumer) {
        return consumer.metrics().counter(ConsumerMetrics.RECORDS_SKIPPED_BY_RESET).getCount();
    }

    @Test
    void theNextFetchIsInFlightWhilePollHandsOutTheLastRecordsOfAFetch() {
        TidelineConsumer consumer = consumer("earliest", "max.poll.records", "10");
        consumer.assign(List.of(TP0));
        consumer.seek(TP0, 0);
        assertEquals(10, consumer.poll(POLL).size());
        // Before the application asks again, the fetch from offset 10 is already on its way.
        Awaitility.await().atMost(POLL).until(() -> cluster.fetchRequests.size() == 2);
        assertEquals(10, cluster.fetchRequests.get(1).request().getPartitions(0).getFetchOffset());

        cluster.append(TP0, "v10", "v11");
        List<ConsumerRecord> next = new ArrayList<>();
        Awaitility.await().atMost(POLL).until(() -> next.addAll(consumer.poll(Duration.ofMillis(100))) && next.size() >= 2);
        assertEquals(List.of(10L, 11L), offsets(next));
    }

    @Test
    void aSeekDropsWhatWasFetchedBeforeItEvenFromTheSameOffset() {
        java.util.concurrent.CompletableFuture<Void> second = new java.util.concurrent.CompletableFuture<>();
        cluster.fetchGate = n -> n == 1 ? second : java.util.concurrent.CompletableFuture.completedFuture(null);
        TidelineConsumer consumer = consumer("earliest", "max.poll.records", "10");
        consumer.assign(List.of(TP0));
        consumer.seek(TP0, 0);
        assertEquals(10, consumer.poll(POLL).size());
        Awaitility.await().atMost(POLL).until(() -> cluster.fetchRequests.size() == 2);
        // The fetch from 10 went out before the seek to 10 and is answered (with 10 and 11) after it.
        cluster.append(TP0, "v10", "v11");
        consumer.seek(TP0, 10);
        second.complete(null);
        assertEquals(List.of(10L, 11L), offsets(consumer.poll(POLL)));
        assertEquals(10, cluster.fetchRequests.get(2).request().getPartitions(0).getFetchOffset(),
                "the answer from before the seek was dropped and 10 fetched again");
    }

    @Test
    void earliestMovesBelowLogStartToTheLogStartOffsetAndReportsTheSkippedOffsets() {
        cluster.setLogStartOffset(TP0, 6);
        TidelineConsumer consumer = consumer("earliest");
        consumer.assign(List.of(TP0));
        consumer.seek(TP0, 2);

        List<ConsumerRecord> records = consumer.poll(POLL);

        assertEquals(List.of(6L, 7L, 8L, 9L), offsets(records), "offset 5 shares a batch with 6 and is dropped");
        assertEquals(1, skips.size());
        assertEquals(List.of(0L, 2L, 6L, 4L), List.of(skips.get(0)[0], skips.get(0)[1], skips.get(0)[2],
                skips.get(0)[3]));
        assertEquals(4, skippedMetric(consumer));
        assertEquals(1, consumer.metrics().counter(ConsumerMetrics.OFFSET_OUT_OF_RANGE_RESETS).getCount());
        assertEquals(10, consumer.position(TP0));
    }

    @Test
    void latestMovesToTheHighWatermarkAndReadsOnlyWhatComesAfter() {
        cluster.setLogStartOffset(TP0, 6);
        TidelineConsumer consumer = consumer("latest");
        consumer.assign(List.of(TP0));
        consumer.seek(TP0, 2);

        assertTrue(consumer.poll(Duration.ofMillis(200)).isEmpty());
        assertEquals(10, consumer.position(TP0));
        assertEquals(8, skippedMetric(consumer));
        assertEquals(List.of(2L, 10L, 8L), List.of(skips.get(0)[1], skips.get(0)[2], skips.get(0)[3]));

        cluster.append(TP0, "v10");
        assertEquals(List.of("v10"), values(consumer.poll(POLL)));
    }

    @Test
    void noneThrowsNamingThePartitionTheOffsetAndBothBoundsAndKeepsThePosition() {
        cluster.setLogStartOffset(TP0, 6);
        TidelineConsumer consumer = consumer("none");
        consumer.assign(List.of(TP0));
        consumer.seek(TP0, 2);

        OffsetOutOfRangeException e = assertThrows(OffsetOutOfRangeException.class, () -> consumer.poll(POLL));
        assertEquals(TP0, e.partition());
        assertEquals(2, e.requestedOffset());
        assertEquals(6, e.logStartOffset());
        assertEquals(10, e.highWatermark());
        assertEquals(Errors.OFFSET_OUT_OF_RANGE, e.error());
        assertTrue(e.getMessage().contains("orders-0") && e.getMessage().contains("[6, 10)"), e.getMessage());
        assertEquals(2, consumer.position(TP0));
        assertTrue(skips.isEmpty());
        assertEquals(0, skippedMetric(consumer));

        consumer.seek(TP0, 7);
        assertEquals(List.of(7L, 8L, 9L), offsets(consumer.poll(POLL)));
    }

    @Test
    void aPositionInsideABatchSkipsTheBatchsEarlierRecords() {
        TidelineConsumer consumer = consumer("none");
        consumer.assign(List.of(TP0));
        consumer.seek(TP0, 3);
        assertEquals(List.of(3L, 4L, 5L, 6L, 7L, 8L, 9L), offsets(consumer.poll(POLL)));
        assertTrue(skips.isEmpty());
    }

    @Test
    void withoutAPositionAutoOffsetResetPicksTheStart() {
        cluster.setLogStartOffset(TP0, 5);
        TidelineConsumer earliest = consumer("earliest");
        earliest.assign(List.of(TP0));
        assertEquals(5, earliest.position(TP0));
        assertEquals(List.of(5L, 6L, 7L, 8L, 9L), offsets(earliest.poll(POLL)));
        assertEquals(0, skippedMetric(earliest), "an initial position is not a skip");

        TidelineConsumer latest = consumer("latest");
        latest.assign(List.of(TP0));
        assertEquals(10, latest.position(TP0));

        TidelineConsumer none = consumer("none");
        none.assign(List.of(TP0));
        NoOffsetForPartitionException e = assertThrows(NoOffsetForPartitionException.class,
                () -> none.poll(Duration.ofMillis(100)));
        assertEquals(TP0, e.partition());
    }

    @Test
    void seekToBeginningAndEndUseTheCurrentBounds() {
        cluster.setLogStartOffset(TP0, 4);
        TidelineConsumer consumer = consumer("none");
        consumer.assign(List.of(TP0));
        consumer.seekToEnd(List.of(TP0));
        assertEquals(10, consumer.position(TP0));
        consumer.seekToBeginning(List.of(TP0));
        assertEquals(4, consumer.position(TP0));
        assertEquals(Map.of(TP0, 4L), consumer.beginningOffsets(List.of(TP0)));
        assertEquals(Map.of(TP0, 10L), consumer.endOffsets(List.of(TP0)));
    }

    @Test
    void maxPollRecordsSplitsTheRecordsOverPollsInOrder() {
        TidelineConsumer consumer = consumer("earliest", "max.poll.records", "4");
        consumer.assign(List.of(TP0));
        List<Long> all = new ArrayList<>();
        List<ConsumerRecord> first = consumer.poll(POLL);
        assertEquals(4, first.size());
        all.addAll(offsets(first));
        await().atMost(POLL).until(() -> {
            all.addAll(offsets(consumer.poll(Duration.ofMillis(100))));
            return all.size() >= 10;
        });
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), all);
    }

    @Test
    void notLeaderRefreshesMetadataAndFetchesFromTheNewLeader() {
        TidelineConsumer consumer = consumer("earliest");
        consumer.assign(List.of(TP0));
        assertEquals(10, consumer.poll(POLL).size());

        cluster.moveLeader(TP0, 2);
        cluster.append(TP0, "v10");
        assertEquals(List.of(10L), offsets(consumer.poll(POLL)));
        assertEquals(2, cluster.fetchRequests.get(cluster.fetchRequests.size() - 1).brokerId());
    }

    @Test
    void pollWithoutAssignmentIsRefused() {
        TidelineConsumer consumer = consumer("earliest");
        assertThrows(IllegalStateException.class, () -> consumer.poll(Duration.ZERO));
    }
}
