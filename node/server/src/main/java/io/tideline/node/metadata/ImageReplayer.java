package io.tideline.node.metadata;

import io.tideline.proto.metadata.BrokerConfigRecord;
import io.tideline.proto.metadata.BrokerFenceChangeRecord;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.ConfigEntry;
import io.tideline.proto.metadata.FailedReplicaRecord;
import io.tideline.proto.metadata.MetadataRecord;
import io.tideline.proto.metadata.PartitionChangeRecord;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.TopicRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The only way metadata changes: records replayed, in log order, onto an image. A record that does
 * not apply (a partition of an unknown topic, say) is an invariant violation: the commands that
 * produce records are validated first, so replay fails loudly instead of guessing.
 */
public final class ImageReplayer {
    private ImageReplayer() {
    }

    /** The image after {@code records}, stamped with the Raft index and term they were committed at. */
    public static MetadataImage replay(MetadataImage image, List<MetadataRecord> records, long offset, long term) {
        Builder b = new Builder(image);
        for (MetadataRecord record : records) {
            b.apply(record);
        }
        return b.build(offset, term);
    }

    private static final class Builder {
        final TreeMap<Integer, BrokerRegistrationRecord> brokers;
        final TreeMap<String, TopicImage> topics;
        final TreeMap<String, List<PartitionChangeRecord>> changes;
        final TreeMap<String, FailedReplicaRecord> failed;
        final TreeMap<Integer, SortedMap<String, String>> brokerConfigs;
        final TreeMap<String, GroupImage> groups;
        /** Topic id -> name, kept in step with {@link #topics}: records name topics by id. */
        final Map<String, String> namesById = new HashMap<>();
        /**
         * The partitions of the topics this batch changes, by topic name, copied once per batch and folded into
         * {@link #topics} by {@link #build}: a batch of n partition records costs O(n log n), not a copy of the
         * topic per record (a CreateTopics of 10000 partitions, docs/behaviours.md B104).
         */
        final Map<String, TreeMap<Integer, PartitionRecord>> changedPartitions = new HashMap<>();
        long nextProducerId;

        Builder(MetadataImage image) {
            nextProducerId = image.nextProducerId();
            brokers = new TreeMap<>(image.brokers());
            topics = new TreeMap<>(image.topics());
            topics.values().forEach(t -> namesById.put(t.id(), t.name()));
            changes = new TreeMap<>(image.recentChangesByPartition());
            failed = new TreeMap<>(image.failedReplicas());
            brokerConfigs = new TreeMap<>(image.allBrokerConfigs());
            groups = new TreeMap<>(image.groups());
        }

        void apply(MetadataRecord record) {
            switch (record.getRecordCase()) {
                case BROKER_REGISTRATION -> brokers.put(record.getBrokerRegistration().getBrokerId(), record.getBrokerRegistration());
                case BROKER_FENCE_CHANGE -> applyFenceChange(record.getBrokerFenceChange());
                case TOPIC -> applyTopic(record.getTopic());
                case CONFIG -> {
                    TopicImage t = topicById(record.getConfig().getTopicId());
                    TreeMap<String, String> configs = new TreeMap<>();
                    for (ConfigEntry e : record.getConfig().getEntriesList()) {
                        configs.put(e.getKey(), e.getValue());
                    }
                    topics.put(t.name(), t.withConfigs(configs));
                }
                case PARTITION -> applyPartition(record.getPartition());
                case PARTITION_CHANGE -> {
                    PartitionChangeRecord change = record.getPartitionChange();
                    applyPartition(change.getPartition());
                    String key = MetadataImage.partitionKey(change.getPartition().getTopicId(), change.getPartition().getPartition());
                    List<PartitionChangeRecord> list = new ArrayList<>(changes.getOrDefault(key, List.of()));
                    list.add(change);
                    while (list.size() > MetadataImage.RECENT_CHANGES_PER_PARTITION) {
                        list.remove(0);
                    }
                    changes.put(key, List.copyOf(list));
                }
                case REMOVE_TOPIC -> {
                    String topicId = record.getRemoveTopic().getTopicId();
                    TopicImage t = topicById(topicId);
                    topics.remove(t.name());
                    changedPartitions.remove(t.name());
                    namesById.remove(topicId);
                    changes.keySet().removeIf(k -> k.startsWith(topicId + ":"));
                    failed.keySet().removeIf(k -> k.startsWith(topicId + ":"));
                }
                case FAILED_REPLICA -> {
                    FailedReplicaRecord f = record.getFailedReplica();
                    topicById(f.getTopicId());
                    String key = MetadataImage.replicaKey(f.getTopicId(), f.getPartition(), f.getBrokerId());
                    if (f.getCleared()) {
                        failed.remove(key);
                    } else {
                        failed.put(key, f);
                    }
                }
                case BROKER_CONFIG -> applyBrokerConfig(record.getBrokerConfig());
                case PRODUCER_IDS -> applyProducerIds(record.getProducerIds().getNextProducerId());
                case OFFSET_COMMIT -> groups.put(record.getOffsetCommit().getGroupId(),
                        group(record.getOffsetCommit().getGroupId()).withOffsets(record.getOffsetCommit().getOffsetsList()));
                case GROUP_METADATA -> groups.put(record.getGroupMetadata().getGroupId(),
                        group(record.getGroupMetadata().getGroupId()).withMetadata(record.getGroupMetadata()));
                case REMOVE_OFFSETS -> {
                    GroupImage g = groups.get(record.getRemoveOffsets().getGroupId());
                    if (g == null) {
                        throw new IllegalStateException("no group " + record.getRemoveOffsets().getGroupId());
                    }
                    groups.put(g.groupId(), g.withoutOffsets(record.getRemoveOffsets().getPartitionsList()));
                }
                case REMOVE_GROUP -> {
                    if (groups.remove(record.getRemoveGroup().getGroupId()) == null) {
                        throw new IllegalStateException("no group " + record.getRemoveGroup().getGroupId());
                    }
                }
                case RECORD_NOT_SET -> throw new IllegalStateException("empty metadata record");
                default -> throw new IllegalStateException("unknown metadata record " + record.getRecordCase());
            }
        }

