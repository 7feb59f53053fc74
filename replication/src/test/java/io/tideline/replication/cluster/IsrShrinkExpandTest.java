package io.tideline.replication.cluster;

import static io.tideline.replication.cluster.MockClockCluster.LAG_TIME_MAX_MS;
import static io.tideline.replication.cluster.MockClockCluster.TP;
import static io.tideline.replication.metrics.ReplicationMetrics.AT_MIN_ISR_PARTITION_COUNT;
import static io.tideline.replication.metrics.ReplicationMetrics.FAILED_ISR_UPDATES_PER_SEC;
import static io.tideline.replication.metrics.ReplicationMetrics.ISR_EXPANDS_PER_SEC;
import static io.tideline.replication.metrics.ReplicationMetrics.ISR_SHRINKS_PER_SEC;
import static io.tideline.replication.metrics.ReplicationMetrics.UNDER_MIN_ISR_PARTITION_COUNT;
import static io.tideline.replication.metrics.ReplicationMetrics.UNDER_REPLICATED_PARTITIONS;
import static io.tideline.replication.metrics.ReplicationMetrics.partitionMetric;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.replication.fetcher.ReplicationQuota;
import io.tideline.replication.server.PartitionSettings;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ISR shrink and expand through the test metadata quorum, with replica.lag.time.max.ms on the mock clock
 * (docs/behaviours.md B34-B36): a follower that stops fetching leaves after exactly the lag time, comes back
 * once caught up, a caught-up follower of an idle partition stays, a refused change leaves the committed
 * ISR as it was, and a leader has at most one change in flight. Broker 1 leads; a follower stops fetching
 * when its link to the leader is cut.
 */
class IsrShrinkExpandTest {
    private static final int LEADER = 1;

    @TempDir
    Path dir;

    private MockClockCluster c;

    private void start() throws Exception {
        c = new MockClockCluster(dir, Map.of());
        c.cluster.createPartition(TP, List.of(1, 2, 3), PartitionSettings.defaults().withMinInsyncReplicas(2));
        for (int i = 0; i < 3; i++) {
            assertEquals(Errors.NONE, c.produceNow(1, "v" + i).error());
        }
        c.awaitAllAt(3);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (c != null) {
            c.close();
        }
    }

    private List<Integer> committedIsr() {
        return c.controller().state(TP).isr();
    }

    private List<Integer> leaderIsr() {
        return c.leaderView(LEADER, ls -> ls.isr());
    }

    /** Cuts broker 3 off and writes records it will not get: from now on it is behind the leader. */
    private void broker3StopsFetching() {
        c.broker(3).cutLinkTo(LEADER);
        for (int i = 0; i < 4; i++) {
            assertEquals(Errors.NONE, c.produceNow(1, "w" + i).error());
        }
        c.await(() -> c.followerEndAtLeader(LEADER, 2) == 7);
    }

    private int partitionGauge(String name) {
        return (Integer) c.gauge(LEADER, partitionMetric(name, TP));
    }

