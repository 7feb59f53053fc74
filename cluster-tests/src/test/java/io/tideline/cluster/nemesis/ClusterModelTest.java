package io.tideline.cluster.nemesis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterModelTest {
    private final NemesisSpec spec = new NemesisSpec(List.of(1, 2, 3, 4, 5), 3, 0, Duration.ZERO, Duration.ZERO);
    private final ClusterModel model = spec.newModel();

    @Test
    void aQuorumOfFiveLosesAtMostTwoNodes() {
        new Kill(1).update(model);
        new Stop(4).update(model);

        var refused = assertThrows(IllegalStateException.class, () -> new Kill(2).update(model));
        assertEquals("taking node 2 down would leave the quorum of 5 without a majority: [1, 4] are down already",
                refused.getMessage());
        assertEquals(List.of(2, 3, 5), model.upNodes());
    }

    @Test
    void aNodeIsTakenDownOnlyWhenUpAndBroughtBackOnlyWhenDown() {
        new Kill(3).update(model);

        assertThrows(IllegalStateException.class, () -> new Stop(3).update(model));
        assertThrows(IllegalStateException.class, () -> new Restart(2, true).update(model));
        assertThrows(IllegalArgumentException.class, () -> new Kill(9).update(model));
        assertEquals(new Restart(3, true), model.bringBack(3));
    }

    @Test
    void aLinkIsBrokenOnceAndHealedOnce() {
        new CutLinks(List.of("1->2 replication")).update(model);

        assertThrows(IllegalStateException.class,
                () -> new DelayLink("1->2 replication", Duration.ofMillis(50)).update(model));
        assertThrows(IllegalStateException.class, () -> new HealLink("2->1 replication").update(model));
        assertThrows(IllegalArgumentException.class, () -> new HealLink("1->2 raft").update(model));
    }

    @Test
    void healingBringsNodesBackThenHealsLinksByName() {
        new CutLinks(spec.linksOf(5).subList(0, 2)).update(model);
        new Kill(2).update(model);
        new DelayLink("3->4 replication", Duration.ofMillis(50)).update(model);

        assertEquals(List.of(new Restart(2, true), new HealLink("1->5 replication"), new HealLink("3->4 replication"),
                new HealLink("5->1 replication")), model.healing());
    }

    @Test
    void aNodesLinksAreEveryReplicationLinkToAndFromIt() {
        assertEquals(8, spec.linksOf(5).size());
        // 5 client links and 20 directed replication links; no Raft link is cut alone.
        assertEquals(25, spec.links().size());
        assertEquals(List.of("client->1", "client->2", "client->3", "client->4", "client->5"),
                spec.links().subList(0, 5));
        assertTrue(spec.links().stream().noneMatch(l -> l.endsWith("raft")), spec.links().toString());
        assertEquals(List.of("5->1 replication", "1->5 replication"), spec.linksOf(5).subList(0, 2));
    }

    @Test
    void theQuorumIsLostOnlyFromAWholeClusterAndComesBackAtOnce() {
        new KillTogether(List.of(2, 4, 5)).update(model);

        assertEquals(List.of(2, 4, 5), model.downNodes());
        assertThrows(IllegalStateException.class, () -> new Kill(1).update(model));
        assertEquals(new RestartTogether(List.of(2, 4, 5)), model.bringBack(4));
        assertEquals(List.of(new RestartTogether(List.of(2, 4, 5))), model.healing());

        model.bringBack(2).update(model);
        new Kill(1).update(model);
        var refused = assertThrows(IllegalStateException.class,
                () -> new KillTogether(List.of(2, 3, 4)).update(model));
        assertEquals("the quorum is lost only from a whole cluster: [1] are down already", refused.getMessage());
    }

    @Test
    void aQuorumLossTakesMoreNodesThanTheQuorumCanLose() {
        var refused = assertThrows(IllegalArgumentException.class,
                () -> new KillTogether(List.of(2, 3)).update(model));

        assertEquals("[2, 3] are not more than 2 distinct nodes", refused.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new KillTogether(List.of(2, 2, 3)).update(model));
        assertEquals(List.of(), model.downNodes());
    }

    @Test
    void aClockIsSkewedOnceAndPutRightOnceAfterTheNodesAndLinks() {
        new SkewClock(3, -2500).update(model);
        new Kill(1).update(model);

        assertThrows(IllegalStateException.class, () -> new SkewClock(3, 700).update(model));
        assertThrows(IllegalStateException.class, () -> new UnskewClock(2).update(model));
        assertEquals(List.of(1, 2, 4, 5), model.unskewedNodes());
        assertEquals(List.of(new Restart(1, true), new UnskewClock(3)), model.healing());
    }

    @Test
    void anIsolatedQuorumLeaderCountsAsItsPlannedNodeDown() {
        IsolateRaftLeader isolate = new IsolateRaftLeader(4);
        isolate.update(model);
        new IsolateRaft(2).update(model);

        assertEquals(List.of(2, 4), model.downNodes());
        assertThrows(IllegalStateException.class, () -> new Kill(1).update(model));
        assertEquals(List.of(new HealRaft(2), new HealIsolatedLeader(isolate)), model.healing());
        assertEquals(4, isolate.isolated());
    }
}
