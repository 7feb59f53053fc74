package io.tideline.replication.cluster;

import static io.tideline.replication.cluster.ReplicaAssertions.assertReplicasIdentical;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerFetch;
import io.tideline.replication.leader.FollowerState;
import io.tideline.replication.server.LeaderAndIsr;
import io.tideline.replication.server.PartitionSettings;
import io.tideline.replication.server.ProduceResult;
import io.tideline.store.checkpoint.EpochEntry;
import io.tideline.store.log.Log;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leader changes with a divergent tail (docs/behaviours.md B40, B41): the old leader
 * wrote records (acks=1) no follower fetched; after a clean election it truncates them using the diverging
 * epoch from the new leader, nothing at or below the old high watermark is lost, and every replica ends
 * byte-identical, leader-epoch-checkpoint included. Time is mocked: the ISR never shrinks unless a test
 * says so, and parked fetches expire only when a test advances the clock.
 */
class LeaderChangeDivergenceTest {
    private static final TopicPartition TP = new TopicPartition("orders", 0);
    private static final int FETCH_WAIT_MS = 500;
    private static final long PRODUCE_TIMEOUT_MS = 60_000;

    @TempDir
    Path dir;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private ReplicationTestCluster cluster;

    @BeforeEach
    void startCluster() throws Exception {
        cluster = new ReplicationTestCluster(3, dir, time, scheduler, Map.of(),
                Map.of("replica.fetch.wait.max.ms", FETCH_WAIT_MS, "replica.fetch.backoff.ms", 20));
    }

    @AfterEach
    void stopCluster() throws Exception {
        cluster.close();
        assertEquals(List.of(), scheduler.failures());
    }