    @Test
    void aFollowerThatStopsFetchingLeavesAfterTheLagTimeAndReturnsOnceCaughtUp() throws Exception {
        start();
        broker3StopsFetching();
        long lastCaughtUp = c.lastCaughtUpAtLeader(LEADER, 3);

        // Exactly replica.lag.time.max.ms without catching up is not yet "more than" it.
        c.advance(lastCaughtUp + LAG_TIME_MAX_MS - c.time.milliseconds());
        c.broker(LEADER).replicaManager.maybeShrinkIsr();
        assertEquals(0, c.controller().alterPartitionRequests());
        assertEquals(List.of(1, 2, 3), committedIsr());
        assertEquals(3, c.followerEndAtLeader(LEADER, 3), "the slow follower holds the high watermark");
        assertEquals(3, c.broker(LEADER).log(TP).highWatermark());

        c.advance(1);
        c.broker(LEADER).replicaManager.maybeShrinkIsr();
        c.await(() -> leaderIsr().equals(List.of(1, 2)));
        assertEquals(List.of(1, 2), committedIsr());
        assertEquals(List.of(TP + " [1, 2, 3] -> [1, 2] LAGGING"), c.controller().isrHistory());
        c.await(() -> c.broker(LEADER).log(TP).highWatermark() == 7);
        c.await(() -> c.meterCount(LEADER, ISR_SHRINKS_PER_SEC) == 1);
        assertEquals(1, c.gauge(LEADER, UNDER_REPLICATED_PARTITIONS));
        assertEquals(1, partitionGauge("UnderReplicated"));
        assertEquals(2, partitionGauge("InSyncReplicasCount"));
        assertEquals(1, c.gauge(LEADER, AT_MIN_ISR_PARTITION_COUNT));
        assertEquals(0, c.gauge(LEADER, UNDER_MIN_ISR_PARTITION_COUNT));

        c.broker(3).healLinkTo(LEADER);
        c.await(() -> leaderIsr().equals(List.of(1, 2, 3)));
        assertEquals(List.of(1, 2, 3), committedIsr());
        assertEquals(TP + " [1, 2] -> [1, 2, 3] CAUGHT_UP", c.controller().isrHistory().get(1));
        assertEquals(7, c.broker(3).log(TP).logEndOffset());
        c.await(() -> c.meterCount(LEADER, ISR_EXPANDS_PER_SEC) == 1);
        assertEquals(1, c.meterCount(LEADER, ISR_SHRINKS_PER_SEC));
        assertEquals(0, c.gauge(LEADER, UNDER_REPLICATED_PARTITIONS));
        assertEquals(0, partitionGauge("UnderReplicated"));
        assertEquals(3, partitionGauge("InSyncReplicasCount"));
        assertEquals(0, c.gauge(LEADER, AT_MIN_ISR_PARTITION_COUNT));
        assertEquals(0, c.meterCount(LEADER, FAILED_ISR_UPDATES_PER_SEC));
    }

    @Test
    void aCaughtUpFollowerOnABrokerTheControllerDoesNotConsiderAliveIsNotProposed() throws Exception {
        start();
        broker3StopsFetching();
        c.advance(LAG_TIME_MAX_MS + 1);
        c.broker(LEADER).replicaManager.maybeShrinkIsr();
        c.await(() -> leaderIsr().equals(List.of(1, 2)));
        int requests = c.controller().alterPartitionRequests();

        // Broker 3 is fenced (not live): catching up must not bring it back (KIP-841: INELIGIBLE_REPLICA).
        c.broker(LEADER).replicaManager.updateLiveBrokers(java.util.Set.of(1, 2));
        c.broker(3).healLinkTo(LEADER);
        c.await(() -> c.followerEndAtLeader(LEADER, 3) == c.broker(LEADER).log(TP).logEndOffset());
        c.produceNow(1, "more");
        c.await(() -> c.followerEndAtLeader(LEADER, 3) == c.broker(LEADER).log(TP).logEndOffset());
        assertEquals(requests, c.controller().alterPartitionRequests(), "no expansion proposed for a fenced broker");
        assertEquals(List.of(1, 2), committedIsr());

        // Unfenced again: its next caught-up fetch is proposed and committed.
        c.broker(LEADER).replicaManager.updateLiveBrokers(java.util.Set.of(1, 2, 3));
        c.produceNow(1, "again");
        c.await(() -> leaderIsr().equals(List.of(1, 2, 3)));
        assertEquals(List.of(1, 2, 3), committedIsr());
    }

