package io.tideline.node.kafka;

import io.tideline.proto.metadata.BrokerLiveness;
import io.tideline.proto.metadata.QuorumStatus;
import io.tideline.proto.metadata.VoterReplication;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.DescribeQuorumResponseData.PartitionData;
import org.apache.kafka.common.message.DescribeQuorumResponseData.ReplicaState;
import org.apache.kafka.common.protocol.Errors;

/**
 * The Raft leader's {@link QuorumStatus} as Kafka's DescribeQuorum partition data (the mapping is
 * {@link DescribeQuorumApi}'s). A pure function of its inputs.
 */
final class QuorumStates {
    private QuorumStates() {
    }

    /**
     * @param voterIds {@code controller.quorum.voters}' ids: a broker among them is never an observer
     * @return a response with the one metadata partition and no Nodes (those depend on the request version)
     */
    static DescribeQuorumResponseData partition(QuorumStatus q, Set<Integer> voterIds, String topic) {
        PartitionData partition = new PartitionData().setPartitionIndex(0).setErrorCode(Errors.NONE.code())
                .setLeaderId(q.getLeaderId()).setLeaderEpoch(epoch(q.getLeaderTerm()))
                .setHighWatermark(q.getCommittedOffset() < 0 ? -1 : q.getCommittedOffset() + 1)
                .setCurrentVoters(voters(q.getVotersList())).setObservers(observers(q, voterIds));
        return new DescribeQuorumResponseData().setTopics(List.of(
                new DescribeQuorumResponseData.TopicData().setTopicName(topic).setPartitions(List.of(partition))));
    }

    /** Kafka's epoch is an int32, a Raft term an int64 that never gets near 2^31 in practice. */
    static int epoch(long term) {
        return (int) Math.min(term, Integer.MAX_VALUE);
    }

    private static List<ReplicaState> voters(List<VoterReplication> voters) {
        List<ReplicaState> out = new ArrayList<>(voters.size());
        for (VoterReplication v : voters) {
            out.add(new ReplicaState().setReplicaId(v.getNodeId()).setLogEndOffset(v.getLogEndOffset())
                    .setLastFetchTimestamp(v.getLastContactMs()).setLastCaughtUpTimestamp(v.getLastCaughtUpMs()));
        }
        return out;
    }

    /** Brokers that heartbeated to this leader and are not voters, at the metadata offset they reported. */
    private static List<ReplicaState> observers(QuorumStatus q, Set<Integer> voterIds) {
        List<ReplicaState> out = new ArrayList<>();
        for (BrokerLiveness b : q.getLivenessList()) {
            if (voterIds.contains(b.getBrokerId())) {
                continue;
            }
            long end = b.getMetadataOffset() < 0 ? -1 : b.getMetadataOffset() + 1;
            long caughtUp = b.getLastHeartbeatMs() >= 0 && end > q.getCommittedOffset() ? b.getLastHeartbeatMs() : -1;
            out.add(new ReplicaState().setReplicaId(b.getBrokerId()).setLogEndOffset(end)
                    .setLastFetchTimestamp(b.getLastHeartbeatMs()).setLastCaughtUpTimestamp(caughtUp));
        }
        return out;
    }
}
