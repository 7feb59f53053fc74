package io.tideline.client;

import io.tideline.common.TopicPartition;
import java.util.List;

/**
 * A reassignment in progress, as {@link TidelineAdmin#listPartitionReassignments} reports it (Kafka's
 * PartitionReassignment).
 *
 * @param replicas         every replica of the partition while it moves: the original ones in order, then the
 *                         ones being added
 * @param addingReplicas   the replicas the target adds; the move completes once all are in the ISR
 * @param removingReplicas the original replicas the target drops; they leave when the move completes
 */
public record PartitionReassignment(TopicPartition partition, List<Integer> replicas, List<Integer> addingReplicas,
                                    List<Integer> removingReplicas) {
    public PartitionReassignment {
        replicas = List.copyOf(replicas);
        addingReplicas = List.copyOf(addingReplicas);
        removingReplicas = List.copyOf(removingReplicas);
    }
}