    @Test
    void aCaughtUpFollowerOfAnIdlePartitionNeverLeaves() throws Exception {
        start();
        // Broker 3 does not even fetch: having everything the leader has is enough (Kafka's rule).
        c.broker(3).cutLinkTo(LEADER);
        for (int i = 0; i < 10; i++) {
            c.advance(LAG_TIME_MAX_MS);
            c.broker(LEADER).replicaManager.maybeShrinkIsr();
        }
        assertEquals(0, c.controller().alterPartitionRequests());
        assertEquals(List.of(1, 2, 3), committedIsr());
        assertEquals(List.of(1, 2, 3), leaderIsr());
        assertEquals(0, c.gauge(LEADER, UNDER_REPLICATED_PARTITIONS));
        assertEquals(0, c.meterCount(LEADER, ISR_SHRINKS_PER_SEC));
    }

    @Test
    void aRefusedChangeKeepsTheCommittedIsrAndALaterProposalGoesThrough() throws Exception {
        start();
        broker3StopsFetching();
        c.controller().refuseIsrChanges(true);

        c.advance(LAG_TIME_MAX_MS + 1);
        c.broker(LEADER).replicaManager.maybeShrinkIsr();
        c.await(() -> c.controller().alterPartitionRequests() >= 1
                && c.meterCount(LEADER, FAILED_ISR_UPDATES_PER_SEC) == c.controller().alterPartitionRequests()
                && c.leaderView(LEADER, ls -> ls.pendingIsrChange().isEmpty()));
        assertEquals(List.of(1, 2, 3), leaderIsr(), "the leader keeps the committed ISR");
        assertEquals(List.of(1, 2, 3), committedIsr());
        assertEquals(List.of(), c.controller().isrHistory());
        assertEquals(3, c.broker(LEADER).log(TP).highWatermark(), "broker 3 still counts for the high watermark");
        assertEquals(0, c.meterCount(LEADER, ISR_SHRINKS_PER_SEC));
        assertEquals(0, c.gauge(LEADER, UNDER_REPLICATED_PARTITIONS));

        c.controller().refuseIsrChanges(false);
        c.broker(LEADER).replicaManager.maybeShrinkIsr();
        c.await(() -> leaderIsr().equals(List.of(1, 2)));
        assertEquals(List.of(1, 2), committedIsr());
        c.await(() -> c.meterCount(LEADER, ISR_SHRINKS_PER_SEC) == 1);
        assertEquals(1, c.gauge(LEADER, UNDER_REPLICATED_PARTITIONS));
    }

