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

    GroupMember(String memberId, String clientId, String clientHost, int sessionTimeoutMs, int rebalanceTimeoutMs,
                LinkedHashMap<String, byte[]> protocols) {
        this.memberId = memberId;
        this.clientId = clientId;
        this.clientHost = clientHost;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
        this.protocols = protocols;
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
