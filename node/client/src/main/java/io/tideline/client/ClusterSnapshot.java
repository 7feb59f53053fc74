package io.tideline.client;

import io.tideline.client.internals.BrokerAddress;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.client.BrokerMetadata;
import io.tideline.proto.client.MetadataResponse;
import io.tideline.proto.client.PartitionMetadata;
import io.tideline.proto.client.TopicMetadata;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the client knows of the cluster from its last Metadata answers: broker addresses and, per topic
 * it asked about, each partition's leader and epoch. Immutable; {@link MetadataManager} swaps whole
 * snapshots.
 */
final class ClusterSnapshot {
    static final ClusterSnapshot EMPTY = new ClusterSnapshot(Map.of(), Map.of(), -1, "");

    record PartitionInfo(int partition, Errors error, int leaderId, int leaderEpoch) {
    }

    record TopicInfo(String name, Errors error, List<PartitionInfo> partitions) {
    }

    private final Map<Integer, BrokerAddress> brokers;
    private final Map<String, TopicInfo> topics;
    private final int controllerId;
    private final String clusterId;

    private ClusterSnapshot(Map<Integer, BrokerAddress> brokers, Map<String, TopicInfo> topics, int controllerId,
                            String clusterId) {
        this.brokers = Map.copyOf(brokers);
        this.topics = Map.copyOf(topics);
        this.controllerId = controllerId;
        this.clusterId = clusterId;
    }

    /** This snapshot with the response's brokers and the response's topics replacing the ones it names. */
    ClusterSnapshot merge(MetadataResponse response) {
        Map<Integer, BrokerAddress> newBrokers = new HashMap<>();
        for (BrokerMetadata b : response.getBrokersList()) {
            newBrokers.put(b.getId(), new BrokerAddress(b.getHost(), b.getPort()));
        }
        Map<String, TopicInfo> newTopics = new HashMap<>(topics);
        for (TopicMetadata t : response.getTopicsList()) {
            List<PartitionInfo> partitions = new ArrayList<>(t.getPartitionsCount());
            for (PartitionMetadata p : t.getPartitionsList()) {
                partitions.add(new PartitionInfo(p.getPartition(), Errors.forCode(p.getErrorCode()), p.getLeaderId(),
                        p.getLeaderEpoch()));
            }
            partitions.sort(Comparator.comparingInt(PartitionInfo::partition));
            newTopics.put(t.getName(), new TopicInfo(t.getName(), Errors.forCode(t.getErrorCode()),
                    List.copyOf(partitions)));
        }
        return new ClusterSnapshot(newBrokers, newTopics, response.getControllerId(), response.getClusterId());
    }

    /**
     * This snapshot with {@code tp} led by {@code leaderId}, when a NOT_LEADER_OR_FOLLOWER answer names a
     * newer leader than the one known: the next attempt can go there without waiting for a refresh.
     */
    ClusterSnapshot withLeader(TopicPartition tp, int leaderId, int leaderEpoch) {
        TopicInfo topic = topics.get(tp.topic());
        if (topic == null || leaderId < 0 || !brokers.containsKey(leaderId)) {
            return this;
        }
        List<PartitionInfo> partitions = new ArrayList<>(topic.partitions());
        for (int i = 0; i < partitions.size(); i++) {
            PartitionInfo p = partitions.get(i);
            if (p.partition() == tp.partition()) {
                if (leaderEpoch < p.leaderEpoch()) {
                    return this;
                }
                partitions.set(i, new PartitionInfo(p.partition(), Errors.NONE, leaderId, leaderEpoch));
            }
        }
        Map<String, TopicInfo> newTopics = new HashMap<>(topics);
        newTopics.put(tp.topic(), new TopicInfo(topic.name(), topic.error(), List.copyOf(partitions)));
        return new ClusterSnapshot(brokers, newTopics, controllerId, clusterId);
    }

    Map<Integer, BrokerAddress> brokers() {
        return brokers;
    }

    int controllerId() {
        return controllerId;
    }

    String clusterId() {
        return clusterId;
    }

    Optional<TopicInfo> topic(String name) {
        return Optional.ofNullable(topics.get(name));
    }

    Optional<PartitionInfo> partition(TopicPartition tp) {
        TopicInfo topic = topics.get(tp.topic());
        if (topic == null) {
            return Optional.empty();
        }
        for (PartitionInfo p : topic.partitions()) {
            if (p.partition() == tp.partition()) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** The leader's id and address, when the partition is known and has a leader whose address is known. */
    Optional<Leader> leader(TopicPartition tp) {
        return partition(tp).filter(p -> p.leaderId() >= 0)
                .flatMap(p -> Optional.ofNullable(brokers.get(p.leaderId()))
                        .map(address -> new Leader(p.leaderId(), p.leaderEpoch(), address)));
    }

    record Leader(int id, int epoch, BrokerAddress address) {
    }
}
