package io.tideline.node.group;

import static org.apache.kafka.common.protocol.Errors.COORDINATOR_NOT_AVAILABLE;
import static org.apache.kafka.common.protocol.Errors.FENCED_INSTANCE_ID;
import static org.apache.kafka.common.protocol.Errors.GROUP_MAX_SIZE_REACHED;
import static org.apache.kafka.common.protocol.Errors.INVALID_REQUEST;
import static org.apache.kafka.common.protocol.Errors.NONE;
import static org.apache.kafka.common.protocol.Errors.REBALANCE_IN_PROGRESS;
import static org.apache.kafka.common.protocol.Errors.UNKNOWN_MEMBER_ID;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.proto.metadata.GroupMemberRecord;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Static membership (group.instance.id, KIP-345): docs/behaviours.md B174-B177. */
class StaticMembershipTest extends GroupTestSupport {
    private GroupCoordinator c;

    @BeforeEach
    void setUp() {
        quorum.brokers(1);
        c = coordinator(1, Map.of());
    }

    private CompletableFuture<JoinGroupResponseData> joinStatic(GroupCoordinator coordinator, String instance,
                                                                String memberId, short version) {
        return coordinator.joinGroup(join("g", memberId, new byte[] {1}).setGroupInstanceId(instance), "client-" + instance,
                "/127.0.0.1", version);
    }

    /** Static members a and b, Stable at generation 1 with assignments {a: 10, b: 11}; returns [a, b]. */
    private List<JoinGroupResponseData> stableStaticGroup() {
        CompletableFuture<JoinGroupResponseData> fa = joinStatic(c, "a", "", JOIN_VERSION);
        CompletableFuture<JoinGroupResponseData> fb = joinStatic(c, "b", "", JOIN_VERSION);
        time.advance(INITIAL_DELAY_MS);
        time.advance(INITIAL_DELAY_MS);
        JoinGroupResponseData a = fa.join();
        JoinGroupResponseData b = fb.join();
        assertEquals(error(NONE), a.errorCode());
        assertTrue(a.memberId().startsWith("a-"), "a static member's id starts with its instance id: " + a.memberId());
        assertEquals(a.memberId(), a.leader(), "a joined first");
        CompletableFuture<SyncGroupResponseData> syncB = c.syncGroup(sync("g", b, Map.of()));
        assertEquals(error(NONE), c.syncGroup(sync("g", a, Map.of(a.memberId(), new byte[] {10},
                b.memberId(), new byte[] {11}))).join().errorCode());
        assertArrayEquals(new byte[] {11}, syncB.join().assignment());
        return List.of(a, b);
    }

    @Test
    void aStaticMemberJoinsWithoutMemberIdRequiredAndTheLeaderSeesInstanceIds() {
        JoinGroupResponseData a = stableStaticGroup().get(0);
        assertEquals(2, a.members().size());
        assertEquals(List.of("a", "b"), a.members().stream()
                .map(JoinGroupResponseData.JoinGroupResponseMember::groupInstanceId).toList());
        List<GroupMemberRecord> stored = quorum.image().group("g").orElseThrow().metadata().orElseThrow().getMembersList();
        assertEquals(List.of("a", "b"), stored.stream().map(GroupMemberRecord::getGroupInstanceId).toList());
        assertEquals(List.of("a", "b"), c.describeGroup("g").summary().orElseThrow().members().stream()
                .map(GroupAdmin.MemberSummary::groupInstanceId).toList());
    }

