package io.tideline.node.kafka;

import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * up by name, or by id (v10+); a missing one gets UNKNOWN_TOPIC_OR_PARTITION (UNKNOWN_TOPIC_ID by id, and
 * INVALID_TOPIC_EXCEPTION for a name no topic can have). With {@code auto.create.topics.enable} and the request's
 * {@code allow_auto_topic_creation}, the missing topics named (not those asked for by id, nor "all topics") are
 * created first through {@link TopicAutoCreation}, and the answer waits for the controller's (docs/behaviours.md
 * B240-B241, docs/kafka-protocol.md).
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
    private final TopicAutoCreation autoCreation;

    MetadataApi(int nodeId, String clusterId, String listenerName, Supplier<MetadataImage> image,
                IntSupplier quorumLeaderId, TopicAutoCreation autoCreation) {
        super(ApiKeys.METADATA, 0, 13);
        this.nodeId = nodeId;
        this.clusterId = clusterId;
        this.listenerName = listenerName;
        this.image = image;
        this.quorumLeaderId = quorumLeaderId;
        this.autoCreation = autoCreation;
    }

    @Override
    public CompletableFuture<MetadataResponseData> handle(KafkaRequest request) {
        MetadataRequestData body = request.body(MetadataRequestData.class);
        // Every topic: a null list (v1+), or an empty one at v0, where the list could not be null.
        boolean all = body.topics() == null || (body.topics().isEmpty() && request.version() == 0);
        if (all || !body.allowAutoTopicCreation() || !autoCreation.enabled()) {
            return CompletableFuture.completedFuture(answer(request, body, all, Map.of()));
        }
        MetadataImage current = image.get();
        List<String> missing = new ArrayList<>();
        for (MetadataRequestTopic wanted : body.topics()) {
            if (wanted.name() != null && current.topic(wanted.name()).isEmpty()) {
                missing.add(wanted.name());
            }
        }
        if (missing.isEmpty()) {
            return CompletableFuture.completedFuture(answer(request, body, false, Map.of()));
        }
        // The answer reads the image again: the created topics are in it once this broker has the controller's
        // records, else they get the outcome's error.
        return autoCreation.create(missing, request.clientId())
                .thenApply(outcome -> answer(request, body, false, outcome));
    }

    /**
     * @param created the auto-creation outcome of missing topics: NONE for one created (UNKNOWN_TOPIC_OR_PARTITION
     *                until this broker's image has it, as a Kafka KRaft broker answers a topic it asked its
     *                controller for), else the error to answer
     */
    private MetadataResponseData answer(KafkaRequest request, MetadataRequestData body, boolean all,
                                        Map<String, Errors> created) {
        MetadataImage current = image.get();
        MetadataResponseBrokerCollection brokers = KafkaMetadataResponses.brokers(current, listenerName);
        MetadataResponseData response = new MetadataResponseData().setClusterId(clusterId)
                .setControllerId(controllerId(brokers));
        if (all) {
            current.topics().values().forEach(t -> response.topics().add(KafkaMetadataResponses.topic(current, t, brokers)));
        } else {
            for (MetadataRequestTopic wanted : body.topics()) {
                response.topics().add(lookup(current, wanted, brokers, request.version(), created));
            }
        }
        response.setBrokers(brokers);
        return response;
    }

    private MetadataResponseData.MetadataResponseTopic lookup(MetadataImage current, MetadataRequestTopic wanted,
                                                              MetadataResponseBrokerCollection brokers, short version,
                                                              Map<String, Errors> created) {
        if (wanted.name() == null) {
            Uuid id = wanted.topicId();
            Optional<TopicImage> t = Uuid.ZERO_UUID.equals(id) ? Optional.empty() : current.topicById(id.toString());
            return t.map(found -> KafkaMetadataResponses.topic(current, found, brokers))
                    .orElseGet(() -> KafkaMetadataResponses.unknownTopicId(id, version));
        }
        return current.topic(wanted.name()).map(found -> KafkaMetadataResponses.topic(current, found, brokers))
                .orElseGet(() -> KafkaMetadataResponses.missingTopic(wanted.name(), missingError(wanted.name(), created)));
    }

    private static Errors missingError(String name, Map<String, Errors> created) {
        Errors outcome = created.get(name);
        if (outcome != null && outcome != Errors.NONE) {
            return outcome;
        }
        // As Kafka's broker: a name no topic can have is INVALID_TOPIC_EXCEPTION, whether or not creation was asked.
        return TopicAutoCreation.validName(name) ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.INVALID_TOPIC_EXCEPTION;
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
