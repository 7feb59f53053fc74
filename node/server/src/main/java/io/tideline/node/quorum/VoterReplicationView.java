package io.tideline.node.quorum;

import io.tideline.proto.metadata.VoterReplication;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.ratis.proto.RaftProtos.LeaderInfoProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;

/**
 * Each voter's replication as the Raft leader's Ratis division reports it: the follower match indices
 * ({@code DivisionInfo.getFollowerMatchIndices}) and the time since each follower last answered
 * ({@code RoleInfoProto.leaderInfo.followerInfo}). Both lists come from the leader's log appenders in the same order,
 * but Ratis offers them in two calls and restarts an appender (changing the order) when its stream fails, so the
 * pairing is accepted only when the follower order is the same before and after reading the indices; when it keeps
 * changing, the indices are reported unknown (-1) rather than paired wrongly.
 *
 * <p>Offsets follow Kafka's convention (an end offset is the next offset): a voter's {@code log_end_offset} is its
 * match index + 1, the leader's its last index + 1. A follower counts as caught up when it holds the leader's last
 * entry; its last-caught-up time is then its last answer, else unknown (Ratis keeps no history of it).
 *
 * <p>Stateless; call it on the leader (a follower's division reports no followers).
 */
final class VoterReplicationView {
    static final int PAIRING_ATTEMPTS = 3;

    private VoterReplicationView() {
    }

    /**
     * @param leader the leader's division
     * @param nowMs  the leader's clock (the times reported are {@code nowMs} minus Ratis' elapsed times)
     * @return every voter of the current configuration, the leader included, sorted by node id
     */
    static List<VoterReplication> of(RaftServer.Division leader, long nowMs) {
        long leaderEnd = leader.getRaftLog().getNextIndex();
        Map<Integer, VoterReplication> out = new TreeMap<>();
        for (RaftPeer peer : leader.getRaftConf().getCurrentPeers()) {
            QuorumIds.nodeId(peer.getId()).ifPresent(id -> out.put(id, VoterReplication.newBuilder().setNodeId(id)
                    .setLogEndOffset(-1).setLastContactMs(-1).setLastCaughtUpMs(-1).build()));
        }
        QuorumIds.nodeId(leader.getId()).ifPresent(id -> out.put(id, VoterReplication.newBuilder().setNodeId(id)
                .setLogEndOffset(leaderEnd).setLastContactMs(nowMs).setLastCaughtUpMs(nowMs).build()));
        Followers followers = pairedFollowers(leader);
        for (int i = 0; i < followers.ids().size(); i++) {
            Optional<Integer> id = QuorumIds.nodeId(followers.ids().get(i));
            if (id.isEmpty() || !out.containsKey(id.get())) {
                continue; // a peer being added or removed: not a voter of the current configuration
            }
            long contact = nowMs - followers.elapsedMs().get(i);
            long end = followers.matchIndices() == null ? -1 : followers.matchIndices()[i] + 1;
            out.put(id.get(), VoterReplication.newBuilder().setNodeId(id.get()).setLogEndOffset(end)
                    .setLastContactMs(contact).setLastCaughtUpMs(end >= leaderEnd ? contact : -1).build());
        }
        return new ArrayList<>(out.values());
    }

    /** The followers in appender order; {@code matchIndices} null when no consistent pairing was read. */
    private record Followers(List<RaftPeerId> ids, List<Long> elapsedMs, long[] matchIndices) {
    }

    private static Followers pairedFollowers(RaftServer.Division leader) {
        Followers last = new Followers(List.of(), List.of(), null);
        for (int attempt = 0; attempt < PAIRING_ATTEMPTS; attempt++) {
            Followers before = followers(leader.getInfo().getRoleInfoProto(), null);
            long[] match = leader.getInfo().getFollowerMatchIndices();
            Followers after = followers(leader.getInfo().getRoleInfoProto(), match);
            if (match != null && before.ids().equals(after.ids()) && match.length == after.ids().size()) {
                return after;
            }
            last = new Followers(after.ids(), after.elapsedMs(), null);
        }
        return last;
    }

    private static Followers followers(RoleInfoProto role, long[] match) {
        List<RaftPeerId> ids = new ArrayList<>();
        List<Long> elapsed = new ArrayList<>();
        if (role.hasLeaderInfo()) {
            LeaderInfoProto info = role.getLeaderInfo();
            for (ServerRpcProto f : info.getFollowerInfoList()) {
                ids.add(RaftPeerId.valueOf(f.getId().getId()));
                elapsed.add(f.getLastRpcElapsedTimeMs());
            }
        }
        return new Followers(ids, elapsed, match);
    }
}