    @Test
    void aRestartedFollowerGetsANewMemberIdAndItsAssignmentWithoutARebalance() {
        List<JoinGroupResponseData> ab = stableStaticGroup();
        JoinGroupResponseData a = ab.get(0);
        JoinGroupResponseData b = ab.get(1);
        JoinGroupResponseData again = joinStatic(c, "b", "", JOIN_VERSION).join();
        assertEquals(error(NONE), again.errorCode());
        assertNotEquals(b.memberId(), again.memberId());
        assertEquals(1, again.generationId(), "no new generation");
        assertEquals(a.memberId(), again.leader());
        assertTrue(again.members().isEmpty(), "a follower gets no member list");
        assertFalse(again.skipAssignment());
        assertArrayEquals(new byte[] {11}, c.syncGroup(sync("g", again, Map.of())).join().assignment(),
                "the Stable group hands the old assignment to the new member id");
        assertEquals(error(NONE), c.heartbeat(heartbeat("g", a)).errorCode(), "the other member sees no rebalance");
        assertEquals("Stable", c.describeGroup("g").summary().orElseThrow().state().kafkaName());
        var stored = quorum.image().group("g").orElseThrow();
        assertEquals(1, stored.generation());
        assertEquals(List.of(a.memberId(), again.memberId()), stored.metadata().orElseThrow().getMembersList().stream()
                .map(GroupMemberRecord::getMemberId).toList(), "the new member id is stored, at the same generation");
        assertEquals(error(NONE), c.commitOffsets(commit("g", 1, again.memberId(), "t", 0, 5).setGroupInstanceId("b"))
                .join().topics().get(0).partitions().get(0).errorCode(), "the controller accepts its commits");
    }

    @Test
    void theReplacedMemberIdIsFencedOnEveryRequest() {
        JoinGroupResponseData b = stableStaticGroup().get(1);
        JoinGroupResponseData again = joinStatic(c, "b", "", JOIN_VERSION).join();
        assertEquals(error(FENCED_INSTANCE_ID), c.heartbeat(heartbeat("g", b).setGroupInstanceId("b")).errorCode());
        assertEquals(error(FENCED_INSTANCE_ID), c.syncGroup(sync("g", b, Map.of()).setGroupInstanceId("b")).join()
                .errorCode());
        assertEquals(error(FENCED_INSTANCE_ID), c.commitOffsets(commit("g", 1, b.memberId(), "t", 0, 5)
                .setGroupInstanceId("b")).join().topics().get(0).partitions().get(0).errorCode());
        assertEquals(error(FENCED_INSTANCE_ID), joinStatic(c, "b", b.memberId(), JOIN_VERSION).join().errorCode());
        LeaveGroupResponseData left = c.leaveGroup(new LeaveGroupRequestData().setGroupId("g").setMembers(List.of(
                new LeaveGroupRequestData.MemberIdentity().setMemberId(b.memberId()).setGroupInstanceId("b"))), (short) 5);
        assertEquals(error(FENCED_INSTANCE_ID), left.members().get(0).errorCode());
        assertEquals(error(UNKNOWN_MEMBER_ID), c.heartbeat(heartbeat("g", b)).errorCode(),
                "without its instance id the old id is just unknown");
        assertEquals(error(NONE), c.heartbeat(heartbeat("g", again).setGroupInstanceId("b")).errorCode(),
                "the fenced requests changed nothing");
        assertEquals(error(UNKNOWN_MEMBER_ID), c.heartbeat(heartbeat("g", again).setGroupInstanceId("zzz")).errorCode(),
                "an instance id the group does not know");
    }

    @Test
    void aSecondLiveInstanceFencesTheWaitingRequestsOfTheFirst() {
        List<JoinGroupResponseData> ab = stableStaticGroup();
        CompletableFuture<JoinGroupResponseData> aRejoin = joinStatic(c, "a", ab.get(0).memberId(), JOIN_VERSION);
        assertFalse(aRejoin.isDone(), "a leader's rejoin rebalances; the rebalance waits for b");
        JoinGroupResponseData b2 = joinStatic(c, "b", ab.get(1).memberId(), JOIN_VERSION).join();
        assertEquals(2, b2.generationId());
        JoinGroupResponseData a2 = aRejoin.join();
        CompletableFuture<SyncGroupResponseData> waiting = c.syncGroup(sync("g", b2, Map.of()));
        assertFalse(waiting.isDone(), "b waits for the leader's assignment");
        CompletableFuture<JoinGroupResponseData> twin = joinStatic(c, "b", "", JOIN_VERSION);
        assertEquals(error(FENCED_INSTANCE_ID), waiting.join().errorCode(), "the first instance's SyncGroup is fenced");
        assertEquals(error(REBALANCE_IN_PROGRESS), c.syncGroup(sync("g", a2, Map.of())).join().errorCode(),
                "a rejoin during CompletingRebalance abandons that generation");
        joinStatic(c, "a", a2.memberId(), JOIN_VERSION);
        assertEquals(error(NONE), twin.join().errorCode());
        assertEquals(3, twin.join().generationId());
        assertEquals(error(FENCED_INSTANCE_ID), c.heartbeat(heartbeat("g", b2).setGroupInstanceId("b")).errorCode());
    }

