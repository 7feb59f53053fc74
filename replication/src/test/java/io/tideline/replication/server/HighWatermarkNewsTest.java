package io.tideline.replication.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerFetch;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.MemoryRecords;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower's fetch that reports its new log end moves the high watermark, and the follower learns the new
 * high watermark from the answer to its next fetch: with the next records when an append comes soon (one
 * fetch per append, as in Kafka, instead of an extra empty round trip each time), or alone once that fetch
 * has been parked for the high watermark news delay. The mock clock never moves here, so no answer is a
 * long-poll expiry (replica.fetch.wait.max.ms); the delay runs on the real clock.
 */
class HighWatermarkNewsTest {
    private static final int LEADER = 1;
    private static final int FOLLOWER = 2;
    private static final TopicPartition TP = new TopicPartition("orders", 0);
    private static final int WAIT_MAX_MS = 500;

    @TempDir
    Path dir;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private LogManager logManager;
    private ReplicaManager manager;
    private long followerEnd;
    private long followerHighWatermark;

    @AfterEach
    void close() {
        if (manager != null) {
            manager.close();
        }
        if (logManager != null) {
            logManager.close();
        }
        assertEquals(List.of(), scheduler.failures());
    }

    @Test
    void theNextAppendCarriesTheHighWatermarkTheFollowersReportMoved() throws Exception {
        start(TimeUnit.HOURS.toMillis(1)); // no answer for the news alone during this test

        CompletableFuture<Map<TopicPartition, FetchResponseData>> parked = fetch();
        assertFalse(parked.isDone(), "nothing to fetch yet");
        for (int round = 1; round <= 20; round++) {
            CompletableFuture<Map<TopicPartition, ProduceResult>> produced = manager.appendRecords(Map.of(TP, records(3)), -1, 30_000);
            assertTrue(parked.isDone(), "round " + round + ": the append answers the parked fetch");
            FetchResponseData carried = learn(parked);
            assertEquals(3, TestBatches.countRecords(carried.records()), "round " + round);
            assertEquals(3L * (round - 1), carried.leaderHighWatermark(),
                    "round " + round + ": the records came with the high watermark the previous round's report moved");
            assertFalse(produced.isDone(), "acks=all waits for the follower's report");

            parked = fetch();
            assertTrue(produced.isDone(), "round " + round + ": the report moved the high watermark");
            assertEquals(Errors.NONE, produced.join().get(TP).error());
            assertEquals(3L * round, manager.log(TP).orElseThrow().highWatermark());
            assertFalse(parked.isDone(), "round " + round + ": the report parks, its only news a higher high watermark");
            assertEquals(1, manager.pendingHighWatermarkChecks(),
                    "round " + round + ": one check armed, for the fetch parked now; the answered ones cancelled theirs");
        }
    }

    @Test
    void withoutAnAppendTheParkedFetchIsAnsweredWithTheHighWatermarkAfterTheDelay() throws Exception {
        long delayMs = 200;
        start(delayMs);
        CompletableFuture<Map<TopicPartition, FetchResponseData>> parked = fetch();
        manager.appendRecords(Map.of(TP, records(4)), -1, 30_000);
        learn(parked);

        long reportedAt = System.nanoTime();
        CompletableFuture<Map<TopicPartition, FetchResponseData>> report = fetch();
        assertEquals(4, manager.log(TP).orElseThrow().highWatermark());
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(report::isDone);
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - reportedAt);
        assertTrue(waitedMs >= delayMs, "answered after " + waitedMs + " ms, before the " + delayMs + " ms delay");
        FetchResponseData answer = learn(report);
        assertEquals(0, answer.records().sizeInBytes(), "no records, only the news");
        assertEquals(4, answer.leaderHighWatermark());
        assertEquals(4, followerHighWatermark);

        CompletableFuture<Map<TopicPartition, FetchResponseData>> next = fetch();
        assertFalse(next.isDone(), "nothing new: the fetch long-polls");
        time.advance(WAIT_MAX_MS);
        assertTrue(next.isDone(), "only replica.fetch.wait.max.ms answers it now");
    }

    @Test
    void aHigherLogStartOffsetIsAnsweredAtOnce() throws Exception {
        start(TimeUnit.HOURS.toMillis(1));
        CompletableFuture<Map<TopicPartition, FetchResponseData>> parked = fetch();
        manager.appendRecords(Map.of(TP, records(6)), -1, 30_000);
        learn(parked);
        parked = fetch();
        assertFalse(parked.isDone());

        manager.deleteRecords(Map.of(TP, 4L), 30_000);
        assertTrue(parked.isDone(), "DeleteRecords waits for the follower's start offset: that news does not wait");
        assertEquals(4, learn(parked).leaderLogStartOffset());
    }

    private void start(long highWatermarkNewsDelayMs) throws Exception {
        Map<String, Object> store = new HashMap<>();
        store.put("log.dirs", dir.toString());
        store.put("log.retention.check.interval.ms", Long.MAX_VALUE / 4);
        MetricRegistry metrics = new MetricRegistry();
        logManager = new LogManager(StoreConfig.fromMap(store), "hw-news-test", LEADER, time, scheduler, metrics,
                new Random(1));
        logManager.startup();
        manager = new ReplicaManager(LEADER, ReplicationConfig.fromMap(Map.of("replica.lag.time.max.ms", 3_600_000)),
                logManager, time, scheduler, (tp, topicId, epoch, proposal) ->
                        CompletableFuture.completedFuture(IsrChangeResult.refused(Errors.REQUEST_TIMED_OUT)),
                (tp, reason) -> { }, id -> Optional.empty(), metrics, highWatermarkNewsDelayMs);
        manager.applyPartitionState(new LeaderAndIsr(TP, "id-orders", LEADER, 0, 0, List.of(LEADER, FOLLOWER),
                List.of(LEADER, FOLLOWER)), PartitionSettings.defaults());
    }

    /** The follower's fetch at its log end, reporting the high watermark it knows, as its fetcher sends it. */
    private CompletableFuture<Map<TopicPartition, FetchResponseData>> fetch() {
        long logStart = manager.log(TP).orElseThrow().logStartOffset();
        FollowerFetch f = new FollowerFetch(TP, 0, followerEnd, followerEnd == 0 ? -1 : 0, logStart,
                followerHighWatermark, 1 << 20);
        return manager.fetchForReplica(FOLLOWER, List.of(f), 1, 10 << 20, WAIT_MAX_MS);
    }

    private FetchResponseData learn(CompletableFuture<Map<TopicPartition, FetchResponseData>> answered) {
        FetchResponseData data = answered.join().get(TP);
        assertEquals(Errors.NONE, data.error());
        followerEnd += TestBatches.countRecords(data.records());
        followerHighWatermark = Math.min(followerEnd, data.leaderHighWatermark());
        return data;
    }

    private MemoryRecords records(int count) {
        return TestBatches.of(count, time.milliseconds());
    }
}
