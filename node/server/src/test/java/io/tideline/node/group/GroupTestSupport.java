package io.tideline.node.group;

import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;

/** One or more coordinators over an {@link InMemoryQuorum}, on one MockTime. */
class GroupTestSupport {
    static final int SESSION_MS = 10_000;
    static final int REBALANCE_MS = 30_000;
    static final int INITIAL_DELAY_MS = 100;
    static final short JOIN_VERSION = 9;

    final MockTime time = new MockTime();
    final MockScheduler scheduler = new MockScheduler(time);
    final InMemoryQuorum quorum = new InMemoryQuorum();

    GroupCoordinator coordinator(int nodeId, Map<String, Object> overrides) {
        Map<String, Object> props = new HashMap<>();
        props.put(GroupConfig.GROUP_INITIAL_REBALANCE_DELAY_MS_CONFIG, INITIAL_DELAY_MS);
        props.putAll(overrides);
        return new GroupCoordinator(nodeId, new GroupConfig(props), time, scheduler, quorum.tracker(), quorum).start();
    }

    static JoinGroupRequestData join(String group, String memberId, byte[] metadata) {
        JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(metadata));
        return new JoinGroupRequestData().setGroupId(group).setMemberId(memberId).setSessionTimeoutMs(SESSION_MS)
                .setRebalanceTimeoutMs(REBALANCE_MS).setProtocolType("consumer").setProtocols(protocols);
    }

    /** The two-step join of v4+: MEMBER_ID_REQUIRED, then the join with the id; returns the pending answer. */
    static CompletableFuture<JoinGroupResponseData> joinNew(GroupCoordinator c, String group, String client) {
        JoinGroupResponseData first = c.joinGroup(join(group, "", new byte[] {1}), client, "/127.0.0.1", JOIN_VERSION)
                .join();
        if (first.errorCode() != org.apache.kafka.common.protocol.Errors.MEMBER_ID_REQUIRED.code()) {
            throw new AssertionError("expected MEMBER_ID_REQUIRED, got " + first);
        }
        return c.joinGroup(join(group, first.memberId(), new byte[] {1}), client, "/127.0.0.1", JOIN_VERSION);
    }

    static SyncGroupRequestData sync(String group, JoinGroupResponseData joined, Map<String, byte[]> assignments) {
        SyncGroupRequestData r = new SyncGroupRequestData().setGroupId(group).setGenerationId(joined.generationId())
                .setMemberId(joined.memberId()).setProtocolType("consumer").setProtocolName("range");
        assignments.forEach((m, a) -> r.assignments().add(new SyncGroupRequestData.SyncGroupRequestAssignment()
                .setMemberId(m).setAssignment(a)));
        return r;
    }

    static HeartbeatRequestData heartbeat(String group, JoinGroupResponseData joined) {
        return new HeartbeatRequestData().setGroupId(group).setGenerationId(joined.generationId())
                .setMemberId(joined.memberId());
    }

    static OffsetCommitRequestData commit(String group, int generation, String memberId, String topic, int partition,
                                          long offset) {
        return new OffsetCommitRequestData().setGroupId(group).setGenerationIdOrMemberEpoch(generation)
                .setMemberId(memberId).setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                        .setName(topic).setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                .setPartitionIndex(partition).setCommittedOffset(offset).setCommittedMetadata("m")))));
    }

    static short error(org.apache.kafka.common.protocol.Errors e) {
        return e.code();
    }
}
