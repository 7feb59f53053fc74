package io.tideline.node.kafka.admin;

import io.tideline.common.config.ConfigDef;
import io.tideline.node.config.DynamicBrokerConfigs;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.ErrorMessages;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.node.config.BrokerConfigResolver;
import io.tideline.node.service.ConfigsService;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsSynonym;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;

/**
 * Kafka's DescribeConfigs (v1-4) for TOPIC and BROKER resources. A topic: every topic key with its value in
 * force ({@link TopicConfigView}). A broker: {@link ConfigsService#describeBrokerConfigs}, the dynamic keys
 * (name "" is the cluster-wide default, "N" must be sent to broker N, as Kafka's AdminClient does), and for
 * broker N the read-only keys of {@link ReadOnlyBrokerConfigs}. No key is sensitive (none holds a secret);
 * documentation is not sent. Other resource
 * types (BROKER_LOGGER, GROUP, CLIENT_METRICS) are INVALID_REQUEST. Null or empty configuration keys ask for every key.
 */
final class DescribeConfigsApi extends AbstractKafkaApi {
    private static final ConfigDef BROKER_KEYS = DynamicBrokerConfigs.definition();

    private final AdminDeps deps;
    private final TopicConfigView topics;

    DescribeConfigsApi(AdminDeps deps, TopicConfigView topics) {
        super(ApiKeys.DESCRIBE_CONFIGS, 1, 4);
        this.deps = deps;
        this.topics = topics;
    }

    @Override
    public CompletableFuture<DescribeConfigsResponseData> handle(KafkaRequest request) {
        DescribeConfigsRequestData data = request.body(DescribeConfigsRequestData.class);
        List<CompletableFuture<DescribeConfigsResult>> results = new ArrayList<>();
        for (DescribeConfigsResource resource : data.resources()) {
            results.add(describe(resource, data.includeSynonyms()).exceptionally(e -> error(resource,
                    Errors.UNKNOWN_SERVER_ERROR, Answers.message(e))));
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenApply(v -> {
            DescribeConfigsResponseData out = new DescribeConfigsResponseData();
            results.forEach(f -> out.results().add(f.join()));
            return out;
        });
    }

    private CompletableFuture<DescribeConfigsResult> describe(DescribeConfigsResource resource, boolean synonyms) {
        ConfigResource.Type type = ConfigResource.Type.forId(resource.resourceType());
        if (type == ConfigResource.Type.TOPIC) {
            return CompletableFuture.completedFuture(topic(resource, synonyms));
        }
        if (type == ConfigResource.Type.BROKER) {
            return broker(resource, synonyms);
        }
        return CompletableFuture.completedFuture(error(resource, Errors.INVALID_REQUEST,
                "resource type " + type + " is not served; TOPIC and BROKER are"));
    }

    private DescribeConfigsResult topic(DescribeConfigsResource resource, boolean includeSynonyms) {
        MetadataImage image = deps.image().get();
        Optional<TopicImage> topic = image.topic(resource.resourceName());
        if (topic.isEmpty()) {
            return error(resource, Errors.UNKNOWN_TOPIC_OR_PARTITION, "unknown topic '" + resource.resourceName() + "'");
        }
        Set<String> wanted = wanted(resource);
        DescribeConfigsResult out = ok(resource);
        for (ConfigView c : topics.describe(image, topic.get().configs())) {
            if (wanted == null || wanted.contains(c.name())) {
                out.configs().add(entry(c, includeSynonyms));
            }
        }
        return out;
    }

    private CompletableFuture<DescribeConfigsResult> broker(DescribeConfigsResource resource, boolean includeSynonyms) {
        int brokerId;
        try {
            brokerId = resource.resourceName().isEmpty() ? DynamicBrokerConfigs.CLUSTER_DEFAULT
                    : Integer.parseInt(resource.resourceName());
        } catch (NumberFormatException e) {
            return CompletableFuture.completedFuture(error(resource, Errors.INVALID_REQUEST,
                    "a broker resource is named by its id or \"\" (the cluster default), got '"
                            + resource.resourceName() + "'"));
        }
        Set<String> wanted = wanted(resource);
        return Answers.call(() -> CompletableFuture.completedFuture(
                deps.services().configs().describeBrokerConfigs(brokerId))).thenApply(r -> broker(resource, r, wanted,
                brokerId, includeSynonyms));
    }

    private DescribeConfigsResult broker(DescribeConfigsResource resource, ConfigsService.BrokerConfigs r,
                                         Set<String> wanted, int brokerId, boolean includeSynonyms) {
        if (r.error().isError()) {
            return error(resource, Errors.forCode(r.error().code()), r.error().message());
        }
        DescribeConfigsResult out = ok(resource);
        for (BrokerConfigResolver.Described d : r.entries()) {
            if (wanted == null || wanted.contains(d.name())) {
                out.configs().add(entry(brokerView(d), includeSynonyms));
            }
        }
        // Only broker N knows its file (the service refused any other id above).
        if (brokerId != DynamicBrokerConfigs.CLUSTER_DEFAULT) {
            out.configs().addAll(ReadOnlyBrokerConfigs.describe(deps.staticProps(), wanted, includeSynonyms));
        }
        return out;
    }

    /** The keys asked for, null for all: Kafka's clients send null; an empty list is read the same way. */
    private static Set<String> wanted(DescribeConfigsResource resource) {
        List<String> keys = resource.configurationKeys();
        return keys == null || keys.isEmpty() ? null : new HashSet<>(keys);
    }

    private static ConfigView brokerView(BrokerConfigResolver.Described d) {
        ConfigDef.ConfigKey key = BROKER_KEYS.configKeys().get(d.name());
        return new ConfigView(d.name(), d.value(), ConfigView.source(d.source().name()),
                d.synonyms().stream().map(s -> new ConfigView.Synonym(s.name(), s.value(),
                        ConfigView.source(s.source().name()))).toList(),
                key == null ? ConfigType.UNKNOWN : ConfigView.type(key.type()));
    }

    private static DescribeConfigsResourceResult entry(ConfigView c, boolean includeSynonyms) {
        DescribeConfigsResourceResult r = new DescribeConfigsResourceResult().setName(c.name()).setValue(c.value())
                .setReadOnly(false).setIsSensitive(false).setConfigSource(c.source().id()).setConfigType(c.type().id());
        if (includeSynonyms) {
            List<DescribeConfigsSynonym> synonyms = new ArrayList<>();
            c.synonyms().forEach(s -> synonyms.add(new DescribeConfigsSynonym().setName(s.name()).setValue(s.value())
                    .setSource(s.source().id())));
            r.setSynonyms(synonyms);
        }
        return r;
    }

    private static DescribeConfigsResult ok(DescribeConfigsResource resource) {
        return new DescribeConfigsResult().setResourceType(resource.resourceType())
                .setResourceName(resource.resourceName()).setErrorCode(Errors.NONE.code()).setConfigs(new ArrayList<>());
    }

    private static DescribeConfigsResult error(DescribeConfigsResource resource, Errors error, String message) {
        return new DescribeConfigsResult().setResourceType(resource.resourceType())
                .setResourceName(resource.resourceName()).setErrorCode(error.code())
                .setErrorMessage(ErrorMessages.bounded(message))
                .setConfigs(new ArrayList<>());
    }
}
