package io.tideline.replication.leader;

import io.tideline.common.errors.Errors;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LeaderStateTest {
    private static final int LEADER = 1;
    private static final long LAG_MS = 30_000L;

    private final InMemoryLocalLog log = new InMemoryLocalLog(0L, 0L);

    private LeaderState leader(List<Integer> isr, int minIsr, long epochStartOffset) {
        return new LeaderState(LEADER, 5, epochStartOffset, 10, List.of(1, 2, 3), isr, minIsr, LAG_MS, log, 0L);
    }

    // ---------------------------------------------------------------- high watermark

    @Test
    void highWatermarkFollowsTheSlowestIsrMemberAndNeverGoesBack() {
        LeaderState state = leader(List.of(1, 2, 3), 2, 0L);
        log.append(10);
        assertFalse(state.onFollowerFetch(2, 10, 0, 1));
        assertTrue(state.onFollowerFetch(3, 4, 0, 1));
        assertEquals(4, state.highWatermark());

        assertTrue(state.onFollowerFetch(3, 7, 0, 2));
        assertEquals(7, state.highWatermark());

        // A member fetching lower (say after a truncation) does not pull the high watermark back.
        assertFalse(state.onFollowerFetch(3, 5, 0, 3));
        assertEquals(7, state.highWatermark());

        assertTrue(state.onFollowerFetch(3, 10, 0, 4));
        assertEquals(10, state.highWatermark());
    }

    @Test
    void leaderAloneInTheIsrAdvancesTheHighWatermarkOnAppend() {
        LeaderState state = leader(List.of(1), 1, 0L);
        log.append(3);
        assertTrue(state.maybeAdvanceHighWatermark());
        assertEquals(3, state.highWatermark());
        assertFalse(state.maybeAdvanceHighWatermark());
    }

    @Test
    void memberThatHasNotFetchedHoldsTheHighWatermark() {
        LeaderState state = leader(List.of(1, 2, 3), 2, 0L);
        log.append(10);
        assertFalse(state.onFollowerFetch(2, 10, 0, 1));
        assertEquals(0, state.highWatermark());
    }

    @Test
    void highWatermarkIsStuckWhileIsrIsBelowMinInsyncReplicas() {
        LeaderState state = leader(List.of(1, 2), 3, 0L);
        log.append(10);
        assertFalse(state.onFollowerFetch(2, 10, 0, 1));
        assertFalse(state.maybeAdvanceHighWatermark());
        assertEquals(0, state.highWatermark());

        state.onFollowerFetch(3, 10, 0, 2);
        IsrProposal expand = state.maybeExpandIsr(3).orElseThrow();
        assertEquals(0, state.highWatermark(), "a pending expansion is not yet a committed ISR");
        assertTrue(state.onIsrChangeCommitted(expand.newIsr(), 11));
        assertEquals(10, state.highWatermark());
    }

    // ---------------------------------------------------------------- caught-up rule

    @Test
    void fetchAtTheLeaderLogEndIsCaughtUpNow() {
        LeaderState state = leader(List.of(1, 2, 3), 2, 0L);
        log.append(10);
        state.onFollowerFetch(2, 10, 0, 500);
        assertEquals(500, state.follower(2).orElseThrow().lastCaughtUpTimeMs());
    }

    @Test
    void fetchAtTheLeaderLogEndOfThePreviousFetchIsCaughtUpAtThePreviousFetchTime() {
        LeaderState state = leader(List.of(1, 2, 3), 2, 0L);
        log.append(10);
        state.onFollowerFetch(2, 4, 0, 100);      // leader's end was 10 at this fetch
        assertEquals(0, state.follower(2).orElseThrow().lastCaughtUpTimeMs());
        log.append(10);
        state.onFollowerFetch(2, 10, 0, 200);     // behind the end now (20), but has all that existed at t=100
        assertEquals(100, state.follower(2).orElseThrow().lastCaughtUpTimeMs());
        log.append(10);
        state.onFollowerFetch(2, 15, 0, 300);     // below 20, the end at the previous fetch: not caught up
        assertEquals(100, state.follower(2).orElseThrow().lastCaughtUpTimeMs());
    }

    // ---------------------------------------------------------------- shrink

    @Test
    void followerLeavesTheIsrOnlyAfterReplicaLagTimeMaxMs() {
        LeaderState state = leader(List.of(1, 2, 3), 2, 0L);
        log.append(10);
        state.onFollowerFetch(2, 10, 0, LAG_MS);
        state.onFollowerFetch(3, 3, 0, 1);         // replica 3 falls behind and stops fetching

        assertEquals(Optional.empty(), state.maybeShrinkIsr(LAG_MS));
        IsrProposal shrink = state.maybeShrinkIsr(LAG_MS + 1).orElseThrow();
        assertEquals(List.of(1, 2), shrink.newIsr());
        assertEquals(IsrProposal.LAGGING, shrink.reason());
        assertEquals(10, shrink.partitionEpoch());
        assertEquals(List.of(1, 2, 3), state.isr(), "the committed ISR changes only on commit");
    }

    @Test
    void followerAtTheLeaderLogEndOfAnIdlePartitionStaysInTheIsr() {
        LeaderState state = leader(List.of(1, 2, 3), 2, 0L);
        log.append(10);
        state.onFollowerFetch(2, 10, 0, 1);
        state.onFollowerFetch(3, 10, 0, 1);
        assertEquals(Optional.empty(), state.maybeShrinkIsr(10 * LAG_MS));
    }

    @Test
    void pendingShrinkKeepsTheHighWatermarkOverTheLargerIsr() {
        LeaderState state = leader(List.of(1, 2, 3), 2, 0L);
        log.append(10);
        state.onFollowerFetch(3, 5, 0, 1);
        state.onFollowerFetch(2, 10, 0, LAG_MS + 1);
        assertEquals(5, state.highWatermark());
        IsrProposal shrink = state.maybeShrinkIsr(LAG_MS + 2).orElseThrow();

        log.append(10);
        assertFalse(state.onFollowerFetch(2, 20, 0, LAG_MS + 3));
        assertEquals(5, state.highWatermark(), "replica 3 may still be in the ISR until the controller answers");

        assertTrue(state.onIsrChangeCommitted(shrink.newIsr(), 11));
        assertEquals(List.of(1, 2), state.isr());
        assertEquals(20, state.highWatermark());
        assertEquals(Optional.empty(), state.pendingIsrChange());
    }

    @Test
    void failedChangeRestoresTheCommittedIsrAndAllowsANewProposal() {
        LeaderState state = leader(List.of(1, 2, 3), 2, 0L);
        log.append(10);
        state.onFollowerFetch(2, 10, 0, LAG_MS);
        IsrProposal shrink = state.maybeShrinkIsr(LAG_MS + 1).orElseThrow();
        assertEquals(List.of(1, 2), shrink.newIsr());
        assertEquals(Optional.empty(), state.maybeShrinkIsr(LAG_MS + 2), "one change in flight at a time");

        state.onIsrChangeFailed();
        assertEquals(List.of(1, 2, 3), state.isr());
        assertEquals(List.of(1, 2, 3), state.maximalIsr());
        assertEquals(Optional.empty(), state.pendingIsrChange());
        assertEquals(Optional.of(shrink), state.maybeShrinkIsr(LAG_MS + 2));
    }

    @Test
    void staleCommitIsIgnored() {
        LeaderState state = leader(List.of(1, 2, 3), 2, 0L);
        assertFalse(state.onIsrChangeCommitted(List.of(1), 10));
        assertEquals(List.of(1, 2, 3), state.isr());
        assertEquals(10, state.partitionEpoch());
    }

    // ---------------------------------------------------------------- expand

    @Test
    void followerJoinsOnlyOnceAtTheHighWatermarkAndTheLeaderEpochStart() {
        log.append(20);
        LeaderState state = leader(List.of(1, 2), 1, 15L);
        state.onFollowerFetch(2, 10, 0, 1);
        assertEquals(10, state.highWatermark());

        state.onFollowerFetch(3, 8, 0, 1);
        assertEquals(Optional.empty(), state.maybeExpandIsr(3), "below the high watermark");
        state.onFollowerFetch(3, 12, 0, 2);
        assertEquals(Optional.empty(), state.maybeExpandIsr(3), "at the high watermark, before the epoch start");
        state.onFollowerFetch(3, 15, 0, 3);
        IsrProposal expand = state.maybeExpandIsr(3).orElseThrow();
        assertEquals(List.of(1, 2, 3), expand.newIsr());
        assertEquals(IsrProposal.CAUGHT_UP, expand.reason());
        assertEquals(List.of(1, 2), state.isr());
        assertEquals(List.of(1, 2, 3), state.maximalIsr());
    }

    @Test
    void pendingExpansionCountsTheNewMemberInTheHighWatermark() {
        LeaderState state = leader(List.of(1, 2), 1, 0L);
        log.append(10);
        state.onFollowerFetch(2, 10, 0, 1);
        state.onFollowerFetch(3, 10, 0, 1);
        state.maybeExpandIsr(3).orElseThrow();
        log.append(10);
        state.onFollowerFetch(2, 20, 0, 2);
        assertEquals(10, state.highWatermark());
        assertEquals(Optional.empty(), state.maybeExpandIsr(3), "already pending");
    }

    @Test
    void membersAndStrangersAreNotProposedForExpansion() {
        LeaderState state = leader(List.of(1, 2), 1, 0L);
        assertEquals(Optional.empty(), state.maybeExpandIsr(2));
        assertEquals(Optional.empty(), state.maybeExpandIsr(3), "has not fetched yet");
        assertEquals(Optional.empty(), state.maybeExpandIsr(9));
        assertThrows(IllegalArgumentException.class, () -> state.onFollowerFetch(9, 0, 0, 1));
    }

    // ---------------------------------------------------------------- acks=all

    @Test
    void acksAllRefusesBeforeAppendWhenIsrIsBelowMinimum() {
        assertEquals(Errors.NOT_ENOUGH_REPLICAS, leader(List.of(1, 2), 3, 0L).checkEnoughReplicasForAppend());
        assertEquals(Errors.NONE, leader(List.of(1, 2), 2, 0L).checkEnoughReplicasForAppend());
    }

    @Test
    void acksAllCompletesWhenTheHighWatermarkPassesTheLastOffset() {
        LeaderState state = leader(List.of(1, 2, 3), 2, 0L);
        log.append(5);                              // offsets 0..4
        assertEquals(AppendStatus.PENDING, state.checkAppendCompleted(4));
        state.onFollowerFetch(2, 5, 0, 1);
        state.onFollowerFetch(3, 4, 0, 1);
        assertEquals(AppendStatus.PENDING, state.checkAppendCompleted(4));
        state.onFollowerFetch(3, 5, 0, 2);
        assertEquals(AppendStatus.DONE, state.checkAppendCompleted(4));
        assertEquals(Errors.NONE, AppendStatus.DONE.error());
    }

    @Test
    void acksAllFailsAfterAppendWhenTheIsrShrankBelowMinimum() {
        LeaderState state = leader(List.of(1, 2, 3), 3, 0L);
        log.append(5);
        state.onFollowerFetch(2, 5, 0, LAG_MS);
        state.onFollowerFetch(3, 2, 0, 1);
        assertEquals(AppendStatus.PENDING, state.checkAppendCompleted(4));
        IsrProposal shrink = state.maybeShrinkIsr(LAG_MS + 1).orElseThrow();
        assertEquals(AppendStatus.PENDING, state.checkAppendCompleted(4), "a pending shrink is not committed");
        state.onIsrChangeCommitted(shrink.newIsr(), 11);
        assertEquals(AppendStatus.NOT_ENOUGH_REPLICAS_AFTER_APPEND, state.checkAppendCompleted(4));
        assertEquals(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, AppendStatus.NOT_ENOUGH_REPLICAS_AFTER_APPEND.error());
        assertEquals(AppendStatus.DONE, state.checkAppendCompleted(1), "the high watermark already passed it");
        assertThrows(IllegalStateException.class, AppendStatus.PENDING::error);
    }

    // ---------------------------------------------------------------- DeleteRecords low watermark

    @Test
    void lowWatermarkSkipsDeadReplicasAndIsHeldBackByLaggingLiveOnes() {
        LeaderState state = leader(List.of(1, 2, 3), 2, 0L);
        log.append(100);
        log.setLogStartOffset(50);
        state.onFollowerFetch(2, 100, 40, 1);
        state.onFollowerFetch(3, 100, 10, 1);

        assertEquals(40, state.lowWatermark(Set.of(1, 2)), "replica 3 is dead");
        assertEquals(10, state.lowWatermark(Set.of(1, 2, 3)), "live and lagging replica 3 holds it back");
        assertEquals(50, state.lowWatermark(Set.of(1)));

        state.onFollowerFetch(2, 100, 50, 2);
        state.onFollowerFetch(3, 100, 50, 2);
        assertEquals(50, state.lowWatermark(Set.of(1, 2, 3)));
    }

    @Test
    void liveReplicaThatHasNotFetchedMakesTheLowWatermarkUnknown() {
        LeaderState state = leader(List.of(1, 2, 3), 2, 0L);
        assertEquals(FollowerState.UNKNOWN_OFFSET, state.lowWatermark(Set.of(1, 2, 3)));
    }

    @Test
    void constructorRejectsALeaderOutsideTheIsr() {
        assertThrows(IllegalArgumentException.class,
                () -> new LeaderState(LEADER, 1, 0, 0, List.of(1, 2), List.of(2), 1, LAG_MS, log, 0));
        assertThrows(IllegalArgumentException.class,
                () -> new LeaderState(LEADER, 1, 0, 0, List.of(1, 2), List.of(1, 3), 1, LAG_MS, log, 0));
    }
}
