package io.tideline.node.broker;

import io.tideline.node.metadata.ImageReplayer;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.BrokerFenceChangeRecord;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.ChangeReason;
import io.tideline.proto.metadata.MetadataRecord;
import io.tideline.proto.metadata.PartitionChangeRecord;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.RemoveTopicRecord;
import io.tideline.proto.metadata.TopicRecord;
import java.util.List;

/** Hand-made metadata records and images for broker-side tests. */
final class Images {
    private Images() {
    }

    /** An image of {@code records} replayed onto {@code base}, at {@code offset}. */
    static MetadataImage replay(MetadataImage base, long offset, MetadataRecord... records) {
        return ImageReplayer.replay(base, List.of(records), offset, 1);
    }

    static MetadataRecord broker(int id, boolean fenced) {
        return MetadataRecord.newBuilder().setBrokerRegistration(BrokerRegistrationRecord.newBuilder()
                .setBrokerId(id).setIncarnationId("inc-" + id).setBrokerEpoch(id).setFenced(fenced)).build();
    }

    static MetadataRecord fence(int id, boolean fenced) {
        return MetadataRecord.newBuilder().setBrokerFenceChange(BrokerFenceChangeRecord.newBuilder()
                .setBrokerId(id).setBrokerEpoch(id).setFenced(fenced)).build();
    }

    static MetadataRecord topic(String name, String id) {
        return MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName(name).setTopicId(id)).build();
    }

    static MetadataRecord removeTopic(String id) {
        return MetadataRecord.newBuilder().setRemoveTopic(RemoveTopicRecord.newBuilder().setTopicId(id)).build();
    }

    static PartitionRecord partition(String topicId, int partition, List<Integer> replicas, List<Integer> isr,
                                     int leader, int leaderEpoch, int partitionEpoch) {
        return PartitionRecord.newBuilder().setTopicId(topicId).setPartition(partition).addAllReplicas(replicas)
                .addAllIsr(isr).setLeader(leader).setLeaderEpoch(leaderEpoch).setPartitionEpoch(partitionEpoch)
                .build();
    }

    static MetadataRecord created(PartitionRecord partition) {
        return MetadataRecord.newBuilder().setPartition(partition).build();
    }

    static MetadataRecord changed(PartitionRecord partition, ChangeReason reason) {
        return MetadataRecord.newBuilder().setPartitionChange(PartitionChangeRecord.newBuilder()
                .setPartition(partition).setReason(reason).setTimestampMs(1000)).build();
    }

    /** Brokers 1-4 registered and unfenced, at offset 10. */
    static MetadataImage fourBrokers() {
        return replay(MetadataImage.EMPTY, 10, broker(1, false), broker(2, false), broker(3, false),
                broker(4, false));
    }
}
