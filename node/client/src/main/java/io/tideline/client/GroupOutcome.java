package io.tideline.client;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import java.util.Map;

/**
 * A group change's answer: the group's error (NONE, NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND, ...) and, for an
 * offset change, each partition's.
 */
public record GroupOutcome(String groupId, Errors error, String message, Map<TopicPartition, Errors> partitions) {
    public boolean isSuccess() {
        return error == Errors.NONE && partitions.values().stream().allMatch(e -> e == Errors.NONE);
    }
}
