package io.tideline.node.kafka.group;

import io.tideline.node.metadata.MetadataImage;
import java.util.Optional;

/** A broker's Kafka listener address as its registration in the image advertises it. */
@FunctionalInterface
public interface KafkaEndpoints {

    record HostPort(String host, int port) {
    }

    Optional<HostPort> of(MetadataImage image, int brokerId);
}
