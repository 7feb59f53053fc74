package io.tideline.node.service;

import io.tideline.common.errors.Errors;
import io.tideline.node.config.BrokerConfigResolver;
import io.tideline.node.config.DynamicBrokerConfigs;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.AlterBrokerConfigs;
import io.tideline.proto.metadata.AlterConfigs;
import io.tideline.proto.metadata.ConfigEntry;
import io.tideline.proto.metadata.ControllerResponse;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Topic and broker configs. Changes go to the controller, which validates keys and values. Broker configs are
 * described from this broker's image and static file: a broker describes only itself, or the cluster-wide
 * default, as in Kafka. Stateless; thread-safe.
 */
public final class ConfigsService {
    private final int brokerId;
    private final Supplier<MetadataImage> image;
    private final ControllerClient controller;
    private final BrokerConfigResolver resolver;

    /** A refusal (no entries then), or NONE with every dynamic broker key described. */
    public record BrokerConfigs(ApiError error, List<BrokerConfigResolver.Described> entries) {
        public BrokerConfigs {
            entries = List.copyOf(entries);
        }
    }

    public ConfigsService(int brokerId, Supplier<MetadataImage> image, ControllerClient controller,
                          BrokerConfigResolver resolver) {
        this.brokerId = brokerId;
        this.image = Objects.requireNonNull(image, "image");
        this.controller = Objects.requireNonNull(controller, "controller");
        this.resolver = Objects.requireNonNull(resolver, "resolver");
    }

    /** {@code target} is this broker's id or {@link DynamicBrokerConfigs#CLUSTER_DEFAULT}. */
    public BrokerConfigs describeBrokerConfigs(int target) {
        if (target != DynamicBrokerConfigs.CLUSTER_DEFAULT && target != brokerId) {
            // Only broker N knows its static file; Kafka's broker answers the same way.
            return new BrokerConfigs(new ApiError(Errors.INVALID_REQUEST, "Unexpected broker id, expected " + brokerId
                    + " or -1 (the cluster default), but received " + target), List.of());
        }
        MetadataImage current = image.get();
        boolean perBroker = target != DynamicBrokerConfigs.CLUSTER_DEFAULT;
        return new BrokerConfigs(ApiError.NONE, resolver.describe(
                current.brokerConfigs(DynamicBrokerConfigs.CLUSTER_DEFAULT), current.brokerConfigs(brokerId), perBroker));
    }

    /** Sets and deletes dynamic keys of broker {@code target} (or the cluster default); the future never fails. */
    public CompletableFuture<ApiError> alterBrokerConfigs(int target, List<ConfigValue> set, List<String> delete) {
        AlterBrokerConfigs.Builder command = AlterBrokerConfigs.newBuilder().setBrokerId(target).addAllDelete(delete);
        set.forEach(v -> command.addSet(ConfigEntry.newBuilder().setKey(v.key()).setValue(v.value())));
        return controller.alterBrokerConfigs(command.build()).handle(ConfigsService::outcome);
    }

    /** Sets and deletes keys of one topic; the future never fails. */
    public CompletableFuture<ApiError> alterTopicConfigs(String topic, List<ConfigValue> set, List<String> delete) {
        AlterConfigs.Builder command = AlterConfigs.newBuilder().setTopic(topic).addAllDelete(delete);
        set.forEach(v -> command.addSet(ConfigEntry.newBuilder().setKey(v.key()).setValue(v.value())));
        return controller.alterConfigs(command.build()).handle(ConfigsService::outcome);
    }

    private static ApiError outcome(ControllerResponse r, Throwable e) {
        return e != null ? ApiError.unexpected(e) : new ApiError(Errors.forCode(r.getErrorCode()), r.getErrorMessage());
    }
}
