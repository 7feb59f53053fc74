package io.tideline.node.kafka;

import static io.tideline.common.config.ConfigDef.Importance.HIGH;
import static io.tideline.common.config.ConfigDef.Importance.MEDIUM;
import static io.tideline.common.config.ConfigDef.Type.INT;
import static io.tideline.common.config.ConfigDef.Type.LONG;
import static io.tideline.common.config.ConfigDef.Type.STRING;

import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.Range;

/**
 * The node configuration keys of the Kafka listener (docs/kafka-protocol.md); the node config adds them with
 * {@link #define}. The request size bound is the gRPC listener's {@code socket.request.max.bytes} and the bytes
 * in flight share its {@code queued.max.request.bytes} pool, so both bounds hold per node across both listeners.
 *
 * <p>The values are parsed, with the gRPC listener's, by the node's ServerConfig (KafkaListeners there).
 *
 * <p>No Kafka listener by default: a node that opened a second, unauthenticated port nobody asked for would surprise
 * an operator. Kafka's well-known port 9092 is kept free for it (the gRPC listener defaults to 9392), and cluster.sh,
 * the compose files and the README's hand-run node set it there (docs/kafka-protocol.md, Ports).
 */
public final class KafkaListenerConfig {
    public static final String KAFKA_LISTENERS_CONFIG = "kafka.listeners";
    public static final String KAFKA_ADVERTISED_LISTENERS_CONFIG = "kafka.advertised.listeners";
    public static final String NUM_NETWORK_THREADS_CONFIG = "num.network.threads";
    public static final String CONNECTIONS_MAX_IDLE_MS_CONFIG = "connections.max.idle.ms";
    public static final String REQUEST_RECEIVE_TIMEOUT_MS_CONFIG = "kafka.request.receive.timeout.ms";
    public static final String MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION_CONFIG = "kafka.max.in.flight.requests.per.connection";
    public static final String MAX_CONNECTIONS_CONFIG = "max.connections";
    public static final String MAX_CONNECTIONS_PER_IP_CONFIG = "max.connections.per.ip";
    public static final String MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG = "max.connections.per.ip.overrides";

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
                        + "and default.")
                .define(CONNECTIONS_MAX_IDLE_MS_CONFIG, LONG, 600_000L, Range.atLeast(1), MEDIUM,
                        "A Kafka connection with no request in progress that reads and writes nothing for this long is "
                        + "closed, and so is a peer that stops in the middle of sending a request (its bytes held "
                        + "count against queued.max.request.bytes). Kafka's key and default.")
                .define(REQUEST_RECEIVE_TIMEOUT_MS_CONFIG, LONG, 30_000L, Range.atLeast(1), MEDIUM,
                        "The longest a Kafka connection may take to send one request whole, from its first byte, "
                        + "not counting time the node made it wait for request memory. A connection past it is "
                        + "closed with a WARN line, so that a peer that declares a large request and then sends "
                        + "nothing, or trickles it, holds its connection and its bytes for this long at most. The "
                        + "default is kafka-clients' request.timeout.ms, after which a client has given up on a "
                        + "request it has not finished sending. See docs/kafka-protocol.md, \"Receive deadline\".")
                .define(MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION_CONFIG, INT, 5, Range.between(1, 100), MEDIUM,
                        "How many of a Kafka connection's pipelined requests may be unanswered at once. Requests are "
                        + "still handled one after the other and answered in order; a Produce waiting for its "
                        + "followers (acks=all) no longer holds back reading the next one. 5 matches the Kafka "
                        + "producer's max.in.flight.requests.per.connection; 1 is Kafka's broker rule (read the next "
                        + "request only once the last answer is written). Beyond it a client's requests wait in its "
                        + "socket. See docs/kafka-protocol.md, \"Pipelined requests\".")
                .define(MAX_CONNECTIONS_CONFIG, INT, Integer.MAX_VALUE, Range.atLeast(1), MEDIUM,
                        "The most connections the Kafka listener keeps open at once. At the limit it stops "
                        + "accepting until one closes: new connections wait in the accept backlog, as with Kafka "
                        + "(kafka.network:type=Acceptor,name=AcceptorBlockedPercent). Kafka's key and default; "
                        + "the gRPC listener's connections are not counted.")
                .define(MAX_CONNECTIONS_PER_IP_CONFIG, INT, Integer.MAX_VALUE, Range.atLeast(0), MEDIUM,
                        "The most Kafka listener connections from one IP address. One more from that address is "
                        + "closed at once, with an INFO line. 0 admits only the addresses named in "
                        + "max.connections.per.ip.overrides, and then needs at least one. Kafka's key and default.")
                .define(MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG, STRING, "", MEDIUM,
                        "Bounds for particular addresses in place of max.connections.per.ip, as host:count pairs "
                        + "separated by commas (e.g. 127.0.0.1:200,broker-host:50; an IPv6 address may be written "
                        + "[::1]:10). A host name is resolved once, when the node reads its config; one that does "
                        + "not resolve is a config error. A count of 0 refuses that address. Kafka's key and format.");
    }
}