    @Test
    void onlyOneIsrChangeIsInFlightAndThePendingShrinkHoldsTheHighWatermark() throws Exception {
        start();
        broker3StopsFetching();
        c.controller().holdIsrChanges();

        c.advance(LAG_TIME_MAX_MS + 1);
        c.broker(LEADER).replicaManager.maybeShrinkIsr();
        assertEquals(1, c.controller().alterPartitionRequests());
        assertTrue(c.<Boolean>leaderView(LEADER, ls -> ls.pendingIsrChange().isPresent()));
        assertEquals(3, c.broker(LEADER).log(TP).highWatermark(),
                "a pending shrink does not advance the high watermark (docs/behaviours.md B36)");

        // Broker 2 falls behind as well; the leader still waits for the answer about broker 3.
        c.broker(2).cutLinkTo(LEADER);
        assertEquals(Errors.NONE, c.produceNow(1, "more").error());
        c.advance(LAG_TIME_MAX_MS + 1);
        c.broker(LEADER).replicaManager.maybeShrinkIsr();
        assertEquals(1, c.controller().alterPartitionRequests(), "one change in flight per partition");

        c.controller().releaseIsrChanges();
        c.await(() -> leaderIsr().equals(List.of(1, 2)));
        assertEquals(7, c.broker(LEADER).log(TP).highWatermark(), "broker 2 had everything up to the shrink");
        c.broker(LEADER).replicaManager.maybeShrinkIsr();
        c.await(() -> leaderIsr().equals(List.of(1)));
        assertEquals(2, c.controller().alterPartitionRequests());
        assertEquals(List.of(TP + " [1, 2, 3] -> [1, 2] LAGGING", TP + " [1, 2] -> [1] LAGGING"),
                c.controller().isrHistory());
        assertEquals(1, c.gauge(LEADER, UNDER_MIN_ISR_PARTITION_COUNT));
        assertEquals(1, partitionGauge("InSyncReplicasCount"));
    }
    /**
     * docs/behaviours.md B35 after a clean election: broker 2 takes over at leader epoch 1 with records its
     * high watermark does not cover yet (broker 3 held the old leader's back), so its epoch starts above
     * its high watermark. A follower outside the ISR that reached the high watermark but not that start
     * offset must not rejoin. To hold broker 3 in between, the new leader throttles out-of-sync followers
     * with a small rate and the mock clock never refills it: broker 3 gets one batch per fetch
     * (replica.fetch.max.bytes=1) until the rate is lifted.
     */
    @Test
    void aFollowerRejoinsUnderANewLeaderOnlyOnceItReachedTheEpochStart() throws Exception {
        c = new MockClockCluster(dir, Map.of("replica.fetch.max.bytes", 1, "leader.replication.throttled.rate", 1000));
        c.cluster.createPartition(TP, List.of(1, 2, 3), PartitionSettings.defaults().withThrottles(true, false));
        for (int i = 0; i < 5; i++) {
            assertEquals(Errors.NONE, c.produceNow(1, "v" + i).error());
        }
        c.awaitAllAt(5);

        // Broker 3 stops fetching, so only broker 2 gets offsets 5..8 and the high watermark stays at 5.
        c.broker(3).cutLinkTo(1);
        c.broker(3).cutLinkTo(2);
        c.broker(1).cutLinkTo(2); // the old leader must not reach the new one: it would move its HW
        for (int i = 0; i < 4; i++) {
            assertEquals(Errors.NONE, c.produceNow(1, "w" + i).error());
        }
        c.await(() -> c.followerEndAtLeader(1, 2) == 9);

        c.controller().electLeader(TP, 2);
        c.controller().fence(TP, 3);
        c.await(() -> c.broker(2).replicaManager.partition(TP).map(p -> p.isLeader()).orElse(false)
                && c.leaderView(2, ls -> ls.isr().equals(List.of(1, 2))));
        assertEquals(1, c.<Integer>leaderView(2, ls -> ls.leaderEpoch()));
        assertEquals(9L, c.<Long>leaderView(2, ls -> ls.leaderEpochStartOffset()));
        assertEquals(5, c.broker(2).log(TP).highWatermark());

        c.broker(3).healLinkTo(2);
        c.await(() -> c.broker(2).replicaManager.leaderQuota().isExceeded()
                && c.followerEndAtLeader(2, 3) == c.broker(3).log(TP).logEndOffset());
        long held = c.followerEndAtLeader(2, 3);
        assertTrue(held >= 5 && held < 9, "broker 3 is between the high watermark and the epoch start: " + held);
        assertEquals(List.of(1, 2), c.leaderView(2, ls -> ls.isr()));
        assertTrue(c.<Boolean>leaderView(2, ls -> ls.pendingIsrChange().isEmpty()),
                "reaching the high watermark alone is not enough to rejoin");
        assertTrue(c.controller().isrHistory().isEmpty());

        c.broker(2).replicaManager.leaderQuota().setRate(ReplicationQuota.UNLIMITED);
        c.advance(500); // the parked fetch expires and is answered with data now
        c.await(() -> c.leaderView(2, ls -> ls.isr().equals(List.of(1, 2, 3))));
        assertEquals(List.of(TP + " [1, 2] -> [1, 2, 3] CAUGHT_UP"), c.controller().isrHistory());
        assertTrue(c.followerEndAtLeader(2, 3) >= 9);
        assertEquals(9, c.broker(3).log(TP).logEndOffset());
    }
}
