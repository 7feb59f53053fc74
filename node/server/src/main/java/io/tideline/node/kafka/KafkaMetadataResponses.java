package io.tideline.node.kafka;

import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.Endpoint;
import io.tideline.proto.metadata.PartitionRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBrokerCollection;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's view of the metadata image, as the gRPC Metadata answers it: brokers by their Kafka endpoint, topics with
 * their ids (ours are base64url UUIDs, the form {@link Uuid#fromString} reads), partitions with leader, epoch,
 * replicas, ISR and offline replicas. Stateless.
 *
 * <p>A broker's Kafka endpoint is the endpoint after the first (the first is the gRPC listener, which replication
 * reads) named like this node's Kafka listener, as a Kafka broker answers with the endpoints of the listener the
 * request came in on. Fenced brokers and brokers without such an endpoint are not listed.
 */
public final class KafkaMetadataResponses {
    private KafkaMetadataResponses() {
    }

    public static Optional<Endpoint> kafkaEndpoint(BrokerRegistrationRecord broker, String listenerName) {
        for (int i = 1; i < broker.getEndpointsCount(); i++) {
            if (broker.getEndpoints(i).getName().equals(listenerName)) {
                return Optional.of(broker.getEndpoints(i));
            }
        }
        return Optional.empty();
    }

    static MetadataResponseBrokerCollection brokers(MetadataImage image, String listenerName) {
        MetadataResponseBrokerCollection out = new MetadataResponseBrokerCollection();
        for (BrokerRegistrationRecord broker : image.brokers().values()) {
            Optional<Endpoint> endpoint = kafkaEndpoint(broker, listenerName);
            if (endpoint.isPresent() && image.isBrokerUnfenced(broker.getBrokerId())) {
                out.add(new MetadataResponseBroker().setNodeId(broker.getBrokerId()).setHost(endpoint.get().getHost())
                        .setPort(endpoint.get().getPort()).setRack(broker.getRack().isEmpty() ? null : broker.getRack()));
            }
        }
        return out;
    }

    static MetadataResponseTopic topic(MetadataImage image, TopicImage t, MetadataResponseBrokerCollection listed) {
        List<MetadataResponsePartition> partitions = new ArrayList<>();
        for (PartitionRecord p : t.partitions().values()) {
            partitions.add(partition(image, p, listed));
        }
        return new MetadataResponseTopic().setName(t.name()).setTopicId(Uuid.fromString(t.id())).setIsInternal(false)
                .setPartitions(partitions);
    }

    static MetadataResponsePartition partition(MetadataImage image, PartitionRecord p,
                                               MetadataResponseBrokerCollection listed) {
        List<Integer> offline = new ArrayList<>();
        for (int replica : p.getReplicasList()) {
            if (!image.isBrokerUnfenced(replica)) {
                offline.add(replica);
            }
        }
        // A leader clients cannot reach on this listener is no leader for them.
        boolean leaderReachable = p.getLeader() >= 0 && listed.find(p.getLeader()) != null;
        return new MetadataResponsePartition().setPartitionIndex(p.getPartition())
                .setErrorCode(leaderReachable ? Errors.NONE.code() : Errors.LEADER_NOT_AVAILABLE.code())
                .setLeaderId(leaderReachable ? p.getLeader() : -1).setLeaderEpoch(p.getLeaderEpoch())
                .setReplicaNodes(new ArrayList<>(p.getReplicasList())).setIsrNodes(new ArrayList<>(p.getIsrList()))
                .setOfflineReplicas(offline);
    }

    /** A topic the image does not have, with the error its answer carries (UNKNOWN_TOPIC_OR_PARTITION, ...). */
    static MetadataResponseTopic missingTopic(String name, Errors error) {
        return new MetadataResponseTopic().setName(name).setErrorCode(error.code()).setIsInternal(Topic.isInternal(name));
    }

    /** Names are nullable in answers from v12; before, an unknown id gets an empty name. */
    static MetadataResponseTopic unknownTopicId(Uuid id, short version) {
        return new MetadataResponseTopic().setName(version >= 12 ? null : "").setTopicId(id).setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
    }
}
