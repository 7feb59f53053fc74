package io.tideline.replication.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerFetch;
import io.tideline.replication.metrics.ReplicationMetrics;
import io.tideline.replication.purgatory.DelayedOperations;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.MemoryRecords;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The purgatories hold what waits, never what went through. A follower's parked fetch watches every
 * partition the leader leads for it and completes through the busy one; left in the idle partitions'
 * watcher sets (nobody checks those keys) with the records it read, it would run a leader under load out
 * of heap within a minute. Every kind of delayed operation is driven here through a
 * broker's {@link ReplicaManager} on a mock clock, and the watcher sets are checked after each round.
 */
class PurgatoryBoundTest {
    private static final int LEADER = 1;
    private static final int FOLLOWER = 2;
    private static final int IDLE_PARTITIONS = 5;
    private static final TopicPartition BUSY = new TopicPartition("hot", 0);
    /**
     * A parked fetch whose only news is a higher high watermark is not answered for that alone during a test
     * (HighWatermarkNewsTest covers that), so that every answer here comes from the thread that appends and the
     * checks after an append see it at once.
     */
    private static final long NO_HIGH_WATERMARK_NEWS_ALONE = java.util.concurrent.TimeUnit.HOURS.toMillis(1);

    @TempDir
    Path dir;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final MetricRegistry metrics = new MetricRegistry();
    private final List<TopicPartition> partitions = new ArrayList<>();
    private final Map<TopicPartition, Long> followerEnd = new HashMap<>();
    private final Map<TopicPartition, Long> followerHighWatermark = new HashMap<>();
    private LogManager logManager;
    private ReplicaManager manager;

    @BeforeEach
    void leadOneBusyAndSeveralIdlePartitions() throws Exception {
        Map<String, Object> store = new HashMap<>();
        store.put("log.dirs", dir.toString());
        store.put("log.retention.check.interval.ms", Long.MAX_VALUE / 4);
        logManager = new LogManager(StoreConfig.fromMap(store), "purgatory-test", LEADER, time, scheduler, metrics,
                new Random(1));
        logManager.startup();
        // No ISR change is wanted here: the lag bound is far beyond the mock time the tests pass.
        manager = new ReplicaManager(LEADER, ReplicationConfig.fromMap(Map.of("replica.lag.time.max.ms", 3_600_000)),
                logManager, time, scheduler, (tp, topicId, epoch, proposal) ->
                        CompletableFuture.completedFuture(IsrChangeResult.refused(Errors.REQUEST_TIMED_OUT)),
                (tp, reason) -> { }, id -> Optional.empty(), metrics, NO_HIGH_WATERMARK_NEWS_ALONE);
        partitions.add(BUSY);
        IntStream.range(0, IDLE_PARTITIONS).forEach(i -> partitions.add(new TopicPartition("idle", i)));
        for (TopicPartition tp : partitions) {
            manager.applyPartitionState(new LeaderAndIsr(tp, "id-" + tp.topic(), LEADER, 0, 0, List.of(LEADER, FOLLOWER),
                    List.of(LEADER, FOLLOWER)), PartitionSettings.defaults());
            followerEnd.put(tp, 0L);
            followerHighWatermark.put(tp, 0L);
        }
    }

    @AfterEach
    void close() {
        manager.close();
        logManager.close();
        assertEquals(List.of(), scheduler.failures());
    }

    @Test
    void replicaFetchesOverBusyAndIdlePartitionsLeaveNoWatcherBehind() {
        DelayedOperations<TopicPartition> fetches = manager.purgatories().get("Fetch");
        for (int i = 0; i < 100_000; i++) {
            CompletableFuture<Map<TopicPartition, FetchResponseData>> parked = followerFetchesEverything();
            assertEquals(partitions.size(), fetches.watched(), "a parked fetch watches each of its partitions once");
            appendToBusy(1);
            assertTrue(parked.isDone(), "the append answers the parked fetch");
            learn(parked.join());
            assertEquals(0, fetches.watched(), "round " + i + ": the answered fetch left every watcher set");
            assertEquals(0, fetches.pending());
        }
        assertEquals(100_000, manager.log(BUSY).orElseThrow().logEndOffset());
        assertEquals(0, fetches.watchedKeys());
        assertEquals(List.of(), scheduler.pendingTaskNames().stream().filter(n -> n.contains("expiry")).toList(),
                "every timer was cancelled and removed");
        assertEquals(0, gauge(ReplicationMetrics.purgatoryMetric("PurgatorySize", "Fetch")));
    }

    @Test
    void expiredFetchesLeaveEveryWatcherSetToo() {
        DelayedOperations<TopicPartition> fetches = manager.purgatories().get("Fetch");
        for (int i = 0; i < 1_000; i++) {
            CompletableFuture<Map<TopicPartition, FetchResponseData>> parked = followerFetchesEverything();
            time.advance(500);
            assertTrue(parked.isDone());
            assertEquals(0, fetches.watched());
        }
        assertEquals(1_000, fetches.expirations());
    }

