package io.tideline.node.kafka.admin;

import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.node.service.TopicsService;
import io.tideline.node.service.TopicsService.TopicResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's DeleteTopics (v1-6) over {@link TopicsService#deleteTopics}. Up to v5 topics are named; v6 names
 * each by name or by topic id, and an id is resolved to its name in this broker's image (an unknown id is
 * UNKNOWN_TOPIC_ID, answered without asking the controller; a topic given both ways is deleted by name).
 */
final class DeleteTopicsApi extends AbstractKafkaApi {
    private final AdminDeps deps;

    DeleteTopicsApi(AdminDeps deps) {
        super(ApiKeys.DELETE_TOPICS, 1, 6);
        this.deps = deps;
    }

    /** One topic of the request: the name to delete, or the answer when it can't be named. */
    private record Item(String name, Uuid askedId, DeletableTopicResult refused) {
    }

    @Override
    public CompletableFuture<DeleteTopicsResponseData> handle(KafkaRequest request) {
        DeleteTopicsRequestData data = request.body(DeleteTopicsRequestData.class);
        MetadataImage image = deps.image().get();
        List<Item> items = new ArrayList<>();
        if (request.version() >= 6) {
            for (DeleteTopicState t : data.topics()) {
                if (t.name() != null) {
                    items.add(new Item(t.name(), t.topicId(), null));
                    continue;
                }
                String name = nameOf(image, t.topicId());
                items.add(name != null ? new Item(name, t.topicId(), null) : new Item(null, t.topicId(),
                        new DeletableTopicResult().setName(null).setTopicId(t.topicId())
                                .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code())
                                .setErrorMessage("no topic has id " + t.topicId())));
            }
        } else {
            data.topicNames().forEach(n -> items.add(new Item(n, Uuid.ZERO_UUID, null)));
        }
        // Ids as they were before the delete: the image loses them once the removal is applied.
        Map<String, Uuid> ids = new HashMap<>();
        List<String> names = new ArrayList<>();
        for (Item i : items) {
            if (i.refused() == null && !ids.containsKey(i.name())) {
                ids.put(i.name(), image.topic(i.name()).map(t -> Answers.uuid(t.id())).orElse(Uuid.ZERO_UUID));
                names.add(i.name());
            }
        }
        CompletableFuture<List<TopicResult>> answer = names.isEmpty() ? CompletableFuture.completedFuture(List.of())
                : Answers.call(() -> deps.services().topics().deleteTopics(names));
        return answer.handle((r, e) -> {
            Map<String, TopicResult> byName = new HashMap<>();
            if (r != null) {
                r.forEach(x -> byName.put(x.name(), x));
            }
            DeleteTopicsResponseData out = new DeleteTopicsResponseData();
            for (Item i : items) {
                if (i.refused() != null) {
                    out.responses().add(i.refused());
                    continue;
                }
                TopicResult result = byName.get(i.name());
                Uuid id = ids.get(i.name()).equals(Uuid.ZERO_UUID) ? i.askedId() : ids.get(i.name());
                DeletableTopicResult item = new DeletableTopicResult().setName(i.name()).setTopicId(id);
                if (e != null || result == null) {
                    item.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code())
                            .setErrorMessage(e != null ? Answers.message(e) : "the controller's answer does not name this topic");
                } else {
                    item.setErrorCode(result.error().code()).setErrorMessage(Answers.message(result.error().message()));
                }
                out.responses().add(item);
            }
            return out;
        });
    }

    private static String nameOf(MetadataImage image, Uuid id) {
        String wanted = id.toString();
        for (TopicImage t : image.topics().values()) {
            if (t.id().equals(wanted)) {
                return t.name();
            }
        }
        return null;
    }
}