    @Test
    void oldLeaderTruncatesItsDivergentTailAndAllReplicasEndByteIdentical() throws Exception {
        cluster.createPartition(TP, List.of(1, 2, 3), PartitionSettings.defaults().withMinInsyncReplicas(2));
        produceCommitted("committed-", 10);
        awaitAll(b -> b.log(TP).highWatermark() == 10 && b.log(TP).logEndOffset() == 10);

        // Broker 3 takes part of the soon-divergent tail, broker 2 none of it.
        isolateFromLeader(2, 1);
        produceAcks1("divergent-", 10, 2);
        await(() -> log(3).logEndOffset() == 12);
        isolateFromLeader(3, 1);
        produceAcks1("divergent-", 12, 3);
        assertEquals(15, log(1).logEndOffset());
        assertEquals(10, log(1).highWatermark(), "broker 2 in the ISR has only 10 records");

        // Broker 1 does not hear of the election yet: it still believes it leads at epoch 0.
        cluster.stopPublishingTo(1);
        LeaderAndIsr elected = cluster.controller.electLeader(TP, 2);
        assertEquals(1, elected.leaderEpoch());
        cluster.broker(3).healLinkTo(1);
        await(() -> log(3).logEndOffset() == 10);

        CompletableFuture<Map<TopicPartition, ProduceResult>> acksAll = produceBatch("new-", 10, 5, -1);
        await(() -> log(3).logEndOffset() == 15);
        assertFalse(acksAll.isDone(), "broker 1 is in the ISR and has not caught up into epoch 1");
        assertEquals(10, log(2).highWatermark());

        cluster.broker(2).healLinkTo(1);
        cluster.resumePublishingTo(1, TP);
        ProduceResult result = acksAll.get(10, TimeUnit.SECONDS).get(TP);
        assertEquals(Errors.NONE, result.error(), result.message());
        assertEquals(10, result.baseOffset());
        awaitAll(b -> b.log(TP).highWatermark() == 15 && b.log(TP).logEndOffset() == 15);

        assertReplicasIdentical(cluster, TP, List.of(new EpochEntry(0, 0), new EpochEntry(1, 10)));
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            expected.add("committed-" + i);
        }
        for (int i = 10; i < 15; i++) {
            expected.add("new-" + i);
        }
        assertEquals(expected, LogContents.values(log(1)), "the old high watermark's records stay, the tail is gone");
        assertEquals(List.of(1, 2, 3), cluster.controller.state(TP).isr());
    }

    @Test
    void fencedOldLeaderTruncatesAndRejoinsTheIsrOfTheNewEpoch() throws Exception {
        cluster.createPartition(TP, List.of(1, 2, 3), PartitionSettings.defaults().withMinInsyncReplicas(2));
        produceCommitted("committed-", 6);
        awaitAll(b -> b.log(TP).highWatermark() == 6 && b.log(TP).logEndOffset() == 6);
        isolateFromLeader(2, 1);
        isolateFromLeader(3, 1);
        produceAcks1("divergent-", 6, 4);

        // The controller fences broker 1 (its session expired): leadership moves to 2, ISR [2, 3].
        cluster.stopPublishingTo(1);
        LeaderAndIsr fenced = cluster.controller.fence(TP, 1);
        assertEquals(2, fenced.leaderId());
        assertEquals(List.of(2, 3), fenced.isr());
        // acks=all completes with the two remaining in-sync replicas.
        ProduceResult result = produceBatch("new-", 6, 3, -1).get(10, TimeUnit.SECONDS).get(TP);
        assertEquals(Errors.NONE, result.error(), result.message());
        assertEquals(6, result.baseOffset());
        // Leader 2 has a whole batch at epoch 1 that broker 1 does not; broker 1 has 4 records at epoch 0.
        assertEquals(10, log(1).logEndOffset());
        assertEquals(9, log(2).logEndOffset());

        cluster.broker(2).healLinkTo(1);
        cluster.broker(3).healLinkTo(1);
        cluster.resumePublishingTo(1, TP);
        awaitAll(b -> b.log(TP).logEndOffset() == 9 && b.log(TP).highWatermark() == 9);
        await(() -> cluster.controller.state(TP).isr().contains(1));

        assertReplicasIdentical(cluster, TP, List.of(new EpochEntry(0, 0), new EpochEntry(1, 6)));
        assertTrue(LogContents.values(log(1)).stream().noneMatch(v -> v.startsWith("divergent-")));
        assertEquals(9, LogContents.values(log(1)).size());
    }

    /**
     * A replica whose log has records without leader epochs (written before epochs, so its fetches carry
     * no last fetched epoch) and more of them than the leader: the leader answers OFFSET_OUT_OF_RANGE with
     * its bounds and the follower truncates to the leader's log end (docs/behaviours.md B41).
     */
    @Test
    void followerAheadOfTheLeadersLogEndTruncatesToIt() throws Exception {
        MemoryRecords shared = epochlessBatch(0, "old-", 10);
        Log leaderLog = cluster.broker(1).logManager.getOrCreateLog(TP, Map.of());
        leaderLog.appendAsFollower(shared);
        Log aheadLog = cluster.broker(3).logManager.getOrCreateLog(TP, Map.of());
        aheadLog.appendAsFollower(shared);
        aheadLog.appendAsFollower(epochlessBatch(10, "unreplicated-", 5));
        assertEquals(15, aheadLog.logEndOffset());
        assertTrue(aheadLog.latestEpoch().isEmpty());

        cluster.createPartition(TP, List.of(1, 2, 3), PartitionSettings.defaults().withMinInsyncReplicas(3));
        await(() -> log(3).logEndOffset() == 10 && log(2).logEndOffset() == 10);
        assertTrue(cluster.broker(1).replicaManager.partition(TP).orElseThrow().offsetOutOfRangeAnswers() >= 1);

        ProduceResult result = produceBatch("new-", 10, 5, -1).get(10, TimeUnit.SECONDS).get(TP);
        assertEquals(Errors.NONE, result.error(), result.message());
        awaitAll(b -> b.log(TP).logEndOffset() == 15 && b.log(TP).highWatermark() == 15);
        assertReplicasIdentical(cluster, TP, List.of(new EpochEntry(0, 10)));
        assertTrue(LogContents.values(log(3)).stream().noneMatch(v -> v.startsWith("unreplicated-")));
    }

    @Test
    void fetchesWithAnOldOrUnknownLeaderEpochAreRefusedAtOnceAndMoveNothing() throws Exception {
        cluster.createPartition(TP, List.of(1, 2, 3), PartitionSettings.defaults());
        produceCommitted("committed-", 4);
        awaitAll(b -> b.log(TP).highWatermark() == 4 && b.log(TP).logEndOffset() == 4);
        cluster.controller.electLeader(TP, 2);
        await(() -> cluster.broker(2).replicaManager.partition(TP).orElseThrow().isLeader()
                && followerOnLeader(2, 3).logEndOffset() == 4);
        isolateFromLeader(3, 2);

        // min.bytes and wait as large as they go: a refused partition must still answer at once.
        Map<TopicPartition, FetchResponseData> fenced = fetchDirect(2, 3, 0);
        assertEquals(Errors.FENCED_LEADER_EPOCH, fenced.get(TP).error());
        assertEquals(0, fenced.get(TP).records().sizeInBytes());
        Map<TopicPartition, FetchResponseData> unknown = fetchDirect(2, 3, 2);
        assertEquals(Errors.UNKNOWN_LEADER_EPOCH, unknown.get(TP).error());
        assertEquals(0, unknown.get(TP).records().sizeInBytes());
        Map<TopicPartition, FetchResponseData> notLeader = fetchDirect(1, 3, 1);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, notLeader.get(TP).error());
        // The refused fetches asked for offset 0: the leader's record of follower 3 stays at 4.
        assertEquals(4, followerOnLeader(2, 3).logEndOffset());
        assertEquals(4, log(2).highWatermark());
    }

    // ---------------------------------------------------------------- helpers

    private Map<TopicPartition, FetchResponseData> fetchDirect(int brokerId, int replicaId, int currentLeaderEpoch)
            throws Exception {
        FollowerFetch fetch = new FollowerFetch(TP, currentLeaderEpoch, 0, -1, 0, 0, 1024 * 1024);
        CompletableFuture<Map<TopicPartition, FetchResponseData>> answer = cluster.broker(brokerId).replicaManager
                .fetchForReplica(replicaId, List.of(fetch), Integer.MAX_VALUE, 1024 * 1024, Integer.MAX_VALUE);
        assertTrue(answer.isDone(), "a fenced fetch is answered without waiting");
        return answer.get();
    }

    private FollowerState followerOnLeader(int leaderId, int replicaId) {
        return cluster.broker(leaderId).replicaManager.partition(TP).orElseThrow()
                .withLeaderState(s -> s.follower(replicaId).orElseThrow()).orElseThrow();
    }

    /**
     * Cuts {@code follower}'s link to {@code leader} and waits until no fetch it sent before the cut is
     * still parked at the leader (one would otherwise be answered with the next records): the mock clock
     * moves past replica.fetch.wait.max.ms until the follower's next fetch has been refused.
     */
    private void isolateFromLeader(int follower, int leader) {
        TestBroker broker = cluster.broker(follower);
        long refusedBefore = broker.refusedFetches(leader);
        broker.cutLinkTo(leader);
        await(() -> {
            time.advance(FETCH_WAIT_MS + 1);
            return broker.refusedFetches(leader) > refusedBefore;
        });
    }

    private void produceCommitted(String prefix, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            ProduceResult r = cluster.produce(TP, -1, PRODUCE_TIMEOUT_MS, prefix + i).get(10, TimeUnit.SECONDS).get(TP);
            assertEquals(Errors.NONE, r.error(), r.message());
            assertEquals(i, r.baseOffset());
        }
    }

    private void produceAcks1(String prefix, int firstOffset, int count) throws Exception {
        for (int i = firstOffset; i < firstOffset + count; i++) {
            ProduceResult r = cluster.produce(TP, 1, PRODUCE_TIMEOUT_MS, prefix + i).get(10, TimeUnit.SECONDS).get(TP);
            assertEquals(Errors.NONE, r.error(), r.message());
            assertEquals(i, r.baseOffset());
        }
    }

    /** One batch of {@code count} records to the current leader; values are prefix + offset. */
    private CompletableFuture<Map<TopicPartition, ProduceResult>> produceBatch(String prefix, int firstOffset, int count,
                                                                              int acks) {
        RecordBatchBuilder builder = new RecordBatchBuilder(0L);
        for (int i = firstOffset; i < firstOffset + count; i++) {
            builder.append(time.milliseconds(), "k", prefix + i);
        }
        return cluster.leader(TP).replicaManager.appendRecords(Map.of(TP, MemoryRecords.of(builder.build())), acks,
                PRODUCE_TIMEOUT_MS);
    }

    private MemoryRecords epochlessBatch(long baseOffset, String prefix, int count) {
        RecordBatchBuilder builder = new RecordBatchBuilder(baseOffset);
        for (int i = 0; i < count; i++) {
            builder.append(time.milliseconds(), "k", prefix + (baseOffset + i));
        }
        return MemoryRecords.of(builder.build());
    }

    private Log log(int brokerId) {
        return cluster.broker(brokerId).log(TP);
    }

    private void awaitAll(java.util.function.Predicate<TestBroker> condition) {
        await(() -> cluster.brokers().stream().allMatch(condition));
    }

    private static void await(BooleanSupplier condition) {
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
                .until(condition::getAsBoolean);
    }
}
