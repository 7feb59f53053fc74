package io.tideline.replication.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.follower.FollowerFetch;
import io.tideline.replication.leader.IsrProposal;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.manager.LogManager;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An ISR expansion whose answer does not come (replica.isr.change.timeout.ms passes, or the request fails on
 * the way) may still be committed by the controller later. The leader therefore keeps it pending, with the
 * added replica in the maximal ISR that bounds the high watermark, and sends it again, until the controller
 * answers or newer metadata says what happened (docs/replication.md "ISR changes in flight",
 * docs/behaviours.md B152). On a mock clock and a fake controller that answers when the test says.
 *
 * <p>The interleaving: leader 1, ISR [1, 2], replica 3 catches up at offset 10 and the leader proposes [1, 2, 3].
 * The answer is lost; the leader writes 10 more records that replica 2 gets and replica 3 does not. Then the
 * controller's commit of [1, 2, 3] arrives. The high watermark must not have passed 10, the end of replica 3,
 * now a committed ISR member that a leader election may pick.
 */
class IsrChangeInFlightTest {
    private static final int LEADER = 1;
    private static final TopicPartition TP = new TopicPartition("orders", 0);
    private static final long ISR_CHANGE_TIMEOUT_MS = 30_000;
    private static final List<Integer> REPLICAS = List.of(1, 2, 3);

    @TempDir
    Path dir;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final List<Sent> sent = new CopyOnWriteArrayList<>();
    private final Map<Integer, Long> followerEnd = new HashMap<>(Map.of(2, 0L, 3, 0L));
    private LogManager logManager;
    private ReplicaManager manager;

    private record Sent(IsrProposal proposal, int leaderEpoch, CompletableFuture<IsrChangeResult> answer) {
    }

    @BeforeEach
    void start() throws Exception {
        Map<String, Object> store = new HashMap<>();
        store.put("log.dirs", dir.toString());
        store.put("log.retention.check.interval.ms", Long.MAX_VALUE / 4);
        MetricRegistry metrics = new MetricRegistry();
        logManager = new LogManager(StoreConfig.fromMap(store), "isr-in-flight-test", LEADER, time, scheduler, metrics,
                new Random(1));
        logManager.startup();
        manager = new ReplicaManager(LEADER, ReplicationConfig.fromMap(Map.of("replica.lag.time.max.ms", 3_600_000,
                "replica.isr.change.timeout.ms", ISR_CHANGE_TIMEOUT_MS)), logManager, time, scheduler,
                (tp, topicId, epoch, proposal) -> {
                    CompletableFuture<IsrChangeResult> answer = new CompletableFuture<>();
                    sent.add(new Sent(proposal, epoch, answer));
                    return answer;
                },
                (tp, reason) -> { }, id -> Optional.empty(), metrics, 3_600_000);
        manager.applyPartitionState(new LeaderAndIsr(TP, "id-orders", LEADER, 0, 0, REPLICAS, List.of(1, 2)),
                PartitionSettings.defaults());
    }

    @AfterEach
    void close() {
        manager.close();
        logManager.close();
        assertEquals(List.of(), scheduler.failures());
    }

    /** Leader at 10 and HW 10; replica 3 caught up and the expansion to [1, 2, 3] sent, unanswered. */
    private Sent expansionInFlight() {
        manager.appendRecords(Map.of(TP, TestBatches.of(10, time.milliseconds())), 1, 30_000);
        fetchAt(2, 10);
        assertEquals(10, highWatermark());
        fetchAt(3, 10);
        assertEquals(1, sent.size(), "replica 3 reached the high watermark: the expansion is proposed");
        Sent expansion = sent.get(0);
        assertEquals(List.of(1, 2, 3), expansion.proposal().newIsr());
        return expansion;
    }

    /** Leader at 20, replica 2 at 20, replica 3 still at 10. */
    private void replicaThreeFallsBehind() {
        manager.appendRecords(Map.of(TP, TestBatches.of(10, time.milliseconds())), 1, 30_000);
        fetchAt(2, 20);
    }

    private void lateCommit(int partitionEpoch, List<Integer> isr) {
        manager.applyPartitionState(new LeaderAndIsr(TP, "id-orders", LEADER, 0, partitionEpoch, REPLICAS, isr),
                PartitionSettings.defaults());
    }

