package io.tideline.node.server;

import static io.tideline.node.kafka.KafkaListenerConfig.KAFKA_ADVERTISED_LISTENERS_CONFIG;
import static io.tideline.node.kafka.KafkaListenerConfig.KAFKA_LISTENERS_CONFIG;

import io.tideline.common.config.ConfigException;
import java.util.Optional;

/**
 * The Kafka protocol listener of a node, as {@code kafka.listeners} and {@code kafka.advertised.listeners} give it
 * (docs/kafka-protocol.md): the address bound and the one registered for clients, with the same listener name.
 */
public record KafkaListeners(Listener bind, Listener advertised) {

    /** Parses both values as read; empty when {@code kafka.listeners} is empty; {@link ConfigException} names the bad key. */
    static Optional<KafkaListeners> parse(String listeners, String advertised) {
        if (listeners == null || listeners.isBlank()) {
            if (advertised != null && !advertised.isBlank()) {
                throw new ConfigException(KAFKA_ADVERTISED_LISTENERS_CONFIG, advertised,
                        "needs kafka.listeners: there is no Kafka listener to advertise");
            }
            return Optional.empty();
        }
        if (listeners.contains(",")) {
            throw new ConfigException(KAFKA_LISTENERS_CONFIG, listeners, "takes one listener, NAME://host:port");
        }
        Listener bind = Listener.parse(KAFKA_LISTENERS_CONFIG, listeners);
        Listener adv = advertised == null ? bind : Listener.parse(KAFKA_ADVERTISED_LISTENERS_CONFIG, advertised);
        if (adv.host().isEmpty()) {
            throw new ConfigException(advertised == null ? KAFKA_LISTENERS_CONFIG : KAFKA_ADVERTISED_LISTENERS_CONFIG,
                    adv.toString(), "clients need a host to reach this node: set kafka.advertised.listeners with a host");
        }
        if (!adv.name().equals(bind.name())) {
            throw new ConfigException(KAFKA_ADVERTISED_LISTENERS_CONFIG, adv.toString(),
                    "must have the listener name of kafka.listeners (" + bind.name() + ")");
        }
        return Optional.of(new KafkaListeners(bind, adv));
    }
}
