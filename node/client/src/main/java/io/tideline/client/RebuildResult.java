package io.tideline.client;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;

/**
 * The answer to {@link TidelineAdmin#rebuildReplica}: NONE once the rebuild has begun (the replica is
 * REBUILDING from {@code startOffset} towards {@code targetOffset}, or already IN_SYNC when there was nothing
 * to copy), or why it was refused.
 *
 * @param error NONE; INVALID_REQUEST (the replica is not FAILED), REPLICA_NOT_AVAILABLE (the broker is not a
 *              replica), UNKNOWN_TOPIC_OR_PARTITION, BROKER_NOT_AVAILABLE (its broker is down),
 *              LEADER_NOT_AVAILABLE (no leader to copy from)
 */
public record RebuildResult(TopicPartition partition, int brokerId, Errors error, String message, long startOffset,
                            long targetOffset) {
}