    @Test
    void aRestartedLeaderGetsTheMembersWithSkipAssignmentFromVersion9AndTheOldLeaderBefore() {
        JoinGroupResponseData a = stableStaticGroup().get(0);
        JoinGroupResponseData v9 = joinStatic(c, "a", "", (short) 9).join();
        assertEquals(error(NONE), v9.errorCode());
        assertEquals(v9.memberId(), v9.leader(), "the new member id leads");
        assertTrue(v9.skipAssignment());
        assertEquals(2, v9.members().size());
        assertEquals(1, v9.generationId());
        JoinGroupResponseData v8 = joinStatic(c, "a", "", (short) 8).join();
        assertEquals(v9.memberId(), v8.leader(), "before v9 the answer names the leader as it was");
        assertNotEquals(v8.memberId(), v8.leader());
        assertTrue(v8.members().isEmpty());
        assertArrayEquals(new byte[] {10}, c.syncGroup(sync("g", v8, Map.of())).join().assignment());
        assertEquals(v8.memberId(), quorum.image().group("g").orElseThrow().metadata().orElseThrow().getLeader());
        assertNotEquals(a.memberId(), v8.memberId());
    }

    @Test
    void aStaticMemberThatStopsLeavesOnlyWhenItsSessionExpires() {
        List<JoinGroupResponseData> ab = stableStaticGroup();
        JoinGroupResponseData a = ab.get(0);
        for (int i = 0; i < 3; i++) {
            time.advance(SESSION_MS / 3);
            assertEquals(error(NONE), c.heartbeat(heartbeat("g", a)).errorCode(), "b is still a member");
        }
        time.advance(SESSION_MS / 3);
        assertEquals(error(REBALANCE_IN_PROGRESS), c.heartbeat(heartbeat("g", a)).errorCode(),
                "b's session expired: the group rebalances without it");
        JoinGroupResponseData rejoined = joinStatic(c, "a", a.memberId(), JOIN_VERSION).join();
        assertEquals(1, rejoined.members().size());
        assertEquals(error(NONE), c.syncGroup(sync("g", rejoined, Map.of(rejoined.memberId(), new byte[] {10}))).join()
                .errorCode());
        CompletableFuture<JoinGroupResponseData> b = joinStatic(c, "b", "", JOIN_VERSION);
        assertFalse(b.isDone(), "b's instance id is free again: it joins as a new member, and the group rebalances");
        joinStatic(c, "a", rejoined.memberId(), JOIN_VERSION);
        assertEquals(error(NONE), b.join().errorCode());
        assertEquals(3, b.join().generationId());
    }

    @Test
    void leaveGroupByInstanceIdRemovesTheStaticMember() {
        List<JoinGroupResponseData> ab = stableStaticGroup();
        LeaveGroupResponseData left = c.leaveGroup(new LeaveGroupRequestData().setGroupId("g").setMembers(List.of(
                new LeaveGroupRequestData.MemberIdentity().setGroupInstanceId("b"),
                new LeaveGroupRequestData.MemberIdentity().setGroupInstanceId("nobody"))), (short) 4);
        assertEquals(error(NONE), left.members().get(0).errorCode());
        assertEquals("b", left.members().get(0).groupInstanceId());
        assertEquals(error(UNKNOWN_MEMBER_ID), left.members().get(1).errorCode());
        assertEquals(error(REBALANCE_IN_PROGRESS), c.heartbeat(heartbeat("g", ab.get(0))).errorCode());
        assertEquals(error(UNKNOWN_MEMBER_ID), c.heartbeat(heartbeat("g", ab.get(1)).setGroupInstanceId("b"))
                .errorCode());
    }

