package io.tideline.replication.server;

import io.tideline.common.TopicPartition;
import java.util.List;

/**
 * The metadata of one partition as the controller committed it: who leads at which leader epoch, the
 * partition epoch (bumped by every ISR or replica change), the assigned replicas and the ISR.
 */
public record LeaderAndIsr(TopicPartition topicPartition, String topicId, int leaderId, int leaderEpoch,
                           int partitionEpoch, List<Integer> replicas, List<Integer> isr) {
    public static final int NO_LEADER = -1;

    public LeaderAndIsr {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
    }
}
