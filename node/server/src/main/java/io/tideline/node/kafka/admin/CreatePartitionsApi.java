package io.tideline.node.kafka.admin;

import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.ErrorMessages;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.service.TopicsService;
import io.tideline.node.service.TopicsService.NewPartitions;
import io.tideline.node.service.TopicsService.TopicResult;
import java.util.ArrayList;
import java.util.List;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's CreatePartitions (v0-3) over {@link TopicsService#createPartitions} (the controller checks the
 * topic and the count and places the new partitions with the topic's replication factor). What the service
 * cannot do is refused per topic with INVALID_REQUEST and says so: explicit assignments of the new partitions
 * and validate_only (docs/kafka-protocol.md, Admin APIs). A topic named twice is INVALID_REQUEST too.
 */
final class CreatePartitionsApi extends AbstractKafkaApi {
    private final AdminDeps deps;

    CreatePartitionsApi(AdminDeps deps) {
        super(ApiKeys.CREATE_PARTITIONS, 0, 3);
        this.deps = deps;
    }

    @Override
    public CompletableFuture<CreatePartitionsResponseData> handle(KafkaRequest request) {
        CreatePartitionsRequestData data = request.body(CreatePartitionsRequestData.class);
        Map<String, Integer> mentions = new HashMap<>();
        data.topics().forEach(t -> mentions.merge(t.name(), 1, Integer::sum));
        Map<String, String> refused = new LinkedHashMap<>();
        List<NewPartitions> sent = new ArrayList<>();
        for (CreatePartitionsRequestData.CreatePartitionsTopic t : data.topics()) {
            if (mentions.get(t.name()) > 1) {
                refused.put(t.name(), "topic '" + t.name() + "' is named more than once in the request");
            } else if (data.validateOnly()) {
                refused.put(t.name(), "validate_only is not supported by CreatePartitions here; nothing was changed");
            } else if (t.assignments() != null && !t.assignments().isEmpty()) {
                refused.put(t.name(), "explicit assignments of new partitions are not supported; send none and the "
                        + "controller places them");
            } else {
                sent.add(new NewPartitions(t.name(), t.count()));
            }
        }
        CompletableFuture<List<TopicResult>> answer = sent.isEmpty() ? CompletableFuture.completedFuture(List.of())
                : Answers.call(() -> deps.services().topics().createPartitions(sent));
        return answer.handle((r, e) -> {
            Map<String, TopicResult> byName = new HashMap<>();
            if (r != null) {
                r.forEach(x -> byName.put(x.name(), x));
            }
            CreatePartitionsResponseData out = new CreatePartitionsResponseData();
            Set<String> answered = new HashSet<>();
            for (CreatePartitionsRequestData.CreatePartitionsTopic t : data.topics()) {
                if (!answered.add(t.name())) {
                    continue;
                }
                CreatePartitionsTopicResult item = new CreatePartitionsTopicResult().setName(t.name());
                TopicResult result = byName.get(t.name());
                if (refused.containsKey(t.name())) {
                    item.setErrorCode(Errors.INVALID_REQUEST.code())
                            .setErrorMessage(ErrorMessages.bounded(refused.get(t.name())));
                } else if (e != null || result == null) {
                    item.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code())
                            .setErrorMessage(e != null ? Answers.message(e) : "the controller's answer does not name this topic");
                } else {
                    item.setErrorCode(result.error().code()).setErrorMessage(Answers.message(result.error().message()));
                }
                out.results().add(item);
            }
            return out;
        });
    }
}
