package io.tideline.client;

import io.tideline.common.errors.Errors;
import java.util.List;
import java.util.Map;

/**
 * A topic as DescribeTopics reports it. A name that does not exist comes back with
 * UNKNOWN_TOPIC_OR_PARTITION and no partitions.
 *
 * @param configs            the overrides set on the topic (not the broker defaults)
 * @param minInsyncReplicas  the min.insync.replicas in force: the topic's override, else the default of the
 *                           broker that answered (0 from a broker that does not report it)
 */
public record TopicDescription(String name, String topicId, Errors error, String message, Map<String, String> configs,
                               List<PartitionDescription> partitions, int minInsyncReplicas) {

    /**
     * Partitions with fewer in-sync replicas than min.insync.replicas, or without a leader (as Kafka's
     * kafka-topics counts them): acks=all produces to them fail.
     */
    public boolean isUnderMinIsr(PartitionDescription p) {
        return p.isUnavailable() || p.isr().size() < minInsyncReplicas;
    }

    /** Partitions with exactly min.insync.replicas in sync: one more replica lost and acks=all fails. */
    public boolean isAtMinIsr(PartitionDescription p) {
        return p.isr().size() == minInsyncReplicas;
    }

    /** One partition: leader (-1 offline), epoch, replica sets, and replicas the broker reported as failed. */
    public record PartitionDescription(int partition, Errors error, int leader, int leaderEpoch, List<Integer> replicas,
                                       List<Integer> isr, List<Integer> offlineReplicas, List<Integer> addingReplicas,
                                       List<Integer> removingReplicas, List<FailedReplica> failedReplicas) {

        /** Fewer in-sync replicas than replicas: what --under-replicated-partitions lists. */
        public boolean isUnderReplicated() {
            return isr.size() < replicas.size();
        }

        /** No leader (every replica offline or out of the ISR): neither produce nor fetch is served. */
        public boolean isUnavailable() {
            return leader < 0;
        }
    }

    public record FailedReplica(int brokerId, String reason, long sinceMs) {
    }
}
