package io.tideline.replication.cluster;

import static io.tideline.replication.cluster.MockClockCluster.LAG_TIME_MAX_MS;
import static io.tideline.replication.cluster.MockClockCluster.TP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerFetch;
import io.tideline.replication.server.PartitionSettings;
import io.tideline.replication.server.ProduceResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader's high watermark and produce acknowledgements across three replicas over in-process gRPC
 * (docs/behaviours.md B36-B38): the high watermark is the slowest ISR member's log end offset and never goes
 * back; acks=all waits for it; NOT_ENOUGH_REPLICAS (nothing written) and NOT_ENOUGH_REPLICAS_AFTER_APPEND
 * (records written) appear exactly when the committed ISR is below min.insync.replicas; timeouts run on the
 * mock clock. Broker 1 leads; a follower is made slow by cutting its link to the leader.
 */
class HighWatermarkAndAcksTest {
    private static final int LEADER = 1;

    @TempDir
    Path dir;

    private MockClockCluster c;

    private void start(int minIsr) throws Exception {
        c = new MockClockCluster(dir, Map.of());
        c.cluster.createPartition(TP, List.of(1, 2, 3), PartitionSettings.defaults().withMinInsyncReplicas(minIsr));
    }

    @AfterEach
    void tearDown() throws Exception {
        if (c != null) {
            c.close();
        }
    }

    /** Produces {@code n} acks=all records and waits until every replica has them committed. */
    private void produceCommitted(int n) {
        long start = c.broker(LEADER).log(TP).logEndOffset();
        for (int i = 0; i < n; i++) {
            CompletableFuture<Map<TopicPartition, ProduceResult>> f = c.cluster.produce(TP, -1, 30_000, "c" + i);
            c.await(f::isDone);
            assertEquals(Errors.NONE, f.join().get(TP).error(), f.join().get(TP).message());
        }
        c.awaitAllAt(start + n);
    }

    private long leaderHw() {
        return c.broker(LEADER).log(TP).highWatermark();
    }

    private long leaderLeo() {
        return c.broker(LEADER).log(TP).logEndOffset();
    }

    @Test
    void highWatermarkFollowsTheSlowestIsrMemberAndNeverGoesBack() throws Exception {
        start(2);
        produceCommitted(5);
        HwSamples samples = new HwSamples();

        c.broker(3).cutLinkTo(LEADER);
        for (int i = 0; i < 10; i++) {
            assertEquals(Errors.NONE, c.produceNow(1, "a" + i).error());
            samples.take();
        }
        // Broker 2 fetches everything; broker 3 is stuck where the leader last saw it.
        c.await(() -> samples.take() && c.followerEndAtLeader(LEADER, 2) == 15);
        assertEquals(5, c.followerEndAtLeader(LEADER, 3));
        assertEquals(5, leaderHw(), "the high watermark is the slowest ISR member's log end offset");
        assertEquals(List.of(1, 2, 3), c.controller().state(TP).isr(), "no time passed: broker 3 is still in the ISR");
        assertEquals(5, c.broker(2).log(TP).highWatermark(), "a follower never has a higher HW than the leader");

        c.broker(3).healLinkTo(LEADER);
        c.await(() -> samples.take() && c.cluster.brokers().stream()
                .allMatch(b -> b.log(TP).highWatermark() == 15));
        samples.take();
        samples.assertNonDecreasing();
    }

    @Test
    void acksAllWaitsUntilEveryIsrMemberHasTheRecords() throws Exception {
        start(2);
        produceCommitted(3);
        c.broker(3).cutLinkTo(LEADER);

        CompletableFuture<Map<TopicPartition, ProduceResult>> produce = c.cluster.produce(TP, -1, 30_000, "wait");
        c.await(() -> c.followerEndAtLeader(LEADER, 2) == 4);
        assertFalse(produce.isDone(), "broker 3 is in the ISR without the record: acks=all must wait");
        assertEquals(3, leaderHw());

        c.broker(3).healLinkTo(LEADER);
        c.await(produce::isDone);
        ProduceResult result = produce.join().get(TP);
        assertEquals(Errors.NONE, result.error(), result.message());
        assertEquals(3, result.baseOffset());
        assertTrue(leaderHw() >= 4);
    }

    @Test
    void acksZeroAndOneAnswerRightAfterTheLocalAppend() throws Exception {
        start(2);
        produceCommitted(2);
        c.broker(2).cutLinkTo(LEADER);
        c.broker(3).cutLinkTo(LEADER);

        // produceNow fails if the future is not already complete when appendRecords returns.
        ProduceResult acks1 = c.produceNow(1, "one");
        ProduceResult acks0 = c.produceNow(0, "zero");
        assertEquals(Errors.NONE, acks1.error());
        assertEquals(2, acks1.baseOffset());
        assertEquals(Errors.NONE, acks0.error());
        assertEquals(4, leaderLeo());
        assertEquals(2, leaderHw(), "no follower has them: they are written, not committed");
    }

