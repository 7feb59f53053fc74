package io.tideline.node.kafka;

import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBrokerCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Metadata v0-v13 from this broker's metadata image (the one the gRPC Metadata answers from). Topics are looked
 * up by name, or by id (v10+); a missing one gets UNKNOWN_TOPIC_OR_PARTITION (UNKNOWN_TOPIC_ID by id). Topics are
 * never created here: {@code allow_auto_topic_creation} is read and not acted on, as a Kafka broker with
 * {@code auto.create.topics.enable=false} (docs/kafka-protocol.md).
 *
 * <p>The controller id is for admin clients, which send CreateTopics and the like to it: as on a Kafka KRaft
 * broker, where the quorum is not reachable by clients, it is a listed broker, here the quorum leader when it is
 * one, else this node, else the lowest listed broker, so any Kafka-serving broker may take admin requests.
 */
final class MetadataApi extends AbstractKafkaApi {
    private final int nodeId;
    private final String clusterId;
    private final String listenerName;
    private final Supplier<MetadataImage> image;
    private final IntSupplier quorumLeaderId;

    MetadataApi(int nodeId, String clusterId, String listenerName, Supplier<MetadataImage> image,
                IntSupplier quorumLeaderId) {
        super(ApiKeys.METADATA, 0, 13);
        this.nodeId = nodeId;
        this.clusterId = clusterId;
        this.listenerName = listenerName;
        this.image = image;
        this.quorumLeaderId = quorumLeaderId;
    }

    @Override
    public CompletableFuture<MetadataResponseData> handle(KafkaRequest request) {
        MetadataRequestData body = request.body(MetadataRequestData.class);
        MetadataImage current = image.get();
        MetadataResponseBrokerCollection brokers = KafkaMetadataResponses.brokers(current, listenerName);
        MetadataResponseData response = new MetadataResponseData().setClusterId(clusterId)
                .setControllerId(controllerId(brokers));
        // Every topic: a null list (v1+), or an empty one at v0, where the list could not be null.
        boolean all = body.topics() == null || (body.topics().isEmpty() && request.version() == 0);
        if (all) {
            current.topics().values().forEach(t -> response.topics().add(KafkaMetadataResponses.topic(current, t, brokers)));
        } else {
            for (MetadataRequestTopic wanted : body.topics()) {
                response.topics().add(lookup(current, wanted, brokers, request.version()));
            }
        }
        response.setBrokers(brokers);
        return CompletableFuture.completedFuture(response);
    }

    private MetadataResponseData.MetadataResponseTopic lookup(MetadataImage current, MetadataRequestTopic wanted,
                                                              MetadataResponseBrokerCollection brokers, short version) {
        if (wanted.name() == null) {
            Uuid id = wanted.topicId();
            Optional<TopicImage> t = Uuid.ZERO_UUID.equals(id) ? Optional.empty() : current.topicById(id.toString());
            return t.map(found -> KafkaMetadataResponses.topic(current, found, brokers))
                    .orElseGet(() -> KafkaMetadataResponses.unknownTopicId(id, version));
        }
        return current.topic(wanted.name()).map(found -> KafkaMetadataResponses.topic(current, found, brokers))
                .orElseGet(() -> KafkaMetadataResponses.unknownTopic(wanted.name()));
    }

    private int controllerId(MetadataResponseBrokerCollection brokers) {
        int leader = quorumLeaderId.getAsInt();
        if (leader >= 0 && brokers.find(leader) != null) {
            return leader;
        }
        if (brokers.find(nodeId) != null) {
            return nodeId;
        }
        return brokers.stream().mapToInt(MetadataResponseBroker::nodeId).min().orElse(-1);
    }
}
