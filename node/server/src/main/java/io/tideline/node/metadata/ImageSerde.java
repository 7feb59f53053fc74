package io.tideline.node.metadata;

import io.tideline.proto.metadata.BrokerConfigRecord;
import io.tideline.proto.metadata.ConfigEntry;
import io.tideline.proto.metadata.FailedReplicaRecord;
import io.tideline.proto.metadata.MetadataSnapshot;
import io.tideline.proto.metadata.PartitionChangeRecord;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.TopicSnapshot;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Image to snapshot and back. The snapshot lists everything in sorted order, so the same image
 * always serializes to the same bytes: two voters at the same index can be compared byte for byte.
 */
public final class ImageSerde {
    private ImageSerde() {
    }

    public static MetadataSnapshot toSnapshot(MetadataImage image) {
        MetadataSnapshot.Builder b = MetadataSnapshot.newBuilder().setOffset(image.offset()).setTerm(image.term());
        b.addAllBrokers(image.brokers().values());
        for (TopicImage t : image.topics().values()) {
            TopicSnapshot.Builder tb = TopicSnapshot.newBuilder().setTopic(t.topic());
            t.configs().forEach((k, v) -> tb.addConfigs(ConfigEntry.newBuilder().setKey(k).setValue(v)));
            tb.addAllPartitions(t.partitions().values());
            b.addTopics(tb);
        }
        for (List<PartitionChangeRecord> changes : image.recentChangesByPartition().values()) {
            b.addAllRecentChanges(changes);
        }
        b.addAllFailedReplicas(image.failedReplicas().values());
        image.allBrokerConfigs().forEach((brokerId, configs) -> {
            BrokerConfigRecord.Builder rb = BrokerConfigRecord.newBuilder().setBrokerId(brokerId);
            configs.forEach((k, v) -> rb.addEntries(ConfigEntry.newBuilder().setKey(k).setValue(v)));
            b.addBrokerConfigs(rb);
        });
        b.setNextProducerId(image.nextProducerId());
        for (GroupImage g : image.groups().values()) {
            io.tideline.proto.metadata.GroupSnapshot.Builder gb = io.tideline.proto.metadata.GroupSnapshot.newBuilder()
                    .setGroupId(g.groupId()).addAllOffsets(g.offsets());
            g.metadata().ifPresent(gb::setMetadata);
            b.addGroups(gb);
        }
        return b.build();
    }

    public static byte[] serialize(MetadataImage image) {
        return toSnapshot(image).toByteArray();
    }

    public static MetadataImage fromSnapshot(MetadataSnapshot snapshot) {
        TreeMap<Integer, io.tideline.proto.metadata.BrokerRegistrationRecord> brokers = new TreeMap<>();
        snapshot.getBrokersList().forEach(r -> brokers.put(r.getBrokerId(), r));
        TreeMap<String, TopicImage> topics = new TreeMap<>();
        for (TopicSnapshot t : snapshot.getTopicsList()) {
            TreeMap<String, String> configs = new TreeMap<>();
            t.getConfigsList().forEach(e -> configs.put(e.getKey(), e.getValue()));
            TreeMap<Integer, PartitionRecord> partitions = new TreeMap<>();
            t.getPartitionsList().forEach(p -> partitions.put(p.getPartition(), p));
            topics.put(t.getTopic().getName(), new TopicImage(t.getTopic(), configs, partitions));
        }
        TreeMap<String, List<PartitionChangeRecord>> changes = new TreeMap<>();
        for (PartitionChangeRecord c : snapshot.getRecentChangesList()) {
            String key = MetadataImage.partitionKey(c.getPartition().getTopicId(), c.getPartition().getPartition());
            changes.merge(key, List.of(c), (a, b) -> {
                java.util.ArrayList<PartitionChangeRecord> all = new java.util.ArrayList<>(a);
                all.addAll(b);
                return List.copyOf(all);
            });
        }
        TreeMap<String, FailedReplicaRecord> failed = new TreeMap<>();
        for (FailedReplicaRecord f : snapshot.getFailedReplicasList()) {
            failed.put(MetadataImage.replicaKey(f.getTopicId(), f.getPartition(), f.getBrokerId()), f);
        }
        TreeMap<Integer, SortedMap<String, String>> brokerConfigs = new TreeMap<>();
        for (BrokerConfigRecord r : snapshot.getBrokerConfigsList()) {
            TreeMap<String, String> configs = new TreeMap<>();
            r.getEntriesList().forEach(e -> configs.put(e.getKey(), e.getValue()));
            brokerConfigs.put(r.getBrokerId(), Collections.unmodifiableSortedMap(configs));
        }
        TreeMap<String, GroupImage> groups = new TreeMap<>();
        for (io.tideline.proto.metadata.GroupSnapshot g : snapshot.getGroupsList()) {
            GroupImage group = GroupImage.empty(g.getGroupId()).withOffsets(g.getOffsetsList());
            groups.put(g.getGroupId(), g.hasMetadata() ? group.withMetadata(g.getMetadata()) : group);
        }
        return new MetadataImage(snapshot.getOffset(), snapshot.getTerm(), brokers, topics, changes, failed,
                brokerConfigs, snapshot.getNextProducerId(), groups);
    }
}
