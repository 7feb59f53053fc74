package io.tideline.client;

import io.tideline.common.errors.Errors;
import java.util.List;
import java.util.Map;

/**
 * A topic as DescribeTopics reports it. A name that does not exist comes back with
 * UNKNOWN_TOPIC_OR_PARTITION and no partitions.
 *
 * @param configs the overrides set on the topic (not the broker defaults)
 */
public record TopicDescription(String name, String topicId, Errors error, String message, Map<String, String> configs,
                               List<PartitionDescription> partitions) {

    /** One partition: leader (-1 offline), epoch, replica sets, and replicas the broker reported as failed. */
    public record PartitionDescription(int partition, Errors error, int leader, int leaderEpoch, List<Integer> replicas,
                                       List<Integer> isr, List<Integer> offlineReplicas, List<Integer> addingReplicas,
                                       List<Integer> removingReplicas, List<FailedReplica> failedReplicas) {

        /** Fewer in-sync replicas than replicas: what --under-replicated-partitions lists. */
        public boolean isUnderReplicated() {
            return isr.size() < replicas.size();
        }
    }

    public record FailedReplica(int brokerId, String reason, long sinceMs) {
    }
}
