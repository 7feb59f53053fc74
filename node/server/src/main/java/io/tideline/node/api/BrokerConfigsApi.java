package io.tideline.node.api;

import io.grpc.stub.StreamObserver;
import io.tideline.common.errors.Errors;
import io.tideline.node.config.BrokerConfigResolver;
import io.tideline.node.config.DynamicBrokerConfigs;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.admin.AlterBrokerConfigsRequest;
import io.tideline.proto.admin.AlterBrokerConfigsResponse;
import io.tideline.proto.admin.BrokerConfigEntry;
import io.tideline.proto.admin.BrokerConfigSource;
import io.tideline.proto.admin.BrokerConfigSynonym;
import io.tideline.proto.admin.DescribeBrokerConfigsRequest;
import io.tideline.proto.admin.DescribeBrokerConfigsResponse;
import io.tideline.proto.metadata.AlterBrokerConfigs;
import io.tideline.proto.metadata.ConfigEntry;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The admin API's broker configs: DescribeBrokerConfigs answered from this broker's image and static
 * file (a broker describes only itself, or the cluster-wide default, as in Kafka), AlterBrokerConfigs
 * forwarded to the controller, which validates it.
 */
final class BrokerConfigsApi {
    private final int brokerId;
    private final Supplier<MetadataImage> image;
    private final ControllerClient controller;
    private final BrokerConfigResolver resolver;

    BrokerConfigsApi(int brokerId, Supplier<MetadataImage> image, ControllerClient controller,
                     BrokerConfigResolver resolver) {
        this.brokerId = brokerId;
        this.image = Objects.requireNonNull(image, "image");
        this.controller = Objects.requireNonNull(controller, "controller");
        this.resolver = Objects.requireNonNull(resolver, "resolver");
    }

    void describe(DescribeBrokerConfigsRequest request, StreamObserver<DescribeBrokerConfigsResponse> observer) {
        int target = request.getBrokerId();
        DescribeBrokerConfigsResponse.Builder b = DescribeBrokerConfigsResponse.newBuilder();
        if (target != DynamicBrokerConfigs.CLUSTER_DEFAULT && target != brokerId) {
            // Only broker N knows its static file; Kafka's broker answers the same way.
            ClientApiService.respond(observer, b.setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("Unexpected broker id, expected " + brokerId + " or -1 (the cluster default), "
                            + "but received " + target).build());
            return;
        }
        MetadataImage current = image.get();
        boolean perBroker = target != DynamicBrokerConfigs.CLUSTER_DEFAULT;
        for (BrokerConfigResolver.Described d : resolver.describe(
                current.brokerConfigs(DynamicBrokerConfigs.CLUSTER_DEFAULT), current.brokerConfigs(brokerId), perBroker)) {
            BrokerConfigEntry.Builder e = BrokerConfigEntry.newBuilder().setName(d.name()).setSource(source(d.source()));
            if (d.value() != null) {
                e.setValue(d.value());
            }
            d.synonyms().forEach(s -> e.addSynonyms(BrokerConfigSynonym.newBuilder().setName(s.name())
                    .setValue(s.value()).setSource(source(s.source()))));
            b.addEntries(e);
        }
        ClientApiService.respond(observer, b.build());
    }

    void alter(AlterBrokerConfigsRequest request, StreamObserver<AlterBrokerConfigsResponse> observer) {
        AlterBrokerConfigs.Builder command = AlterBrokerConfigs.newBuilder().setBrokerId(request.getBrokerId())
                .addAllDelete(request.getDeleteList());
        request.getSetList().forEach(v -> command.addSet(ConfigEntry.newBuilder().setKey(v.getKey()).setValue(v.getValue())));
        controller.alterBrokerConfigs(command.build()).whenComplete((r, e) -> ClientApiService.respond(observer,
                AlterBrokerConfigsResponse.newBuilder()
                        .setErrorCode(e != null ? Errors.UNKNOWN_SERVER_ERROR.code() : r.getErrorCode())
                        .setErrorMessage(e != null ? String.valueOf(e.getMessage()) : r.getErrorMessage()).build()));
    }

    private static BrokerConfigSource source(BrokerConfigResolver.Source s) {
        return BrokerConfigSource.valueOf(s.name());
    }
}
