package io.tideline.node.broker;

import io.tideline.common.TopicPartition;

/**
 * The local log of a replica that is gone for good and whose files should be deleted (through the store's
 * rename-then-unlink, so reads in flight finish).
 */
public record LogToDelete(TopicPartition topicPartition, String topicId, Reason reason) {

    public enum Reason {
        /** The topic was deleted. */
        TOPIC_DELETED,
        /** The topic still exists but this broker is no longer among the partition's replicas. */
        REPLICA_REMOVED
    }
}
