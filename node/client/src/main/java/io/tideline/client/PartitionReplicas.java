package io.tideline.client;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import java.util.List;

/**
 * A partition's replicas as {@link TidelineAdmin#describeReplicas} reports them, with the partition's ISR
 * change history (oldest first).
 *
 * @param error           NONE, or why nothing more is known (UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE, ...)
 * @param logStartOffset  the leader's log start offset
 * @param highWatermark   the leader's high watermark
 * @param logEndOffset    the leader's log end offset
 */
public record PartitionReplicas(TopicPartition partition, Errors error, String message, int leader, int leaderEpoch,
                                long logStartOffset, long highWatermark, long logEndOffset,
                                List<ReplicaDescription> replicas, List<IsrChange> isrHistory) {

    /**
     * One committed change of the partition's leader or ISR, as the metadata quorum recorded it.
     *
     * @param reason Kafka-style reason name of the change (CREATED, LAGGING, CAUGHT_UP, BROKER_FENCED,
     *               OUT_OF_RANGE, REASSIGNMENT, ...)
     */
    public record IsrChange(long timestampMs, int leader, int leaderEpoch, List<Integer> isr, String reason) {
    }
}