    @Test
    void aCoordinatorThatLoadsTheGroupKnowsItsStaticMembers() {
        List<JoinGroupResponseData> ab = stableStaticGroup();
        c.close();
        GroupCoordinator reloaded = coordinator(1, Map.of());
        JoinGroupResponseData again = joinStatic(reloaded, "b", "", JOIN_VERSION).join();
        assertEquals(error(NONE), again.errorCode());
        assertEquals(1, again.generationId(), "the loaded group knows b's instance id: no rebalance");
        assertArrayEquals(new byte[] {11}, reloaded.syncGroup(sync("g", again, Map.of())).join().assignment());
        assertEquals(error(FENCED_INSTANCE_ID), reloaded.heartbeat(heartbeat("g", ab.get(1)).setGroupInstanceId("b"))
                .errorCode());
    }

    @Test
    void aReplacementThatCannotBeStoredPutsTheOldMemberIdBack() {
        JoinGroupResponseData b = stableStaticGroup().get(1);
        quorum.hold(true);
        CompletableFuture<JoinGroupResponseData> again = joinStatic(c, "b", "", JOIN_VERSION);
        assertFalse(again.isDone(), "the answer waits for the new member id to be stored");
        assertEquals(error(FENCED_INSTANCE_ID), c.heartbeat(heartbeat("g", b).setGroupInstanceId("b")).errorCode());
        assertTrue(quorum.failOne());
        quorum.hold(false);
        assertEquals(error(COORDINATOR_NOT_AVAILABLE), again.join().errorCode());
        assertEquals(error(NONE), c.heartbeat(heartbeat("g", b).setGroupInstanceId("b")).errorCode(),
                "the old member id holds the instance again");
    }

    @Test
    void staticMembersCountTowardsGroupMaxSizeButAReplacementAddsNone() {
        GroupCoordinator small = coordinator(1, Map.of(GroupConfig.GROUP_MAX_SIZE_CONFIG, 2));
        CompletableFuture<JoinGroupResponseData> fa = joinStatic(small, "a", "", JOIN_VERSION);
        CompletableFuture<JoinGroupResponseData> fb = joinStatic(small, "b", "", JOIN_VERSION);
        assertEquals(error(GROUP_MAX_SIZE_REACHED), joinStatic(small, "c", "", JOIN_VERSION).join().errorCode());
        time.advance(INITIAL_DELAY_MS);
        time.advance(INITIAL_DELAY_MS);
        JoinGroupResponseData a = fa.join();
        JoinGroupResponseData b = fb.join();
        small.syncGroup(sync("g", a, Map.of(a.memberId(), new byte[] {1}, b.memberId(), new byte[] {2}))).join();
        JoinGroupResponseData again = joinStatic(small, "b", "", JOIN_VERSION).join();
        assertEquals(error(NONE), again.errorCode(), "a full group still takes a restarted static member back");
        assertEquals(1, again.generationId());
    }

    @Test
    void anEmptyOrOverlongInstanceIdIsRefused() {
        assertEquals(error(INVALID_REQUEST), joinStatic(c, "", "", JOIN_VERSION).join().errorCode());
        assertEquals(error(INVALID_REQUEST), joinStatic(c, "i".repeat(250), "", JOIN_VERSION).join().errorCode());
        CompletableFuture<JoinGroupResponseData> longest = joinStatic(c, "i".repeat(249), "", JOIN_VERSION);
        time.advance(INITIAL_DELAY_MS);
        assertEquals(error(NONE), longest.join().errorCode());
        assertNull(c.describeGroup("nothing").summary().orElse(null));
    }
}
