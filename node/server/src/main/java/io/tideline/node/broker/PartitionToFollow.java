package io.tideline.node.broker;

import io.tideline.common.TopicPartition;

/**
 * This broker is a follower of a partition that is new here, or whose leader or leader epoch changed.
 * Partition epoch changes (ISR changes) that keep the leader are not listed: a follower does not act on
 * them.
 *
 * @param leaderId {@link #NO_LEADER} when the partition is offline: stop fetching until a leader appears
 *                 (a later delta lists the partition again)
 */
public record PartitionToFollow(TopicPartition topicPartition, String topicId, int leaderId, int leaderEpoch) {

    public static final int NO_LEADER = -1;

    public boolean hasLeader() {
        return leaderId != NO_LEADER;
    }
}
