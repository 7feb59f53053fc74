package io.tideline.node.kafka;

import static io.tideline.common.config.ConfigDef.Importance.HIGH;
import static io.tideline.common.config.ConfigDef.Importance.MEDIUM;
import static io.tideline.common.config.ConfigDef.Type.INT;
import static io.tideline.common.config.ConfigDef.Type.STRING;

import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.ConfigException;
import io.tideline.common.config.Range;
import io.tideline.node.server.Listener;
import java.util.Optional;

/**
 * The node configuration keys of the Kafka listener (docs/kafka-protocol.md); the node config adds them with
 * {@link #define}. The request size bound is the gRPC listener's {@code socket.request.max.bytes} and the bytes
 * in flight share its {@code queued.max.request.bytes} pool, so both bounds hold per node across both listeners.
 *
 * <p>No Kafka listener by default: the gRPC listener's default already holds Kafka's well-known port 9092, and a
 * node that opened a second, unauthenticated port nobody asked for would surprise an operator. cluster.sh, the
 * compose files and the test cluster set it.
 */
public final class KafkaListenerConfig {
    public static final String KAFKA_LISTENERS_CONFIG = "kafka.listeners";
    public static final String KAFKA_ADVERTISED_LISTENERS_CONFIG = "kafka.advertised.listeners";
    public static final String NUM_NETWORK_THREADS_CONFIG = "num.network.threads";

    private KafkaListenerConfig() {
    }

    /** Adds the keys to {@code def} and returns it. */
    public static ConfigDef define(ConfigDef def) {
        return def
                .define(KAFKA_LISTENERS_CONFIG, STRING, "", HIGH,
                        "The listener for Kafka's binary protocol (Apache Kafka's clients and tools), "
                        + "NAME://host:port in Kafka's notation (one listener, PLAINTEXT only). Empty (the default): "
                        + "no Kafka listener. An empty host binds every interface; port 0 picks a free port (tests).")
                .define(KAFKA_ADVERTISED_LISTENERS_CONFIG, STRING, null, HIGH,
                        "The Kafka listener address registered with the controller, which Metadata answers give "
                        + "Kafka clients, NAME://host:port; defaults to kafka.listeners (then its host must not be "
                        + "empty). Its name must be the name of kafka.listeners.")
                .define(NUM_NETWORK_THREADS_CONFIG, INT, 3, Range.atLeast(1), MEDIUM,
                        "Threads that read requests from and write responses to the Kafka listener's connections "
                        + "(Netty event loops); the requests themselves run on the num.io.threads pool. Kafka's key "
                        + "and default.");
    }

    /** The bound listener and the advertised one; empty when {@code kafka.listeners} is empty. */
    public record Listeners(Listener bind, Listener advertised) {
    }

    /** Parses both values (as read by the config); throws {@link ConfigException} naming the bad key. */
    public static Optional<Listeners> parse(String listeners, String advertised) {
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
        return Optional.of(new Listeners(bind, adv));
    }
}