    @Test
    void consumerFetchesOverBusyAndIdlePartitionsLeaveNoWatcherBehind() {
        DelayedOperations<TopicPartition> fetches = manager.purgatories().get("Fetch");
        long next = 0;
        for (int i = 0; i < 20_000; i++) {
            List<ConsumerFetch> request = new ArrayList<>();
            for (TopicPartition tp : partitions) {
                request.add(new ConsumerFetch(tp, tp.equals(BUSY) ? next : 0, 1 << 20, -1));
            }
            CompletableFuture<Map<TopicPartition, ConsumerFetchResult>> parked =
                    manager.fetchForConsumer(request, 1, 1 << 20, 500);
            assertTrue(fetches.watched() <= 2 * partitions.size(), "the consumer's and at most one follower fetch");
            // A new record answers the follower's parked fetch; the follower then fetches up to it, which
            // moves the high watermark and answers the consumer.
            appendToBusy(1);
            followerFetchesEverything();
            assertTrue(parked.isDone(), "round " + i);
            next = parked.join().get(BUSY).highWatermark();
            assertEquals(partitions.size(), fetches.watched(), "round " + i + ": only the follower's new parked fetch");
        }
        assertEquals(20_000, next);
    }

    @Test
    void acksAllProducesOverSeveralPartitionsLeaveNoWatcherBehind() {
        DelayedOperations<TopicPartition> produces = manager.purgatories().get("Produce");
        TopicPartition idle = partitions.get(1);
        for (int i = 0; i < 20_000; i++) {
            CompletableFuture<Map<TopicPartition, ProduceResult>> produced = manager.appendRecords(
                    Map.of(BUSY, records(1), idle, records(1)), -1, 30_000);
            assertEquals(2, produces.watched());
            followerFetchesEverything();
            assertTrue(produced.isDone(), "round " + i);
            produced.join().values().forEach(r -> assertEquals(Errors.NONE, r.error()));
            assertEquals(0, produces.watched(), "round " + i);
            assertEquals(0, produces.pending());
        }
        assertEquals(0, gauge(ReplicationMetrics.purgatoryMetric("NumDelayedOperations", "Produce")));
    }

    @Test
    void deleteRecordsOverSeveralPartitionsLeaveNoWatcherBehind() {
        DelayedOperations<TopicPartition> deletes = manager.purgatories().get("DeleteRecords");
        TopicPartition idle = partitions.get(1);
        for (int i = 1; i <= 200; i++) {  // each DeleteRecords writes a checkpoint: keep the round count small
            manager.appendRecords(Map.of(BUSY, records(1), idle, records(1)), 1, 30_000);
            followerFetchesEverything();
            CompletableFuture<Map<TopicPartition, DeleteRecordsPartitionResult>> deleted =
                    manager.deleteRecords(Map.of(BUSY, -1L, idle, -1L), 30_000);
            assertEquals(2, deletes.watched());
            followerFetchesEverything();
            assertTrue(deleted.isDone(), "round " + i);
            assertEquals(0, deletes.watched(), "round " + i);
        }
    }

    /** The follower fetches every partition at its position, as its fetcher does; parks when nothing is new. */
    private CompletableFuture<Map<TopicPartition, FetchResponseData>> replicaFetch() {
        List<FollowerFetch> request = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            long end = followerEnd.get(tp);
            // The follower adopts the leader's log start offset from every answer (DeleteRecords).
            long lso = manager.log(tp).orElseThrow().logStartOffset();
            request.add(new FollowerFetch(tp, 0, end, end == 0 ? -1 : 0, lso, followerHighWatermark.get(tp), 1 << 20));
        }
        return manager.fetchForReplica(FOLLOWER, request, 1, 10 << 20, 500);
    }

    /** What a follower takes from an answer: the records (its new end) and the leader's high watermark. */
    private void learn(Map<TopicPartition, FetchResponseData> answer) {
        answer.forEach((tp, data) -> {
            assertEquals(Errors.NONE, data.error(), tp.toString());
            long end = followerEnd.get(tp) + TestBatches.countRecords(data.records());
            followerEnd.put(tp, end);
            followerHighWatermark.put(tp, Math.min(end, data.leaderHighWatermark()));
        });
    }

    /**
     * Fetches until the follower holds every record and knows the leader's high watermark, and returns
     * the fetch that then parks.
     */
    private CompletableFuture<Map<TopicPartition, FetchResponseData>> followerFetchesEverything() {
        for (int round = 0; round < 10; round++) {
            CompletableFuture<Map<TopicPartition, FetchResponseData>> answer = replicaFetch();
            if (!answer.isDone()) {
                return answer;
            }
            learn(answer.join());
        }
        throw new AssertionError("the follower's fetch never parked: " + followerEnd);
    }

    private void appendToBusy(int count) {
        manager.appendRecords(Map.of(BUSY, records(count)), 1, 30_000).join()
                .values().forEach(r -> assertEquals(Errors.NONE, r.error()));
    }

    private MemoryRecords records(int count) {
        return TestBatches.of(count, time.milliseconds());
    }

    private int gauge(String name) {
        Gauge<?> g = metrics.getGauges().get(name);
        return ((Number) g.getValue()).intValue();
    }
}
