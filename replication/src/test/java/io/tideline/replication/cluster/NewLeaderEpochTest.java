package io.tideline.replication.cluster;

import static io.tideline.replication.cluster.ReplicaAssertions.assertReplicasIdentical;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.replication.follower.DivergingEpoch;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerFetch;
import io.tideline.replication.server.PartitionSettings;
import io.tideline.replication.server.ProduceResult;
import io.tideline.store.checkpoint.EpochEntry;
import io.tideline.store.log.Log;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 8 of docs/testing.md, "Scenarios",
 * at the lowest level that shows it: a new leader's epoch enters its epoch cache at its
 * first append, not at its election (Kafka enters it at the election). The leader changes twice with no append
 * in between, then a follower whose divergent tail is of an epoch the last leader never wrote (KIP-279's case,
 * the one Kafka's election-time entry exists for) fetches from it, and must truncate exactly to where its log
 * and the leader's part: not keep records of that epoch at offsets the leader holds other records at, not cut
 * into what both have. docs/replication.md "A new leader's epoch" says why no entry at the election is needed.
 *
 * <p>Mock clock: the ISR never shrinks, so every election below is clean (the new leader is in the ISR).
 */
class NewLeaderEpochTest {
    private static final TopicPartition TP = new TopicPartition("orders", 0);
    private static final int FETCH_WAIT_MS = 500;
    private static final long PRODUCE_TIMEOUT_MS = 60_000;
    /** Committed on all three at epoch 0. */
    private static final int COMMITTED = 5;
    /** Written by leader 1 at epoch 0 after the commit, fetched by 3 only. */
    private static final int TAIL = 6;
    /** Written by leader 2 at epoch 1, fetched by nobody: fewer than TAIL, so its offsets are inside the tail's. */
    private static final int DIVERGENT = 4;

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
    void followerWithATailOfAnEpochTheNewLeaderNeverWroteTruncatesWhereTheLogsPart() throws Exception {
        leaderTwoWritesADivergentTailThenLeadershipMovesTwiceWithoutAnAppend();

        // Leader 1 leads at epoch 3 and has written nothing in it: its cache ends at epoch 0.
        assertEquals(3, cluster.controller.state(TP).leaderEpoch());
        assertEquals(List.of(new EpochEntry(0, 0)), log(1).leaderEpochEntries());
        assertEquals(List.of(new EpochEntry(0, 0), new EpochEntry(1, COMMITTED)), log(2).leaderEpochEntries());

        int fetchedBefore = cluster.broker(2).sentFetches(1, TP).size();
        cluster.broker(2).healLinkTo(1);
        long end = COMMITTED + TAIL;
        awaitAll(b -> b.log(TP).logEndOffset() == end && b.log(TP).highWatermark() == end);

        // Broker 2's fetches to 1 since the heal: first from its divergent end under epoch 1, then from the
        // truncation point under epoch 0, and never from below it (that would cut into records both have).
        List<FollowerFetch> all = cluster.broker(2).sentFetches(1, TP);
        List<FollowerFetch> fetches = all.subList(fetchedBefore, all.size());
        assertEquals(COMMITTED + DIVERGENT, fetches.get(0).logEndOffset(), fetches.toString());
        assertEquals(1, fetches.get(0).lastFetchedEpoch(), fetches.toString());
        FollowerFetch afterTruncation = fetches.stream().filter(f -> f.lastFetchedEpoch() == 0).findFirst().orElseThrow(
                () -> new AssertionError("no fetch after the truncation: " + fetches));
        assertEquals(COMMITTED, afterTruncation.logEndOffset(), fetches.toString());
        assertTrue(fetches.stream().allMatch(f -> f.logEndOffset() >= COMMITTED), fetches.toString());

        ProduceResult result = produce("new-", -1);
        assertEquals(Errors.NONE, result.error(), result.message());
        assertEquals(end, result.baseOffset());
        awaitAll(b -> b.log(TP).logEndOffset() == end + 1 && b.log(TP).highWatermark() == end + 1);
        assertReplicasIdentical(cluster, TP, List.of(new EpochEntry(0, 0), new EpochEntry(3, end)));
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < COMMITTED; i++) {
            expected.add("committed-" + i);
        }
        for (int i = COMMITTED; i < end; i++) {
            expected.add("tail-" + i);
        }
        expected.add("new-" + end);
        assertEquals(expected, LogContents.values(log(2)), "broker 2 kept the commit, lost its epoch-1 tail");
    }

    /**
     * The divergence answer itself: asked where epoch 1 ends, the epoch-3 leader that has written nothing in
     * epoch 3 names epoch 0 ending at its log end, as it would with Kafka's entry (3, log end) in its cache, and
     * answers without records; a follower at its end under epoch 0 gets no divergence.
     */
    @Test
    void newLeaderThatHasNotAppendedNamesItsLastWrittenEpochEndingAtItsLogEnd() throws Exception {
        leaderTwoWritesADivergentTailThenLeadershipMovesTwiceWithoutAnAppend();
        long end = COMMITTED + TAIL;

        FetchResponseData diverging = fetchFromLeader(1, 2,
                new FollowerFetch(TP, 3, COMMITTED + DIVERGENT, 1, 0, COMMITTED, 1024 * 1024));
        assertEquals(Errors.NONE, diverging.error());
        assertEquals(Optional.of(new DivergingEpoch(0, end)), diverging.divergingEpoch());
        assertEquals(0, diverging.records().sizeInBytes());

        FetchResponseData inStep = fetchFromLeader(1, 3, new FollowerFetch(TP, 3, end, 0, 0, COMMITTED, 1024 * 1024));
        assertEquals(Errors.NONE, inStep.error());
        assertEquals(Optional.empty(), inStep.divergingEpoch());
    }

    /**
     * Epoch 0 (leader 1): 5 records committed everywhere, then 6 more fetched by 3 only (2 is cut). Epoch 1
     * (leader 2, which has 5): 4 records nobody fetches (1 and 3 are cut from 2). Epoch 2 (leader 3, which has
     * 11 of epoch 0) and epoch 3 (leader 1, 11 of epoch 0): no append. Broker 2 stays cut from 3 and 1.
     */
    private void leaderTwoWritesADivergentTailThenLeadershipMovesTwiceWithoutAnAppend() throws Exception {
        cluster.createPartition(TP, List.of(1, 2, 3), PartitionSettings.defaults().withMinInsyncReplicas(2));
        for (int i = 0; i < COMMITTED; i++) {
            ProduceResult r = produce("committed-", -1);
            assertEquals(Errors.NONE, r.error(), r.message());
        }
        awaitAll(b -> b.log(TP).highWatermark() == COMMITTED && b.log(TP).logEndOffset() == COMMITTED);

        isolateFromLeader(2, 1);
        for (int i = 0; i < TAIL; i++) {
            assertEquals(Errors.NONE, produce("tail-", 1).error());
        }
        await(() -> log(3).logEndOffset() == COMMITTED + TAIL);
        assertEquals(COMMITTED, log(1).highWatermark(), "broker 2, in the ISR, does not have the tail");

        // Nobody fetches from 2 while it leads: 1 and 3 keep the tail it does not have.
        cluster.broker(1).cutLinkTo(2);
        cluster.broker(3).cutLinkTo(2);
        assertEquals(1, cluster.controller.electLeader(TP, 2).leaderEpoch());
        await(() -> cluster.broker(2).replicaManager.partition(TP).orElseThrow().isLeader());
        for (int i = 0; i < DIVERGENT; i++) {
            ProduceResult r = produce("divergent-", 1);
            assertEquals(Errors.NONE, r.error(), r.message());
            assertEquals(COMMITTED + i, r.baseOffset());
        }

        // Two leader changes, no append in either epoch; 2 fetches from neither new leader until the test says so.
        cluster.broker(2).cutLinkTo(3);
        assertEquals(2, cluster.controller.electLeader(TP, 3).leaderEpoch());
        await(() -> cluster.broker(3).replicaManager.partition(TP).orElseThrow().isLeader());
        assertEquals(3, cluster.controller.electLeader(TP, 1).leaderEpoch());
        await(() -> cluster.broker(1).replicaManager.partition(TP).orElseThrow().isLeader());
        assertEquals(COMMITTED + TAIL, log(1).logEndOffset());
        assertEquals(COMMITTED + DIVERGENT, log(2).logEndOffset());
    }

    // ---------------------------------------------------------------- helpers

    private ProduceResult produce(String prefix, int acks) throws Exception {
        long offset = cluster.leader(TP).log(TP).logEndOffset();
        return cluster.produce(TP, acks, PRODUCE_TIMEOUT_MS, prefix + offset).get(10, TimeUnit.SECONDS).get(TP);
    }

    private FetchResponseData fetchFromLeader(int leaderId, int replicaId, FollowerFetch fetch) throws Exception {
        CompletableFuture<Map<TopicPartition, FetchResponseData>> answer = cluster.broker(leaderId).replicaManager
                .fetchForReplica(replicaId, List.of(fetch), 1, 1024 * 1024, 0);
        return answer.get(10, TimeUnit.SECONDS).get(TP);
    }

    /**
     * Cuts {@code follower}'s link to {@code leader} and waits until no fetch it sent before the cut is still
     * parked at the leader: the mock clock moves past replica.fetch.wait.max.ms until a fetch was refused.
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
