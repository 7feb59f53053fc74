package io.tideline.node.kafka.admin;

import io.tideline.common.config.ConfigDef;
import io.tideline.node.config.DynamicBrokerConfigs;
import io.tideline.node.config.TopicConfigs;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.service.ApiError;
import io.tideline.node.service.ConfigValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.AlterConfigOp.OpType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's IncrementalAlterConfigs (v0-1) for TOPIC and BROKER resources, over the config service's
 * alterTopicConfigs and alterBrokerConfigs (the controller validates keys and values). SET and DELETE map
 * directly. APPEND and SUBTRACT apply to the list-valued topic keys (the *.replication.throttled.replicas
 * lists): the new list is computed from this broker's image and sent as a SET, so two concurrent appends
 * to one key may lose one (docs/kafka-protocol.md); on any other key they are INVALID_CONFIG, as in Kafka.
 * validate_only is refused with INVALID_REQUEST: the controller has no dry run for config changes. A DELETE of
 * {@link #NO_SUCH_BROKER_KEYS} on a broker is dropped.
 */
final class IncrementalAlterConfigsApi extends AbstractKafkaApi {
    private static final Set<String> TOPIC_LIST_KEYS = listKeys();
    /**
     * Kafka's dynamic broker keys with no Tideline counterpart, whose DELETE is dropped as the no-op it is:
     * kafka-reassign-partitions --verify deletes the log-dir move throttle on every broker along with the two
     * replication throttles, and there are no moves between the dirs of one broker to throttle. A SET of one
     * still goes to the controller, which refuses it (INVALID_CONFIG).
     */
    static final Set<String> NO_SUCH_BROKER_KEYS = Set.of("replica.alter.log.dirs.io.max.bytes.per.second");

    private final AdminDeps deps;

    IncrementalAlterConfigsApi(AdminDeps deps) {
        super(ApiKeys.INCREMENTAL_ALTER_CONFIGS, 0, 1);
        this.deps = deps;
    }

    private static Set<String> listKeys() {
        Set<String> keys = new HashSet<>(Set.of(TopicConfigs.LEADER_REPLICATION_THROTTLED_REPLICAS_CONFIG,
                TopicConfigs.FOLLOWER_REPLICATION_THROTTLED_REPLICAS_CONFIG));
        TopicConfigs.configDef().configKeys().values().stream().filter(k -> k.type() == ConfigDef.Type.LIST)
                .forEach(k -> keys.add(k.name()));
        return Set.copyOf(keys);
    }

    /** A request-level refusal of one resource, or null when it may go to the controller. */
    private record Refusal(Errors error, String message) {
    }

    @Override
    public CompletableFuture<IncrementalAlterConfigsResponseData> handle(KafkaRequest request) {
        IncrementalAlterConfigsRequestData data = request.body(IncrementalAlterConfigsRequestData.class);
        Map<String, Integer> mentions = new HashMap<>();
        data.resources().forEach(r -> mentions.merge(r.resourceType() + "/" + r.resourceName(), 1, Integer::sum));
        List<CompletableFuture<AlterConfigsResourceResponse>> results = new ArrayList<>();
        for (AlterConfigsResource resource : data.resources()) {
            Refusal refusal = mentions.get(resource.resourceType() + "/" + resource.resourceName()) > 1
                    ? new Refusal(Errors.INVALID_REQUEST, "the resource is named more than once in the request")
                    : data.validateOnly() ? new Refusal(Errors.INVALID_REQUEST,
                    "validate_only is not supported by IncrementalAlterConfigs here; nothing was changed")
                    : null;
            CompletableFuture<AlterConfigsResourceResponse> result = refusal != null
                    ? CompletableFuture.completedFuture(response(resource, refusal.error(), refusal.message()))
                    : alter(resource);
            results.add(result.exceptionally(e -> response(resource, Errors.UNKNOWN_SERVER_ERROR, Answers.message(e))));
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenApply(v -> {
            IncrementalAlterConfigsResponseData out = new IncrementalAlterConfigsResponseData();
            results.forEach(f -> out.responses().add(f.join()));
            return out;
        });
    }

    private CompletableFuture<AlterConfigsResourceResponse> alter(AlterConfigsResource resource) {
        ConfigResource.Type type = ConfigResource.Type.forId(resource.resourceType());
        if (type != ConfigResource.Type.TOPIC && type != ConfigResource.Type.BROKER) {
            return done(resource, Errors.INVALID_REQUEST, "resource type " + type + " is not served; TOPIC and BROKER are");
        }
        boolean topic = type == ConfigResource.Type.TOPIC;
        Map<String, String> current = Map.of();
        int brokerId = DynamicBrokerConfigs.CLUSTER_DEFAULT;
        if (topic) {
            var t = deps.image().get().topic(resource.resourceName());
            if (t.isEmpty()) {
                return done(resource, Errors.UNKNOWN_TOPIC_OR_PARTITION, "unknown topic '" + resource.resourceName() + "'");
            }
            current = t.get().configs();
        } else if (!resource.resourceName().isEmpty()) {
            try {
                brokerId = Integer.parseInt(resource.resourceName());
            } catch (NumberFormatException e) {
                return done(resource, Errors.INVALID_REQUEST, "a broker resource is named by its id or \"\" (the "
                        + "cluster default), got '" + resource.resourceName() + "'");
            }
        }
        Map<String, String> set = new LinkedHashMap<>();
        List<String> delete = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (AlterableConfig c : resource.configs()) {
            if (!seen.add(c.name())) {
                return done(resource, Errors.INVALID_REQUEST, "config " + c.name() + " is altered twice in one resource");
            }
            OpType op;
            try {
                op = OpType.forId(c.configOperation());
            } catch (IllegalArgumentException e) {
                op = null;
            }
            if (op == null) {
                return done(resource, Errors.INVALID_REQUEST, "unknown config operation " + c.configOperation()
                        + " for " + c.name());
            }
            if (op != OpType.DELETE && c.value() == null) {
                return done(resource, Errors.INVALID_REQUEST, "null value not supported for " + op + " of " + c.name());
            }
            switch (op) {
                case SET -> set.put(c.name(), c.value());
                case DELETE -> {
                    if (topic || !NO_SUCH_BROKER_KEYS.contains(c.name())) {
                        delete.add(c.name());
                    }
                }
                case APPEND, SUBTRACT -> {
                    if (!topic || !TOPIC_LIST_KEYS.contains(c.name())) {
                        return done(resource, Errors.INVALID_CONFIG, "config value " + op.name().toLowerCase()
                                + " is not allowed for config key " + c.name() + ": it is not a list");
                    }
                    String updated = listOp(current.get(c.name()), c.value(), op == OpType.APPEND);
                    if (updated.isEmpty()) {
                        delete.add(c.name());
                    } else {
                        set.put(c.name(), updated);
                    }
                }
                default -> throw new IllegalStateException(op.name());
            }
        }
        List<ConfigValue> values = set.entrySet().stream().map(e -> new ConfigValue(e.getKey(), e.getValue())).toList();
        int broker = brokerId;
        CompletableFuture<ApiError> done = Answers.call(() -> topic
                ? deps.services().configs().alterTopicConfigs(resource.resourceName(), values, delete)
                : deps.services().configs().alterBrokerConfigs(broker, values, delete));
        return done.thenApply(r -> response(resource, Errors.forCode(r.code()), r.message()));
    }

    /** Kafka's list semantics: APPEND adds the entries not yet there, SUBTRACT removes the ones given. */
    static String listOp(String current, String operand, boolean append) {
        Set<String> entries = new LinkedHashSet<>(split(current));
        List<String> given = split(operand);
        if (append) {
            entries.addAll(given);
        } else {
            given.forEach(entries::remove);
        }
        return String.join(",", entries);
    }

    private static List<String> split(String list) {
        if (list == null || list.isBlank()) {
            return List.of();
        }
        return Arrays.stream(list.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    private static CompletableFuture<AlterConfigsResourceResponse> done(AlterConfigsResource r, Errors e, String m) {
        return CompletableFuture.completedFuture(response(r, e, m));
    }

    private static AlterConfigsResourceResponse response(AlterConfigsResource r, Errors error, String message) {
        return new AlterConfigsResourceResponse().setResourceType(r.resourceType()).setResourceName(r.resourceName())
                .setErrorCode(error.code()).setErrorMessage(error == Errors.NONE ? null : Answers.message(message));
    }
}
