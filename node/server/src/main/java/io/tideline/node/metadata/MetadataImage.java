package io.tideline.node.metadata;

import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.FailedReplicaRecord;
import io.tideline.proto.metadata.PartitionChangeRecord;
import io.tideline.proto.metadata.PartitionRecord;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The cluster metadata as of one Raft index: brokers, topics with their partitions and configs, the
 * last partition changes (the answer to "why is this partition under-replicated") and the replicas
 * brokers reported as failed, and the dynamic broker configs. Immutable: replaying records ({@link ImageReplayer}) makes a new image,
 * so readers share one without locks. Every map is sorted, which makes {@link ImageSerde} output
 * deterministic.
 */
public final class MetadataImage {
    /** How many partition changes are kept per partition. */
    public static final int RECENT_CHANGES_PER_PARTITION = 10;

    public static final MetadataImage EMPTY = new MetadataImage(0, 0, new TreeMap<>(), new TreeMap<>(), new TreeMap<>(),
            new TreeMap<>(), new TreeMap<>(), 0L, new TreeMap<>());

    private final long offset;
    private final long term;
    private final SortedMap<Integer, BrokerRegistrationRecord> brokers;
    private final SortedMap<String, TopicImage> topicsByName;
    private final SortedMap<String, List<PartitionChangeRecord>> recentChanges;
    private final SortedMap<String, FailedReplicaRecord> failedReplicas;
    private final Map<String, String> topicNamesById;
    /** Dynamic broker configs by broker id, -1 the cluster-wide default; no entry for an empty set. */
    private final SortedMap<Integer, SortedMap<String, String>> brokerConfigs;
    /** The first producer id of the next block the controller hands out (ProducerIdsRecord); 0 before any. */
    private final long nextProducerId;
    /** Consumer groups by id: committed offsets and the last completed rebalance's metadata. */
    private final SortedMap<String, GroupImage> groups;

    MetadataImage(long offset, long term, SortedMap<Integer, BrokerRegistrationRecord> brokers,
                  SortedMap<String, TopicImage> topicsByName, SortedMap<String, List<PartitionChangeRecord>> recentChanges,
                  SortedMap<String, FailedReplicaRecord> failedReplicas,
                  SortedMap<Integer, SortedMap<String, String>> brokerConfigs, long nextProducerId,
                  SortedMap<String, GroupImage> groups) {
        this.nextProducerId = nextProducerId;
        this.offset = offset;
        this.term = term;
        this.brokers = Collections.unmodifiableSortedMap(brokers);
        this.topicsByName = Collections.unmodifiableSortedMap(topicsByName);
        this.recentChanges = Collections.unmodifiableSortedMap(recentChanges);
        this.failedReplicas = Collections.unmodifiableSortedMap(failedReplicas);
        TreeMap<String, String> ids = new TreeMap<>();
        for (TopicImage t : topicsByName.values()) {
            ids.put(t.id(), t.name());
        }
        this.topicNamesById = Collections.unmodifiableMap(ids);
        this.brokerConfigs = Collections.unmodifiableSortedMap(brokerConfigs);
        this.groups = Collections.unmodifiableSortedMap(groups);
    }

    /** The first producer id the controller's next AllocateProducerIds block starts at; 0 before any block. */
    public long nextProducerId() {
        return nextProducerId;
    }

    /** Raft index of the last entry applied to this image. */
    public long offset() {
        return offset;
    }

    public long term() {
        return term;
    }

    public SortedMap<Integer, BrokerRegistrationRecord> brokers() {
        return brokers;
    }

    public Optional<BrokerRegistrationRecord> broker(int id) {
        return Optional.ofNullable(brokers.get(id));
    }

    /** Registered and not fenced: may lead, join ISRs and receive new replicas. */
    public boolean isBrokerUnfenced(int id) {
        BrokerRegistrationRecord b = brokers.get(id);
        return b != null && !b.getFenced();
    }

    public SortedMap<String, TopicImage> topics() {
        return topicsByName;
    }

    public Optional<TopicImage> topic(String name) {
        return Optional.ofNullable(topicsByName.get(name));
    }

    public Optional<TopicImage> topicById(String topicId) {
        String name = topicNamesById.get(topicId);
        return name == null ? Optional.empty() : Optional.ofNullable(topicsByName.get(name));
    }

    public Optional<PartitionRecord> partition(String topicName, int partition) {
        TopicImage t = topicsByName.get(topicName);
        return t == null ? Optional.empty() : Optional.ofNullable(t.partition(partition));
    }

    /** Last changes of a partition, oldest first (at most {@link #RECENT_CHANGES_PER_PARTITION}). */
    public List<PartitionChangeRecord> recentChanges(String topicId, int partition) {
        return recentChanges.getOrDefault(partitionKey(topicId, partition), List.of());
    }

    SortedMap<String, List<PartitionChangeRecord>> recentChangesByPartition() {
        return recentChanges;
    }

    public SortedMap<String, FailedReplicaRecord> failedReplicas() {
        return failedReplicas;
    }

    /**
     * The dynamic configs set for {@code brokerId}, or with -1 the cluster-wide default
     * (docs/behaviours.md B56); empty when none is set.
     */
    public SortedMap<String, String> brokerConfigs(int brokerId) {
        return brokerConfigs.getOrDefault(brokerId, Collections.emptySortedMap());
    }

    /** Every broker's (and the default's, under -1) dynamic configs, by broker id. */
    public SortedMap<Integer, SortedMap<String, String>> allBrokerConfigs() {
        return brokerConfigs;
    }

    public SortedMap<String, GroupImage> groups() {
        return groups;
    }

    public Optional<GroupImage> group(String groupId) {
        return Optional.ofNullable(groups.get(groupId));
    }

    /** Number of partitions with no leader. */
    public int offlinePartitionCount() {
        int count = 0;
        for (TopicImage t : topicsByName.values()) {
            for (PartitionRecord p : t.partitions().values()) {
                if (p.getLeader() < 0) {
                    count++;
                }
            }
        }
        return count;
    }

    public int partitionCount() {
        int count = 0;
        for (TopicImage t : topicsByName.values()) {
            count += t.partitions().size();
        }
        return count;
    }

    public int fencedBrokerCount() {
        int count = 0;
        for (BrokerRegistrationRecord b : brokers.values()) {
            if (b.getFenced()) {
                count++;
            }
        }
        return count;
    }

    static String partitionKey(String topicId, int partition) {
        return topicId + ":" + String.format("%010d", partition);
    }

    static String replicaKey(String topicId, int partition, int brokerId) {
        return partitionKey(topicId, partition) + ":" + String.format("%010d", brokerId);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MetadataImage other && ImageSerde.toSnapshot(this).equals(ImageSerde.toSnapshot(other));
    }

    @Override
    public int hashCode() {
        return Long.hashCode(offset);
    }

    @Override
    public String toString() {
        return "MetadataImage(offset=" + offset + ", brokers=" + brokers.keySet() + ", topics=" + topicsByName.keySet() + ")";
    }
}