    private void assertNoCommittedMemberBelowTheHighWatermark() {
        List<Integer> isr = manager.partition(TP).orElseThrow().isr();
        long hw = highWatermark();
        for (int member : isr) {
            if (member != LEADER) {
                assertTrue(followerEnd.get(member) >= hw, "replica " + member + " is in the committed ISR " + isr
                        + " at log end " + followerEnd.get(member) + ", below the high watermark " + hw);
            }
        }
    }

    @Test
    void anExpansionWhoseRequestFailedStillBoundsTheHighWatermarkUntilTheLateCommit() {
        Sent expansion = expansionInFlight();
        expansion.answer().completeExceptionally(new TimeoutException("the controller did not answer in time"));

        replicaThreeFallsBehind();
        assertEquals(10, highWatermark(), "replica 3 may still join: the high watermark waits for it");

        lateCommit(1, List.of(1, 2, 3));
        assertEquals(List.of(1, 2, 3), manager.partition(TP).orElseThrow().isr());
        assertNoCommittedMemberBelowTheHighWatermark();
        fetchAt(3, 20);
        assertEquals(20, highWatermark());
    }

    @Test
    void anUnansweredExpansionIsSentAgainAfterTheTimeoutAndStaysPending() {
        Sent first = expansionInFlight();
        replicaThreeFallsBehind();

        time.advance(ISR_CHANGE_TIMEOUT_MS);

        assertEquals(2, sent.size(), "the same proposal is sent again");
        assertEquals(first.proposal(), sent.get(1).proposal());
        assertEquals(0, sent.get(1).leaderEpoch());
        assertEquals(10, highWatermark(), "still pending: replica 3 is in the maximal ISR");
        first.answer().complete(IsrChangeResult.refused(Errors.INVALID_UPDATE_VERSION));
        sent.get(1).answer().complete(IsrChangeResult.committed(List.of(1, 2, 3), 1));
        assertEquals(List.of(1, 2, 3), manager.partition(TP).orElseThrow().isr());
        assertNoCommittedMemberBelowTheHighWatermark();
    }

    @Test
    void newerMetadataEndsThePendingChangeAndNoMoreIsSent() {
        expansionInFlight();
        replicaThreeFallsBehind();
        lateCommit(1, List.of(1, 2));

        assertEquals(20, highWatermark(), "the controller's ISR [1, 2] is known: replica 3 no longer holds it back");
        time.advance(3 * ISR_CHANGE_TIMEOUT_MS);
        assertEquals(1, sent.size(), "nothing pending to send again");
    }

    @Test
    void aRefusalThatSaysTheChangeWasNotAppliedEndsIt() {
        Sent expansion = expansionInFlight();
        replicaThreeFallsBehind();

        expansion.answer().complete(IsrChangeResult.refused(Errors.INELIGIBLE_REPLICA));

        fetchAt(2, 20);
        assertEquals(20, highWatermark());
        time.advance(3 * ISR_CHANGE_TIMEOUT_MS);
        assertEquals(1, sent.size());
    }

    @Test
    void notAppliedInAnswerToAnEarlierSendWaitsForTheLatestSend() {
        Sent first = expansionInFlight();
        replicaThreeFallsBehind();
        time.advance(ISR_CHANGE_TIMEOUT_MS);
        assertEquals(2, sent.size());

        first.answer().complete(IsrChangeResult.refused(Errors.INELIGIBLE_REPLICA));
        fetchAt(2, 20);
        assertEquals(10, highWatermark(), "the second send may still be applied once replica 3 is eligible again");

        sent.get(1).answer().complete(IsrChangeResult.committed(List.of(1, 2, 3), 1));
        assertEquals(List.of(1, 2, 3), manager.partition(TP).orElseThrow().isr());
        assertNoCommittedMemberBelowTheHighWatermark();
    }

    @Test
    void notAppliedInAnswerToTheLatestSendEndsIt() {
        Sent first = expansionInFlight();
        replicaThreeFallsBehind();
        time.advance(ISR_CHANGE_TIMEOUT_MS);
        first.answer().completeExceptionally(new TimeoutException("no verdict"));

        sent.get(1).answer().complete(IsrChangeResult.refused(Errors.INELIGIBLE_REPLICA));

        assertEquals(20, highWatermark(), "forgotten: replica 3 no longer holds the high watermark");
        time.advance(3 * ISR_CHANGE_TIMEOUT_MS);
        assertEquals(2, sent.size());
    }

