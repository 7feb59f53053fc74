package io.tideline.node.kafka.admin;

import io.tideline.node.api.AdminApiService;
import io.tideline.node.config.BrokerConfigResolver;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.Endpoint;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the Kafka admin APIs need from the node: the gRPC admin service they translate to (every rule lives
 * there or behind it, in the controller), and the few inputs of what only the Kafka protocol asks for (the
 * full topic config view, the Kafka endpoints of brokers, the broker's defaults for -1 in CreateTopics).
 *
 * @param staticProps              the node's properties as loaded (file and --override values)
 * @param defaultNumPartitions     num.partitions: CreateTopics' num_partitions -1
 * @param defaultReplicationFactor default.replication.factor: CreateTopics' replication_factor -1
 * @param kafkaEndpoint            the Kafka listener endpoint a broker registered, empty when it has none
 */
public record AdminDeps(int brokerId, String clusterId, AdminApiService admin, Supplier<MetadataImage> image,
                        BrokerConfigResolver brokerConfigs, Map<String, ?> staticProps, int defaultNumPartitions,
                        short defaultReplicationFactor,
                        Function<BrokerRegistrationRecord, Optional<Endpoint>> kafkaEndpoint) {

    public AdminDeps {
        Objects.requireNonNull(clusterId, "clusterId");
        Objects.requireNonNull(admin, "admin");
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(brokerConfigs, "brokerConfigs");
        staticProps = Map.copyOf(staticProps);
        Objects.requireNonNull(kafkaEndpoint, "kafkaEndpoint");
    }
}
