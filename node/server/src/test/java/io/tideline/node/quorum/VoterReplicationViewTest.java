package io.tideline.node.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.proto.metadata.VoterReplication;
import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.ratis.proto.RaftProtos.LeaderInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

/**
 * How the leader's two Ratis reports (follower answer times, follower match indices) are paired, against a division
 * whose reports the test scripts: the real one is covered by DescribeQuorumApiTest on a three-node cluster, but it
 * never restarts an appender between the two calls on purpose.
 */
class VoterReplicationViewTest {
    private static final long NOW = 1_000_000L;
    private static final long LEADER_NEXT_INDEX = 50;

    @Test
    void eachFollowerGetsItsOwnMatchIndexAndAnswerTime() {
        RoleInfoProto order = role(Map.entry(3, 40L), Map.entry(2, 7L));
        List<VoterReplication> voters = VoterReplicationView.of(division(new ArrayDeque<>(List.of(order, order)),
                new long[] {44, 49}), NOW);
        assertEquals(List.of(
                voter(1, LEADER_NEXT_INDEX, NOW, NOW),
                voter(2, 50, NOW - 7, NOW - 7),
                voter(3, 45, NOW - 40, -1)), voters);
    }

    @Test
    void anOrderThatKeepsChangingLeavesTheOffsetsUnknownRatherThanPairedWrongly() {
        RoleInfoProto a = role(Map.entry(2, 7L), Map.entry(3, 40L));
        RoleInfoProto b = role(Map.entry(3, 40L), Map.entry(2, 7L));
        Deque<RoleInfoProto> reports = new ArrayDeque<>();
        for (int i = 0; i < VoterReplicationView.PAIRING_ATTEMPTS; i++) {
            reports.add(a);
            reports.add(b);
        }
        List<VoterReplication> voters = VoterReplicationView.of(division(reports, new long[] {49, 44}), NOW);
        assertEquals(List.of(
                voter(1, LEADER_NEXT_INDEX, NOW, NOW),
                voter(2, -1, NOW - 7, -1),
                voter(3, -1, NOW - 40, -1)), voters);
    }

    @Test
    void aChangedOrderIsReadAgain() {
        RoleInfoProto a = role(Map.entry(2, 7L), Map.entry(3, 40L));
        RoleInfoProto b = role(Map.entry(3, 40L), Map.entry(2, 7L));
        List<VoterReplication> voters = VoterReplicationView.of(division(new ArrayDeque<>(List.of(a, b, b, b)),
                new long[] {44, 49}), NOW);
        assertEquals(voter(2, 50, NOW - 7, NOW - 7), voters.get(1));
        assertEquals(voter(3, 45, NOW - 40, -1), voters.get(2));
    }

    @SafeVarargs
    private static RoleInfoProto role(Map.Entry<Integer, Long>... followers) {
        LeaderInfoProto.Builder leader = LeaderInfoProto.newBuilder().setTerm(4);
        for (Map.Entry<Integer, Long> f : followers) {
            leader.addFollowerInfo(ServerRpcProto.newBuilder()
                    .setId(RaftPeerProto.newBuilder().setId(ByteString.copyFromUtf8("n" + f.getKey())))
                    .setLastRpcElapsedTimeMs(f.getValue()));
        }
        return RoleInfoProto.newBuilder().setLeaderInfo(leader).build();
    }

    private static VoterReplication voter(int id, long end, long contact, long caughtUp) {
        return VoterReplication.newBuilder().setNodeId(id).setLogEndOffset(end).setLastContactMs(contact)
                .setLastCaughtUpMs(caughtUp).build();
    }

    /** Node 1 leads voters 1-3; each getRoleInfoProto call takes the next report. */
    private static RaftServer.Division division(Deque<RoleInfoProto> reports, long[] matchIndices) {
        DivisionInfo info = proxy(DivisionInfo.class, name -> switch (name) {
            case "getRoleInfoProto" -> reports.size() > 1 ? reports.poll() : reports.peek();
            case "getFollowerMatchIndices" -> matchIndices.clone();
            default -> throw new UnsupportedOperationException(name);
        });
        RaftLog log = proxy(RaftLog.class, name -> switch (name) {
            case "getNextIndex" -> LEADER_NEXT_INDEX;
            default -> throw new UnsupportedOperationException(name);
        });
        RaftConfiguration conf = proxy(RaftConfiguration.class, name -> switch (name) {
            case "getCurrentPeers" -> List.of(peer(1), peer(2), peer(3));
            default -> throw new UnsupportedOperationException(name);
        });
        return proxy(RaftServer.Division.class, name -> switch (name) {
            case "getInfo" -> info;
            case "getRaftLog" -> log;
            case "getRaftConf" -> conf;
            case "getId" -> QuorumIds.peerId(1);
            default -> throw new UnsupportedOperationException(name);
        });
    }

    private static RaftPeer peer(int id) {
        return RaftPeer.newBuilder().setId(QuorumIds.peerId(id)).setAddress("127.0.0.1:" + (9000 + id)).build();
    }

    private static <T> T proxy(Class<T> type, Function<String, Object> answers) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (p, method, args) -> answers.apply(method.getName())));
    }
}