        private void applyFenceChange(BrokerFenceChangeRecord change) {
            BrokerRegistrationRecord b = brokers.get(change.getBrokerId());
            if (b == null) {
                throw new IllegalStateException("fence change for unregistered broker " + change.getBrokerId());
            }
            brokers.put(change.getBrokerId(), b.toBuilder().setFenced(change.getFenced())
                    .setInControlledShutdown(change.getInControlledShutdown()).build());
        }

        /** The record carries the whole set: a replacement, and an empty set removes the entry. */
        private void applyBrokerConfig(BrokerConfigRecord record) {
            TreeMap<String, String> configs = new TreeMap<>();
            record.getEntriesList().forEach(e -> configs.put(e.getKey(), e.getValue()));
            if (configs.isEmpty()) {
                brokerConfigs.remove(record.getBrokerId());
            } else {
                brokerConfigs.put(record.getBrokerId(), Collections.unmodifiableSortedMap(configs));
            }
        }

        /** Producer ids only move forward: an id handed out once is never handed out again. */
        private void applyProducerIds(long next) {
            if (next <= nextProducerId) {
                throw new IllegalStateException("producer ids move backwards: next " + next + " after " + nextProducerId);
            }
            nextProducerId = next;
        }

        private void applyTopic(TopicRecord topic) {
            if (topics.containsKey(topic.getName())) {
                throw new IllegalStateException("topic " + topic.getName() + " exists already");
            }
            topics.put(topic.getName(), new TopicImage(topic, new TreeMap<>(), new TreeMap<>()));
            namesById.put(topic.getTopicId(), topic.getName());
        }

        private void applyPartition(PartitionRecord partition) {
            TopicImage t = topicById(partition.getTopicId());
            changedPartitions.computeIfAbsent(t.name(), name -> new TreeMap<>(t.partitions()))
                    .put(partition.getPartition(), partition);
        }

        private GroupImage group(String groupId) {
            GroupImage g = groups.get(groupId);
            return g != null ? g : GroupImage.empty(groupId);
        }

        private TopicImage topicById(String topicId) {
            String name = namesById.get(topicId);
            if (name == null) {
                throw new IllegalStateException("no topic with id " + topicId);
            }
            return topics.get(name);
        }

        MetadataImage build(long offset, long term) {
            changedPartitions.forEach((name, partitions) -> {
                TopicImage t = topics.get(name);
                topics.put(name, new TopicImage(t.topic(), t.configs(), partitions));
            });
            return new MetadataImage(offset, term, brokers, topics, changes, failed, brokerConfigs, nextProducerId,
                    groups);
        }
    }
}
