package io.tideline.node.api;

import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.client.BrokerMetadata;
import io.tideline.proto.client.LeaderHint;
import io.tideline.proto.client.MetadataResponse;
import io.tideline.proto.client.PartitionMetadata;
import io.tideline.proto.client.TopicMetadata;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.PartitionRecord;
import java.util.List;
import java.util.Optional;
import java.util.function.IntSupplier;

/** Builds Metadata answers and leader hints from the broker's metadata image. Stateless. */
final class MetadataResponses {
    private final String clusterId;
    private final IntSupplier controllerId;

    MetadataResponses(String clusterId, IntSupplier controllerId) {
        this.clusterId = clusterId;
        this.controllerId = controllerId;
    }

    MetadataResponse build(MetadataImage image, List<String> topics) {
        MetadataResponse.Builder b = MetadataResponse.newBuilder().setClusterId(clusterId)
                .setControllerId(controllerId.getAsInt());
        for (BrokerRegistrationRecord broker : image.brokers().values()) {
            BrokerMetadata.Builder m = BrokerMetadata.newBuilder().setId(broker.getBrokerId())
                    .setRack(broker.getRack()).setFenced(!image.isBrokerUnfenced(broker.getBrokerId()));
            if (broker.getEndpointsCount() > 0) {
                m.setHost(broker.getEndpoints(0).getHost()).setPort(broker.getEndpoints(0).getPort());
            }
            b.addBrokers(m);
        }
        if (topics.isEmpty()) {
            image.topics().values().forEach(t -> b.addTopics(topic(image, t)));
        } else {
            for (String name : topics) {
                Optional<TopicImage> t = image.topic(name);
                b.addTopics(t.isPresent() ? topic(image, t.get()) : TopicMetadata.newBuilder().setName(name)
                        .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).build());
            }
        }
        return b.build();
    }

    static TopicMetadata topic(MetadataImage image, TopicImage t) {
        TopicMetadata.Builder b = TopicMetadata.newBuilder().setName(t.name()).setTopicId(t.id());
        for (PartitionRecord p : t.partitions().values()) {
            b.addPartitions(partition(image, p));
        }
        return b.build();
    }

    static PartitionMetadata partition(MetadataImage image, PartitionRecord p) {
        PartitionMetadata.Builder b = PartitionMetadata.newBuilder().setPartition(p.getPartition())
                .setLeaderId(p.getLeader()).setLeaderEpoch(p.getLeaderEpoch())
                .addAllReplicas(p.getReplicasList()).addAllIsr(p.getIsrList())
                .setErrorCode(p.getLeader() < 0 ? Errors.LEADER_NOT_AVAILABLE.code() : Errors.NONE.code());
        for (int replica : p.getReplicasList()) {
            if (!image.isBrokerUnfenced(replica)) {
                b.addOfflineReplicas(replica);
            }
        }
        return b.build();
    }

    LeaderHint leaderHint(MetadataImage image, String topic, int partition) {
        Optional<PartitionRecord> p = partition < 0 ? Optional.empty() : image.partition(topic, partition);
        return p.map(r -> LeaderHint.newBuilder().setLeaderId(r.getLeader()).setLeaderEpoch(r.getLeaderEpoch()).build())
                .orElse(LeaderHint.newBuilder().setLeaderId(-1).setLeaderEpoch(-1).build());
    }
}