    @Test
    void aRefusalThatWaitsForMetadataKeepsTheChangePendingWithoutResending() {
        Sent expansion = expansionInFlight();
        replicaThreeFallsBehind();

        expansion.answer().complete(IsrChangeResult.refused(Errors.INVALID_UPDATE_VERSION));
        fetchAt(2, 20);

        assertEquals(10, highWatermark(), "the partition moved on at the controller: which way is not known yet");
        time.advance(3 * ISR_CHANGE_TIMEOUT_MS);
        assertEquals(1, sent.size(), "sending the same epoch again cannot succeed");
        lateCommit(1, List.of(1, 2, 3));
        assertNoCommittedMemberBelowTheHighWatermark();
    }

    /**
     * Replica 3 is being replaced by replica 4 (replicas [1, 2, 3, 4], ISR [1, 2, 3], partition epoch 1).
     * Replica 4 catches up, and
     * the controller answers the expansion with the completed move: ISR [1, 2, 4] at partition epoch 2. Replica
     * 3, which does not know yet, fetches again; then the metadata of epoch 2 brings the replicas [1, 2, 4]
     * (docs/behaviours.md B154).
     */
    private void moveCompletedByTheAnswerBeforeItsMetadata() {
        followerEnd.put(4, 0L);
        manager.applyPartitionState(new LeaderAndIsr(TP, "id-orders", LEADER, 0, 1, List.of(1, 2, 3, 4),
                List.of(1, 2, 3)), PartitionSettings.defaults());
        manager.appendRecords(Map.of(TP, TestBatches.of(10, time.milliseconds())), 1, 30_000);
        fetchAt(2, 10);
        fetchAt(3, 10);
        assertEquals(10, highWatermark());
        fetchAt(4, 10);
        Sent expansion = sent.get(sent.size() - 1);
        assertEquals(List.of(1, 2, 3, 4), expansion.proposal().newIsr());
        expansion.answer().complete(IsrChangeResult.committed(List.of(1, 2, 4), 2));
        assertEquals(List.of(1, 2, 4), manager.partition(TP).orElseThrow().isr());
    }

    @Test
    void aRemovedReplicaProposedBackBeforeTheMetadataDoesNotHoldTheHighWatermark() {
        moveCompletedByTheAnswerBeforeItsMetadata();
        int before = sent.size();
        fetchAt(3, 10); // replica 3 is still a follower here: the replicas come with the metadata
        if (sent.size() > before) {
            assertEquals(List.of(1, 2, 4, 3), sent.get(before).proposal().newIsr());
            sent.get(before).answer().complete(IsrChangeResult.refused(Errors.INVALID_REQUEST));
        }
        manager.applyPartitionState(new LeaderAndIsr(TP, "id-orders", LEADER, 0, 2, List.of(1, 2, 4),
                List.of(1, 2, 4)), PartitionSettings.defaults());
        int afterMetadata = sent.size();

        manager.appendRecords(Map.of(TP, TestBatches.of(10, time.milliseconds())), 1, 30_000);
        fetchAt(2, 20);
        fetchAt(4, 20);
        assertEquals(20, highWatermark(), "replica 3 left the replicas: nothing of it holds the high watermark");
        fetchAt(3, 20);
        time.advance(3 * ISR_CHANGE_TIMEOUT_MS);
        assertEquals(afterMetadata, sent.size(), "nothing proposes replica 3 again, or sends the refused change");
    }

    @Test
    void theMetadataAtTheAnsweredEpochStillBringsTheNewReplicas() {
        moveCompletedByTheAnswerBeforeItsMetadata();
        manager.applyPartitionState(new LeaderAndIsr(TP, "id-orders", LEADER, 0, 2, List.of(1, 2, 4),
                List.of(1, 2, 4)), PartitionSettings.defaults());
        int before = sent.size();

        manager.appendRecords(Map.of(TP, TestBatches.of(10, time.milliseconds())), 1, 30_000);
        fetchAt(3, 20); // a last fetch of the removed replica
        fetchAt(2, 20);
        fetchAt(4, 20);
        assertEquals(before, sent.size(), "replica 3 is no follower any more: it is never proposed");
        assertEquals(20, highWatermark());
    }

    private void fetchAt(int replica, long offset) {
        followerEnd.put(replica, offset);
        long logStart = manager.log(TP).orElseThrow().logStartOffset();
        FollowerFetch f = new FollowerFetch(TP, 0, offset, offset == 0 ? -1 : 0, logStart, 0, 1 << 20);
        manager.fetchForReplica(replica, List.of(f), 0, 10 << 20, 0);
    }

    private long highWatermark() {
        return manager.log(TP).orElseThrow().highWatermark();
    }
}
