package io.tideline.client;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import java.util.List;
import java.util.Map;

/**
 * One group as its coordinator describes it: state, members with their assigned partitions, and every committed
 * offset. A group that could not be described carries its error (GROUP_ID_NOT_FOUND, COORDINATOR_NOT_AVAILABLE,
 * ...) and nothing else.
 *
 * @param coordinatorId the broker that answered, -1 when none did
 * @param offsets       the committed offsets, sorted by topic and partition
 */
public record ConsumerGroupDescription(String groupId, Errors error, String message, int coordinatorId, String state,
                                       String protocolType, String protocol, List<Member> members,
                                       Map<TopicPartition, Long> offsets) {

    /** @param groupInstanceId empty for a dynamic member */
    public record Member(String memberId, String groupInstanceId, String clientId, String host,
                         List<TopicPartition> assignment) {
    }

    public boolean isSuccess() {
        return error == Errors.NONE;
    }

    /** Kafka's rule for resetting or deleting a group: it has no members (Empty, or Dead). */
    public boolean isInactive() {
        return "Empty".equals(state) || "Dead".equals(state);
    }

    static ConsumerGroupDescription failed(String groupId, Errors error, String message, int coordinatorId) {
        return new ConsumerGroupDescription(groupId, error, message, coordinatorId, "", "", "", List.of(), Map.of());
    }
}
