package io.tideline.node.broker;

import io.tideline.common.TopicPartition;
import java.util.List;

/**
 * This broker is (still) the leader of a partition whose leadership is new here or whose state changed:
 * a new leader epoch, or a new partition epoch (ISR or replicas changed). The leader needs the partition
 * epoch and ISR for its next AlterPartition, which the controller refuses when they are stale.
 *
 * @param isr      the committed ISR, leader included
 * @param replicas the assigned replicas (during a reassignment: current plus target)
 */
public record PartitionToLead(TopicPartition topicPartition, String topicId, int leaderEpoch, int partitionEpoch,
                              List<Integer> isr, List<Integer> replicas) {

    public PartitionToLead {
        isr = List.copyOf(isr);
        replicas = List.copyOf(replicas);
    }
}
