package io.tideline.node.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.proto.metadata.BrokerLiveness;
import io.tideline.proto.metadata.QuorumStatus;
import io.tideline.proto.metadata.VoterReplication;
import java.util.Set;
import org.apache.kafka.common.message.DescribeQuorumResponseData.PartitionData;
import org.apache.kafka.common.message.DescribeQuorumResponseData.ReplicaState;
import org.junit.jupiter.api.Test;

/** The mapping of the Raft leader's view to Kafka's DescribeQuorum fields (docs/kafka-protocol.md, DescribeQuorum). */
class QuorumStatesTest {
    private static final QuorumStatus STATUS = QuorumStatus.newBuilder().setLeaderId(2).setLeaderTerm(7)
            .setCommittedOffset(41).setNowMs(10_000)
            .addVoters(VoterReplication.newBuilder().setNodeId(1).setLogEndOffset(40).setLastContactMs(9_900)
                    .setLastCaughtUpMs(-1))
            .addVoters(VoterReplication.newBuilder().setNodeId(2).setLogEndOffset(42).setLastContactMs(10_000)
                    .setLastCaughtUpMs(10_000))
            // Voters heartbeat too (they are brokers): they are never observers.
            .addLiveness(BrokerLiveness.newBuilder().setBrokerId(1).setMetadataOffset(41).setLastHeartbeatMs(9_950))
            .addLiveness(BrokerLiveness.newBuilder().setBrokerId(4).setMetadataOffset(41).setLastHeartbeatMs(9_800))
            .addLiveness(BrokerLiveness.newBuilder().setBrokerId(5).setMetadataOffset(30).setLastHeartbeatMs(9_700))
            .build();

    @Test
    void termIsTheEpochAndTheHighWatermarkIsTheOffsetAfterTheCommitIndex() {
        PartitionData p = QuorumStates.partition(STATUS, Set.of(1, 2), "__cluster_metadata").topics().get(0)
                .partitions().get(0);
        assertEquals(2, p.leaderId());
        assertEquals(7, p.leaderEpoch());
        assertEquals(42, p.highWatermark());
        ReplicaState lagging = p.currentVoters().get(0);
        assertEquals(1, lagging.replicaId());
        assertEquals(40, lagging.logEndOffset());
        assertEquals(9_900, lagging.lastFetchTimestamp());
        assertEquals(-1, lagging.lastCaughtUpTimestamp());
        assertEquals(10_000, p.currentVoters().get(1).lastCaughtUpTimestamp());
    }

    @Test
    void observersAreBrokersThatAreNotVotersAtTheOffsetTheyReported() {
        PartitionData p = QuorumStates.partition(STATUS, Set.of(1, 2), "__cluster_metadata").topics().get(0)
                .partitions().get(0);
        assertEquals(2, p.observers().size());
        ReplicaState current = p.observers().get(0);
        assertEquals(4, current.replicaId());
        assertEquals(42, current.logEndOffset());
        assertEquals(9_800, current.lastFetchTimestamp());
        assertEquals(9_800, current.lastCaughtUpTimestamp(), "it applied everything committed");
        ReplicaState behind = p.observers().get(1);
        assertEquals(5, behind.replicaId());
        assertEquals(31, behind.logEndOffset());
        assertEquals(-1, behind.lastCaughtUpTimestamp());
    }

    @Test
    void aTermBeyondKafkasInt32EpochIsClamped() {
        assertEquals(Integer.MAX_VALUE, QuorumStates.epoch(1L << 40));
    }
}
