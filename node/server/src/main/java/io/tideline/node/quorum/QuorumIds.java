package io.tideline.node.quorum;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * How Tideline names things in Ratis, in one place so that servers and clients agree: a voter with
 * node id 3 is peer {@code n3}, and the metadata group id is derived from the cluster id, so every
 * node of a cluster computes the same group without exchanging it, and a node pointed at another
 * cluster's voters is refused by Ratis (unknown group) instead of joining it.
 */
public final class QuorumIds {
    private QuorumIds() {
    }

    public static RaftPeerId peerId(int nodeId) {
        return RaftPeerId.valueOf("n" + nodeId);
    }

    /** The node id of a peer named by {@link #peerId}; empty for anything else. */
    public static Optional<Integer> nodeId(RaftPeerId peerId) {
        if (peerId == null) {
            return Optional.empty();
        }
        String s = peerId.toString();
        if (s.length() < 2 || s.charAt(0) != 'n') {
            return Optional.empty();
        }
        try {
            return Optional.of(Integer.parseInt(s.substring(1)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    public static RaftGroupId groupId(String clusterId) {
        if (clusterId == null || clusterId.isEmpty()) {
            throw new IllegalArgumentException("a cluster id is required to name the metadata quorum");
        }
        return RaftGroupId.valueOf(UUID.nameUUIDFromBytes(("tideline-metadata:" + clusterId).getBytes(StandardCharsets.UTF_8)));
    }

    /** The metadata group: every voter, in node id order. */
    public static RaftGroup group(String clusterId, Map<Integer, InetSocketAddress> voters) {
        if (voters.isEmpty()) {
            throw new IllegalArgumentException("the metadata quorum needs at least one voter");
        }
        List<RaftPeer> peers = new ArrayList<>();
        for (Map.Entry<Integer, InetSocketAddress> e : new TreeMap<>(voters).entrySet()) {
            peers.add(RaftPeer.newBuilder().setId(peerId(e.getKey())).setAddress(hostPort(e.getValue())).build());
        }
        return RaftGroup.valueOf(groupId(clusterId), peers);
    }

    /**
     * {@code host:port} of a voter address as configured, for Ratis and for log lines. The voters are
     * unresolved addresses, whose {@code toString} reads {@code 127.0.0.1/<unresolved>:9193}.
     */
    public static String hostPort(InetSocketAddress address) {
        String host = address.getHostString();
        // An IPv6 literal needs brackets, or its colons run into the port's ("::1:9093").
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
    }
}
