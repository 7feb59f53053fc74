package io.tideline.node.controller;

import io.tideline.proto.metadata.ChangeReason;
import io.tideline.proto.metadata.MetadataRecord;
import io.tideline.proto.metadata.PartitionChangeRecord;
import io.tideline.proto.metadata.PartitionRecord;
import java.util.List;

/**
 * Builds partition change records. Every change bumps the partition epoch; a change of leader also
 * bumps the leader epoch, which fences the old leader's requests and tells followers to truncate.
 */
final class PartitionChanges {
    private PartitionChanges() {
    }

    /** A change to {@code isr} and/or {@code leader}; null when nothing would change. */
    static PartitionRecord change(PartitionRecord current, List<Integer> isr, int leader) {
        return change(current, current.getReplicasList(), isr, leader, current.getAddingReplicasList(),
                current.getRemovingReplicasList());
    }

    static PartitionRecord change(PartitionRecord current, List<Integer> replicas, List<Integer> isr, int leader,
                                  List<Integer> adding, List<Integer> removing) {
        return change(current, replicas, isr, leader, adding, removing,
                adding.isEmpty() && removing.isEmpty() ? List.of() : current.getTargetReplicasList());
    }

    static PartitionRecord change(PartitionRecord current, List<Integer> replicas, List<Integer> isr, int leader,
                                  List<Integer> adding, List<Integer> removing, List<Integer> target) {
        boolean leaderChanged = leader != current.getLeader();
        if (!leaderChanged && isr.equals(current.getIsrList()) && replicas.equals(current.getReplicasList())
                && adding.equals(current.getAddingReplicasList()) && removing.equals(current.getRemovingReplicasList())
                && target.equals(current.getTargetReplicasList())) {
            return null;
        }
        return current.toBuilder()
                .clearReplicas().addAllReplicas(replicas)
                .clearIsr().addAllIsr(isr)
                .setLeader(leader)
                .setLeaderEpoch(leaderChanged ? current.getLeaderEpoch() + 1 : current.getLeaderEpoch())
                .setPartitionEpoch(current.getPartitionEpoch() + 1)
                .clearAddingReplicas().addAllAddingReplicas(adding)
                .clearRemovingReplicas().addAllRemovingReplicas(removing)
                .clearTargetReplicas().addAllTargetReplicas(target)
                .build();
    }

    static MetadataRecord record(PartitionRecord partition, ChangeReason reason, long timestampMs, String detail) {
        return MetadataRecord.newBuilder().setPartitionChange(PartitionChangeRecord.newBuilder()
                .setPartition(partition).setReason(reason).setTimestampMs(timestampMs).setDetail(detail)).build();
    }
}
