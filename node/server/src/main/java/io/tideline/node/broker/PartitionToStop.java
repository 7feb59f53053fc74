package io.tideline.node.broker;

import io.tideline.common.TopicPartition;

/**
 * This broker hosted a replica of the partition and no longer does (removed by a reassignment, or the topic
 * was deleted): stop fetching it and stop serving it.
 */
public record PartitionToStop(TopicPartition topicPartition, String topicId) {
}
