package io.tideline.node.kafka.admin;

import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.ErrorMessages;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.service.ConfigValue;
import io.tideline.node.service.TopicsService;
import io.tideline.node.service.TopicsService.NewTopic;
import io.tideline.node.service.TopicsService.TopicResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's CreateTopics (v2-7) over {@link TopicsService#createTopics}: the controller validates names, counts,
 * assignments and configs, and the service puts the broker's num.partitions / default.replication.factor in place
 * of -1. Here only what the Kafka request adds: a topic named twice is
 * INVALID_REQUEST, a null config value INVALID_CONFIG, and v5+ answers carry the partition count, replication
 * factor and every config of the created (or validated) topic, v7 its id.
 */
final class CreateTopicsApi extends AbstractKafkaApi {
    private final AdminDeps deps;
    private final TopicConfigView configs;

    CreateTopicsApi(AdminDeps deps, TopicConfigView configs) {
        super(ApiKeys.CREATE_TOPICS, 2, 7);
        this.deps = deps;
        this.configs = configs;
    }

    @Override
    public CompletableFuture<CreateTopicsResponseData> handle(KafkaRequest request) {
        CreateTopicsRequestData data = request.body(CreateTopicsRequestData.class);
        Map<String, Integer> mentions = new HashMap<>();
        data.topics().forEach(t -> mentions.merge(t.name(), 1, Integer::sum));
        Map<String, CreatableTopicResult> refused = new LinkedHashMap<>();
        Map<String, NewTopic> sent = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        for (CreatableTopic t : data.topics()) {
            if (!seen.add(t.name())) {
                continue;
            }
            String problem = mentions.get(t.name()) > 1 ? "topic '" + t.name() + "' is named more than once in the request"
                    : null;
            Errors error = Errors.INVALID_REQUEST;
            if (problem == null) {
                for (CreatableTopicConfig c : t.configs()) {
                    if (c.value() == null) {
                        problem = "null value not supported for topic config " + c.name();
                        error = Errors.INVALID_CONFIG;
                    }
                }
            }
            if (problem != null) {
                refused.put(t.name(), new CreatableTopicResult().setName(t.name()).setErrorCode(error.code())
                        .setErrorMessage(ErrorMessages.bounded(problem)));
                continue;
            }
            sent.put(t.name(), deps.services().topics().withDefaults(newTopic(t)));
        }
        CompletableFuture<List<TopicResult>> answer = sent.isEmpty() ? CompletableFuture.completedFuture(List.of())
                : Answers.call(() -> deps.services().topics()
                .createTopics(List.copyOf(sent.values()), data.validateOnly()));
        return answer.handle((r, e) -> {
            CreateTopicsResponseData out = new CreateTopicsResponseData();
            Map<String, TopicResult> byName = new HashMap<>();
            if (r != null) {
                r.forEach(x -> byName.put(x.name(), x));
            }
            Set<String> answered = new HashSet<>();
            for (CreatableTopic t : data.topics()) {
                if (!answered.add(t.name())) {
                    continue;
                }
                CreatableTopicResult result = refused.get(t.name());
                if (result == null) {
                    result = result(t.name(), sent.get(t.name()), byName.get(t.name()), e, data.validateOnly());
                }
                out.topics().add(result);
            }
            return out;
        });
    }

    private static NewTopic newTopic(CreatableTopic t) {
        List<TopicsService.Assignment> assignments = new ArrayList<>();
        for (CreatableReplicaAssignment a : t.assignments()) {
            assignments.add(new TopicsService.Assignment(a.partitionIndex(), a.brokerIds()));
        }
        List<ConfigValue> configs = new ArrayList<>();
        for (CreatableTopicConfig c : t.configs()) {
            configs.add(new ConfigValue(c.name(), c.value()));
        }
        return new NewTopic(t.name(), t.numPartitions(), t.replicationFactor(), configs, assignments);
    }

    private CreatableTopicResult result(String name, NewTopic sent, TopicResult r, Throwable e, boolean validateOnly) {
        CreatableTopicResult out = new CreatableTopicResult().setName(name);
        if (e != null || r == null) {
            return out.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code())
                    .setErrorMessage(e != null ? Answers.message(e) : "the controller's answer does not name this topic");
        }
        out.setErrorCode(r.error().code()).setErrorMessage(Answers.message(r.error().message()));
        if (r.error().isError()) {
            return out;
        }
        // The controller placed the partitions as asked: the counts are the request's, resolved above.
        boolean assigned = !sent.assignments().isEmpty();
        out.setNumPartitions(assigned ? sent.assignments().size() : sent.numPartitions());
        out.setReplicationFactor((short) (assigned ? sent.assignments().get(0).replicas().size()
                : sent.replicationFactor()));
        out.setTopicId(validateOnly ? Uuid.ZERO_UUID : Answers.uuid(r.topicId()));
        Map<String, String> overrides = new HashMap<>();
        sent.configs().forEach(c -> overrides.put(c.key(), c.value()));
        List<CreatableTopicConfigs> described = new ArrayList<>();
        for (ConfigView c : configs.describe(deps.image().get(), overrides)) {
            described.add(new CreatableTopicConfigs().setName(c.name()).setValue(c.value()).setReadOnly(false)
                    .setConfigSource(c.source().id()).setIsSensitive(false));
        }
        return out.setConfigs(described);
    }
}
