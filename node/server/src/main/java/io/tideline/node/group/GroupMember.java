package io.tideline.node.group;

import io.tideline.common.time.Scheduler;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;

/** One member of a classic group. Not thread-safe: its group's lock guards it. */
final class GroupMember {
    final String memberId;
    /** group.instance.id of a static member (KIP-345), null for a dynamic one. */
    final String groupInstanceId;
    String clientId;
    String clientHost;
    int sessionTimeoutMs;
    int rebalanceTimeoutMs;
    /** Protocol name -> the member's metadata for it, in the member's order of preference. */
    LinkedHashMap<String, byte[]> protocols;
    byte[] assignment = new byte[0];
    /** Set while a JoinGroup waits for the rebalance to complete. */
    CompletableFuture<JoinGroupResponseData> awaitingJoin;
    /** Set while a SyncGroup waits for the leader's assignment. */
    CompletableFuture<SyncGroupResponseData> awaitingSync;
    long lastHeartbeatMs;
    Scheduler.Cancellable sessionTimer;

    GroupMember(String memberId, String groupInstanceId, String clientId, String clientHost, int sessionTimeoutMs,
                int rebalanceTimeoutMs, LinkedHashMap<String, byte[]> protocols) {
        this.memberId = memberId;
        this.groupInstanceId = groupInstanceId;
        this.clientId = clientId;
        this.clientHost = clientHost;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
        this.protocols = protocols;
    }

    /**
     * The same static member under a new member id: what it was given (assignment, protocols, timeouts, client)
     * carries over, its waiting requests and timer do not (docs/behaviours.md B174).
     */
    GroupMember withMemberId(String newMemberId) {
        GroupMember m = new GroupMember(newMemberId, groupInstanceId, clientId, clientHost, sessionTimeoutMs,
                rebalanceTimeoutMs, protocols);
        m.assignment = assignment;
        m.lastHeartbeatMs = lastHeartbeatMs;
        return m;
    }

    byte[] metadata(String protocol) {
        byte[] m = protocols.get(protocol);
        return m == null ? new byte[0] : m;
    }

    boolean sameProtocols(Map<String, byte[]> other) {
        if (!protocols.keySet().stream().toList().equals(other.keySet().stream().toList())) {
            return false;
        }
        return protocols.entrySet().stream().allMatch(e -> Arrays.equals(e.getValue(), other.get(e.getKey())));
    }
}
