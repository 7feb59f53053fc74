package io.tideline.node.group;

import static org.apache.kafka.common.protocol.Errors.GROUP_MAX_SIZE_REACHED;
import static org.apache.kafka.common.protocol.Errors.ILLEGAL_GENERATION;
import static org.apache.kafka.common.protocol.Errors.INCONSISTENT_GROUP_PROTOCOL;
import static org.apache.kafka.common.protocol.Errors.INVALID_GROUP_ID;
import static org.apache.kafka.common.protocol.Errors.INVALID_SESSION_TIMEOUT;
import static org.apache.kafka.common.protocol.Errors.MEMBER_ID_REQUIRED;
import static org.apache.kafka.common.protocol.Errors.NONE;
import static org.apache.kafka.common.protocol.Errors.REBALANCE_IN_PROGRESS;
import static org.apache.kafka.common.protocol.Errors.UNKNOWN_MEMBER_ID;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.node.metadata.GroupImage;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class GroupMembershipTest extends GroupTestSupport {
    private GroupCoordinator c;

    @BeforeEach
    void setUp() {
        quorum.brokers(1);
        c = coordinator(1, Map.of());
    }

    @Test
    void firstJoinWithoutIdGetsMemberIdRequiredAndTheRebalanceWaitsTheInitialDelay() {
        JoinGroupResponseData first = c.joinGroup(join("g", "", new byte[] {1}), "client", "/h", JOIN_VERSION).join();
        assertEquals(error(MEMBER_ID_REQUIRED), first.errorCode());
        assertTrue(first.memberId().startsWith("client-"));
        CompletableFuture<JoinGroupResponseData> joined = c.joinGroup(join("g", first.memberId(), new byte[] {1}),
                "client", "/h", JOIN_VERSION);
        assertFalse(joined.isDone(), "the first rebalance waits group.initial.rebalance.delay.ms");
        time.advance(INITIAL_DELAY_MS);
        JoinGroupResponseData r = joined.join();
        assertEquals(error(NONE), r.errorCode());
        assertEquals(1, r.generationId());
        assertEquals(first.memberId(), r.leader());
        assertEquals("range", r.protocolName());
        assertEquals(1, r.members().size(), "the leader gets the member list");
    }

    @Test
    void threeMembersGetOneGenerationTheLeaderTheirMetadataAndSyncHandsOutTheLeadersAssignment() {
        List<CompletableFuture<JoinGroupResponseData>> joins = List.of(joinNew(c, "g", "a"), joinNew(c, "g", "b"),
                joinNew(c, "g", "c"));
        time.advance(INITIAL_DELAY_MS);
        assertFalse(joins.get(0).isDone(), "members that joined during the initial delay extend it once");
        time.advance(INITIAL_DELAY_MS);
        List<JoinGroupResponseData> rs = joins.stream().map(CompletableFuture::join).toList();
        rs.forEach(r -> assertEquals(1, r.generationId()));
        JoinGroupResponseData leader = rs.stream().filter(r -> r.memberId().equals(r.leader())).findFirst().orElseThrow();
        assertEquals(3, leader.members().size());
        rs.stream().filter(r -> r != leader).forEach(r -> assertTrue(r.members().isEmpty()));

        JoinGroupResponseData follower = rs.stream().filter(r -> r != leader).findFirst().orElseThrow();
        CompletableFuture<SyncGroupResponseData> followerSync = c.syncGroup(sync("g", follower, Map.of()));
        assertFalse(followerSync.isDone(), "a follower waits for the leader's assignment");
        SyncGroupResponseData leaderSync = c.syncGroup(sync("g", leader, Map.of(
                rs.get(0).memberId(), new byte[] {10}, rs.get(1).memberId(), new byte[] {11},
                rs.get(2).memberId(), new byte[] {12}))).join();
        assertEquals(error(NONE), leaderSync.errorCode());
        byte expected = (byte) (10 + rs.indexOf(follower));
        assertArrayEquals(new byte[] {expected}, followerSync.join().assignment());
        GroupImage stored = quorum.image().group("g").orElseThrow();
        assertEquals(1, stored.generation(), "the completed rebalance is in the quorum");
        assertEquals(3, stored.metadata().orElseThrow().getMembersCount());
        assertEquals("Stable", c.describeGroup("g").summary().orElseThrow().state().kafkaName());
    }

    @Test
    void heartbeatsCheckMemberAndGenerationAndSignalARebalance() {
        JoinGroupResponseData a = stableGroupOfOne();
        assertEquals(error(NONE), c.heartbeat(heartbeat("g", a)).errorCode());
        assertEquals(error(ILLEGAL_GENERATION), c.heartbeat(heartbeat("g", a).setGenerationId(7)).errorCode());
        assertEquals(error(UNKNOWN_MEMBER_ID), c.heartbeat(heartbeat("g", a).setMemberId("nobody")).errorCode());
        CompletableFuture<JoinGroupResponseData> b = joinNew(c, "g", "b");
        assertEquals(error(REBALANCE_IN_PROGRESS), c.heartbeat(heartbeat("g", a)).errorCode());
        CompletableFuture<JoinGroupResponseData> aAgain = c.joinGroup(join("g", a.memberId(), new byte[] {1}), "a", "/h",
                JOIN_VERSION);
        assertEquals(2, aAgain.join().generationId(), "the rebalance completes once every known member rejoined");
        assertEquals(2, b.join().generationId());
    }

    @Test
    void aLeavingMemberMakesTheOthersRebalanceWithoutIt() {
        List<CompletableFuture<JoinGroupResponseData>> joins = List.of(joinNew(c, "g", "a"), joinNew(c, "g", "b"));
        time.advance(INITIAL_DELAY_MS);
        time.advance(INITIAL_DELAY_MS); // b joined during the delay: one more
        JoinGroupResponseData a = joins.get(0).join();
        JoinGroupResponseData b = joins.get(1).join();
        JoinGroupResponseData leader = a.memberId().equals(a.leader()) ? a : b;
        c.syncGroup(sync("g", leader, Map.of(a.memberId(), new byte[] {1}, b.memberId(), new byte[] {2}))).join();
        var left = c.leaveGroup(new LeaveGroupRequestData().setGroupId("g").setMembers(List.of(
                new LeaveGroupRequestData.MemberIdentity().setMemberId(b.memberId()))), (short) 5);
        assertEquals(error(NONE), left.members().get(0).errorCode());
        assertEquals(error(REBALANCE_IN_PROGRESS), c.heartbeat(heartbeat("g", a)).errorCode());
        JoinGroupResponseData again = c.joinGroup(join("g", a.memberId(), new byte[] {1}), "a", "/h", JOIN_VERSION).join();
        assertEquals(2, again.generationId());
        assertEquals(1, again.members().size(), "only the remaining member");
        assertEquals(error(UNKNOWN_MEMBER_ID), c.leaveGroup(new LeaveGroupRequestData().setGroupId("g")
                .setMemberId(b.memberId()), (short) 2).errorCode(), "v0-2 answer the member's error at the top");
    }

    @Test
    void aMemberWithoutHeartbeatsIsRemovedAfterItsSessionAndTheLastOneLeavesTheGroupEmpty() {
        JoinGroupResponseData a = stableGroupOfOne();
        time.advance(SESSION_MS - 1);
        assertEquals(error(NONE), c.heartbeat(heartbeat("g", a)).errorCode());
        time.advance(SESSION_MS - 1);
        assertEquals(error(NONE), c.heartbeat(heartbeat("g", a)).errorCode(), "heartbeats keep the session");
        time.advance(SESSION_MS);
        assertEquals(error(UNKNOWN_MEMBER_ID), c.heartbeat(heartbeat("g", a)).errorCode());
        assertEquals("Empty", c.describeGroup("g").summary().orElseThrow().state().kafkaName());
        GroupImage stored = quorum.image().group("g").orElseThrow();
        assertFalse(stored.hasMembers(), "the Empty group is stored too");
        assertEquals(2, stored.generation());
    }

    @Test
    void aMemberThatDoesNotRejoinInTheRebalanceTimeoutIsDropped() {
        JoinGroupResponseData a = stableGroupOfOne();
        CompletableFuture<JoinGroupResponseData> b = joinNew(c, "g", "b");
        time.advance(SESSION_MS / 2);
        c.heartbeat(heartbeat("g", a));
        time.advance(SESSION_MS / 2);
        c.heartbeat(heartbeat("g", a));
        assertFalse(b.isDone());
        time.advance(REBALANCE_MS);
        JoinGroupResponseData r = b.join();
        assertEquals(2, r.generationId());
        assertEquals(r.memberId(), r.leader(), "a, which never rejoined, is out");
        assertEquals(error(UNKNOWN_MEMBER_ID), c.heartbeat(heartbeat("g", a)).errorCode());
    }

    @Test
    void badJoinsGetKafkasErrors() {
        assertEquals(error(INVALID_SESSION_TIMEOUT), c.joinGroup(join("g", "", new byte[0]).setSessionTimeoutMs(5999),
                "x", "/h", JOIN_VERSION).join().errorCode());
        assertEquals(error(INVALID_SESSION_TIMEOUT), c.joinGroup(join("g", "", new byte[0]).setSessionTimeoutMs(1_800_001),
                "x", "/h", JOIN_VERSION).join().errorCode());
        assertEquals(error(INVALID_GROUP_ID), c.joinGroup(join("", "", new byte[0]), "x", "/h", JOIN_VERSION).join()
                .errorCode());
        assertEquals(error(UNKNOWN_MEMBER_ID), c.joinGroup(join("g", "made-up", new byte[0]), "x", "/h", JOIN_VERSION)
                .join().errorCode());
        stableGroupOfOne();
        assertEquals(error(INCONSISTENT_GROUP_PROTOCOL), c.joinGroup(join("g", "", new byte[0]).setProtocolType("connect"),
                "x", "/h", JOIN_VERSION).join().errorCode());
    }

    @Test
    void groupMaxSizeCountsMembersAndPendingIds() {
        GroupCoordinator small = coordinator(1, Map.of(GroupConfig.GROUP_MAX_SIZE_CONFIG, 2));
        joinNew(small, "s", "a");
        JoinGroupResponseData pending = small.joinGroup(join("s", "", new byte[0]), "b", "/h", JOIN_VERSION).join();
        assertEquals(error(MEMBER_ID_REQUIRED), pending.errorCode());
        assertEquals(error(GROUP_MAX_SIZE_REACHED), small.joinGroup(join("s", "", new byte[0]), "c", "/h", JOIN_VERSION)
                .join().errorCode());
    }

    @Test
    void aJoinBeforeVersion4JoinsAtOnceWithAnIdFromTheCoordinator() {
        CompletableFuture<JoinGroupResponseData> r = c.joinGroup(join("old", "", new byte[] {1}), "c", "/h", (short) 3);
        time.advance(INITIAL_DELAY_MS);
        assertEquals(error(NONE), r.join().errorCode());
        assertTrue(r.join().memberId().startsWith("c-"));
    }

    private JoinGroupResponseData stableGroupOfOne() {
        CompletableFuture<JoinGroupResponseData> f = joinNew(c, "g", "a");
        time.advance(INITIAL_DELAY_MS);
        JoinGroupResponseData a = f.join();
        assertEquals(error(NONE), c.syncGroup(sync("g", a, Map.of(a.memberId(), new byte[] {5}))).join().errorCode());
        return a;
    }
}
