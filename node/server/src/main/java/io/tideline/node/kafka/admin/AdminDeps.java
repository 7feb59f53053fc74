package io.tideline.node.kafka.admin;

import io.tideline.node.config.BrokerConfigResolver;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.service.AdminServices;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.Endpoint;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the Kafka admin APIs need from the node: the admin operations they translate to (every rule lives there or
 * behind them, in the controller), and the few inputs of what only the Kafka protocol asks for (the full topic
 * config view, the Kafka endpoints of brokers).
 *
 * @param staticProps   the node's properties as loaded (file and --override values)
 * @param kafkaEndpoint the Kafka listener endpoint a broker registered, empty when it has none
 */
public record AdminDeps(int brokerId, String clusterId, AdminServices services, Supplier<MetadataImage> image,
                        BrokerConfigResolver brokerConfigs, Map<String, ?> staticProps,
                        Function<BrokerRegistrationRecord, Optional<Endpoint>> kafkaEndpoint) {

    public AdminDeps {
        Objects.requireNonNull(clusterId, "clusterId");
        Objects.requireNonNull(services, "services");
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(brokerConfigs, "brokerConfigs");
        staticProps = Map.copyOf(staticProps);
        Objects.requireNonNull(kafkaEndpoint, "kafkaEndpoint");
    }
}