    /**
     * Takes broker 3 out of the ISR through the controller and keeps it out: its link is cut and one
     * acks=1 record is written first, so a fetch it had parked at the leader is answered before the fence
     * (a parked fetch at the log end would otherwise bring it straight back in as caught up).
     */
    private void fenceBroker3() {
        c.broker(3).cutLinkTo(LEADER);
        assertEquals(Errors.NONE, c.produceNow(1, "drain").error());
        c.controller().fence(TP, 3);
        c.await(() -> c.leaderView(LEADER, ls -> ls.isr().equals(List.of(1, 2))));
    }

    @Test
    void notEnoughReplicasBeforeAppendWritesNothing() throws Exception {
        start(3);
        produceCommitted(2);
        fenceBroker3();
        assertEquals(3, leaderLeo());

        ProduceResult refused = c.produceNow(-1, "x");
        assertEquals(Errors.NOT_ENOUGH_REPLICAS, refused.error());
        assertEquals(3, leaderLeo(), "NOT_ENOUGH_REPLICAS is decided before appending");

        // acks=1 is not bound by min.insync.replicas, but the high watermark does not advance below it.
        assertEquals(Errors.NONE, c.produceNow(1, "y").error());
        c.await(() -> c.followerEndAtLeader(LEADER, 2) == 4);
        assertEquals(2, leaderHw(), "HW frozen while the ISR is below min.insync.replicas (docs/behaviours.md B37)");
        assertEquals(1, c.gauge(LEADER, "kafka.server:type=ReplicaManager,name=UnderMinIsrPartitionCount"));
    }

    @Test
    void acksAllSucceedsWithTheIsrExactlyAtTheMinimum() throws Exception {
        start(2);
        produceCommitted(1);
        fenceBroker3();

        CompletableFuture<Map<TopicPartition, ProduceResult>> f = c.cluster.produce(TP, -1, 30_000, "at-min");
        c.await(f::isDone);
        assertEquals(Errors.NONE, f.join().get(TP).error());
        assertEquals(1, c.gauge(LEADER, "kafka.server:type=ReplicaManager,name=AtMinIsrPartitionCount"));
        assertEquals(0, c.gauge(LEADER, "kafka.server:type=ReplicaManager,name=UnderMinIsrPartitionCount"));
    }

    @Test
    void notEnoughReplicasAfterAppendWhenTheIsrShrinksWhileWaiting() throws Exception {
        start(2);
        produceCommitted(2);
        c.broker(2).cutLinkTo(LEADER);
        c.broker(3).cutLinkTo(LEADER);

        CompletableFuture<Map<TopicPartition, ProduceResult>> produce =
                c.cluster.produce(TP, -1, 10 * LAG_TIME_MAX_MS, "stranded");
        assertFalse(produce.isDone());
        assertEquals(3, leaderLeo(), "the ISR was at the minimum: the record is written");

        // Both followers lag past replica.lag.time.max.ms: the leader shrinks the ISR to itself.
        c.advance(LAG_TIME_MAX_MS + 1);
        c.broker(LEADER).replicaManager.maybeShrinkIsr();
        c.await(produce::isDone);
        ProduceResult result = produce.join().get(TP);
        assertEquals(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, result.error(), result.message());
        assertEquals(List.of(1), c.controller().state(TP).isr());
        assertEquals(3, leaderLeo(), "the records stay on the leader");
        assertEquals(2, leaderHw());
    }

    @Test
    void acksAllTimesOutOnTheMockClock() throws Exception {
        start(2);
        produceCommitted(1);
        c.broker(3).cutLinkTo(LEADER);

        CompletableFuture<Map<TopicPartition, ProduceResult>> produce = c.cluster.produce(TP, -1, 1_000, "late");
        c.await(() -> c.followerEndAtLeader(LEADER, 2) == 2);
        c.advance(999);
        assertFalse(produce.isDone(), "the timeout has not passed yet");
        c.advance(1);
        assertTrue(produce.isDone(), "the expiry runs on the mock scheduler as the clock reaches it");
        ProduceResult result = produce.join().get(TP);
        assertEquals(Errors.REQUEST_TIMED_OUT, result.error(), result.message());
        assertEquals(1, result.baseOffset());
        assertEquals(2, leaderLeo(), "a timed-out write stays on the leader");
        assertEquals(List.of(1, 2, 3), c.controller().state(TP).isr(), "the timeout is below the lag time");
    }

    @Test
    void invalidAcksIsRejectedWithoutWriting() throws Exception {
        start(1);
        produceCommitted(1);
        for (int acks : new int[] {2, -2}) {
            CompletableFuture<Map<TopicPartition, ProduceResult>> f = c.produceTo(LEADER, acks, 30_000, "bad");
            assertTrue(f.isDone());
            assertEquals(Errors.INVALID_REQUIRED_ACKS, f.join().get(TP).error(), "acks=" + acks);
        }
        assertEquals(1, leaderLeo());
    }

