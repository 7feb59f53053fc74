package io.tideline.client;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;

/**
 * The cluster's answer for one partition of {@link TidelineAdmin#alterPartitionReassignments}: NONE (started,
 * replaced or cancelled), or NO_REASSIGNMENT_IN_PROGRESS (a cancel with nothing to cancel),
 * INVALID_REPLICA_ASSIGNMENT (empty, duplicate or unregistered replicas), UNKNOWN_TOPIC_OR_PARTITION, ...
 */
public record ReassignmentResult(TopicPartition partition, Errors error, String message) {
    public boolean isSuccess() {
        return error == Errors.NONE;
    }
}