    @Test
    void produceToAFollowerIsNotLeaderOrFollower() throws Exception {
        start(1);
        produceCommitted(1);
        for (int acks : new int[] {-1, 1}) {
            CompletableFuture<Map<TopicPartition, ProduceResult>> f = c.produceTo(2, acks, 30_000, "misrouted");
            assertTrue(f.isDone());
            ProduceResult result = f.join().get(TP);
            assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, result.error());
            assertTrue(result.message().contains("leader is 1"), result.message());
        }
        assertEquals(1, c.broker(2).log(TP).logEndOffset());
        assertEquals(1, leaderLeo());
    }

    /**
     * A parked fetch answered late must not move the leader's view of its follower back: the follower may
     * have fetched further since (a replaced fetcher thread abandons its parked request). Replica 4 is
     * assigned but hosted by no broker, so the test sends its fetches by hand; min.bytes keeps them parked
     * until their waits expire on the mock clock, the older request last.
     */
    @Test
    void aLateAnswerToAnOlderFetchDoesNotMoveTheFollowerBack() throws Exception {
        c = new MockClockCluster(dir, Map.of());
        c.cluster.createPartition(TP, List.of(1, 2, 4), PartitionSettings.defaults());
        for (int i = 0; i < 3; i++) {
            assertEquals(Errors.NONE, c.produceNow(1, "v" + i).error());
        }
        assertEquals(Errors.NONE, fetchAs4(3, 0, 0).join().get(TP).error());
        c.await(() -> leaderHw() == 3);

        CompletableFuture<?> older = fetchAs4(2, 3, 1_000);
        CompletableFuture<?> newer = fetchAs4(3, 3, 500);
        assertFalse(older.isDone() || newer.isDone(), "both wait for min.bytes");
        assertEquals(3, c.followerEndAtLeader(LEADER, 4));

        c.advance(500);
        c.advance(500);
        assertTrue(older.isDone() && newer.isDone());
        assertEquals(3, c.followerEndAtLeader(LEADER, 4), "the newest fetch is where replica 4 is");
    }

    /**
     * A fetch sent ahead (pipelining) reads past batches its follower is still appending: the high
     * watermark counts what the follower says it has written, so a follower that dies mid-append cannot
     * have acknowledged records it never wrote. Replica 4 is in the ISR and fetches by hand.
     */
    @Test
    void aFetchSentAheadCountsForTheHighWatermarkOnlyWhatItsFollowerAppended() throws Exception {
        c = new MockClockCluster(dir, Map.of());
        c.cluster.createPartition(TP, List.of(1, 2, 4), PartitionSettings.defaults());
        for (int i = 0; i < 6; i++) {
            assertEquals(Errors.NONE, c.produceNow(1, "v" + i).error());
        }
        FollowerFetch ahead = new FollowerFetch(TP, 0, 4, 0, 0, 0, 1 << 20, 0);
        FetchResponseData read = c.broker(LEADER).replicaManager.fetchForReplica(4, List.of(ahead), 1, 1 << 20, 0)
                .join().get(TP);
        assertEquals(Errors.NONE, read.error());
        assertTrue(read.records().sizeInBytes() > 0, "the fetch reads from its fetch offset");
        assertEquals(0, c.followerEndAtLeader(LEADER, 4));
        assertEquals(0, leaderHw(), "nothing is on replica 4 yet, wherever it reads from");

        // Its next fetch, sent ahead again, reports [0, 4) written.
        c.broker(LEADER).replicaManager.fetchForReplica(4, List.of(new FollowerFetch(TP, 0, 6, 0, 0, 0, 1 << 20, 4)),
                1, 1 << 20, 0).join();
        assertEquals(4, c.followerEndAtLeader(LEADER, 4));
        c.await(() -> leaderHw() == 4);
    }

    private CompletableFuture<Map<TopicPartition, FetchResponseData>> fetchAs4(long offset, long hw, int waitMs) {
        FollowerFetch fetch = new FollowerFetch(TP, 0, offset, 0, 0, hw, 1 << 20);
        return c.broker(LEADER).replicaManager.fetchForReplica(4, List.of(fetch), 1 << 20, 1 << 20, waitMs);
    }

    /** High watermarks of every broker, sampled whenever the test looks. */
    private final class HwSamples {
        private final Map<Integer, List<Long>> byBroker = new HashMap<>();

        /** Records one sample per broker; returns true so it can ride along in an await condition. */
        synchronized boolean take() {
            for (TestBroker b : c.cluster.brokers()) {
                byBroker.computeIfAbsent(b.id, k -> new ArrayList<>()).add(b.log(TP).highWatermark());
            }
            return true;
        }

        synchronized void assertNonDecreasing() {
            for (Map.Entry<Integer, List<Long>> e : byBroker.entrySet()) {
                List<Long> hws = e.getValue();
                for (int i = 1; i < hws.size(); i++) {
                    assertTrue(hws.get(i) >= hws.get(i - 1), "broker " + e.getKey() + " HW went back: " + hws);
                }
            }
        }
    }
}
