package io.tideline.node.server;

import static io.tideline.common.config.ConfigDef.Importance.HIGH;
import static io.tideline.common.config.ConfigDef.Importance.LOW;
import static io.tideline.common.config.ConfigDef.Importance.MEDIUM;
import static io.tideline.common.config.ConfigDef.Type.INT;
import static io.tideline.common.config.ConfigDef.Type.LONG;
import static io.tideline.common.config.ConfigDef.Type.STRING;

import io.tideline.common.config.AbstractConfig;
import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.ConfigException;
import io.tideline.common.config.Range;
import io.tideline.node.config.NodeConfig;
import io.tideline.node.kafka.ConnectionsPerIpOverrides;
import io.tideline.node.kafka.KafkaListenerConfig;
import io.tideline.node.kafka.KafkaServer;
import io.tideline.node.metrics.MetricsHttpConfig;
import io.tideline.replication.ReplicationConfig;
import io.tideline.store.config.StoreConfig;
import java.io.IOException;
import java.io.Reader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * Everything a node process reads from its properties file: the node settings ({@link NodeConfig}), the
 * store's ({@link StoreConfig}), replication's ({@link ReplicationConfig}) and the process's own
 * (listeners, shutdown). {@link #validate} checks every key and reports every bad one, one line each, so an
 * operator fixes a file in one pass. Immutable.
 */
public final class ServerConfig extends AbstractConfig {
    public static final String LISTENERS_CONFIG = "listeners";
    public static final String ADVERTISED_LISTENERS_CONFIG = "advertised.listeners";
    public static final String CONTROLLED_SHUTDOWN_TIMEOUT_MS_CONFIG = "controlled.shutdown.timeout.ms";
    public static final String SOCKET_REQUEST_MAX_BYTES_CONFIG = "socket.request.max.bytes";
    public static final String QUEUED_MAX_REQUEST_BYTES_CONFIG = "queued.max.request.bytes";
    public static final String NUM_IO_THREADS_CONFIG = "num.io.threads";
    public static final String BACKGROUND_THREADS_CONFIG = "background.threads";
    public static final String MAX_CONCURRENT_CALLS_PER_CONNECTION_CONFIG = "grpc.max.concurrent.calls.per.connection";
    public static final String FLOW_CONTROL_WINDOW_BYTES_CONFIG = "grpc.flow.control.window.bytes";

    private static final ConfigDef CONFIG = KafkaListenerConfig.define(MetricsHttpConfig.define(new ConfigDef()))
            .define(LISTENERS_CONFIG, STRING, "PLAINTEXT://127.0.0.1:9392", HIGH,
                    "The gRPC listener for Tideline's clients, the tideline CLI and replication, NAME://host:port "
                    + "(one listener). Kafka's well-known port 9092 is left to kafka.listeners. An empty host binds "
                    + "every interface; port 0 picks a free port (tests).")
            .define(ADVERTISED_LISTENERS_CONFIG, STRING, null, HIGH,
                    "The address registered with the controller for other brokers and clients to reach this "
                    + "one, NAME://host:port; defaults to listeners (then the host must not be empty).")
            .define(CONTROLLED_SHUTDOWN_TIMEOUT_MS_CONFIG, LONG, 30_000L, Range.atLeast(0), MEDIUM,
                    "On SIGTERM, how long the broker waits for the controller to move its leaderships away "
                    + "before it stops anyway (the logs are still closed cleanly).")
            .define(SOCKET_REQUEST_MAX_BYTES_CONFIG, INT, 100 * 1024 * 1024, Range.atLeast(1024), HIGH,
                    "The largest request the listeners read, in bytes: on the gRPC listener a larger one fails with "
                    + "RESOURCE_EXHAUSTED, on the Kafka listener a larger size field closes the connection, before "
                    + "anything of it is applied. Kafka's key and default.")
            .define(QUEUED_MAX_REQUEST_BYTES_CONFIG, LONG, 100L * 1024 * 1024, Range.atLeast(1), HIGH,
                    "The bytes of received requests each listener holds before it has handled them, in a pool of "
                    + "its own (the gRPC and the Kafka listener each, so that neither's clients can starve the "
                    + "other's or replication; the Kafka listener charges bytes as they arrive and may pass it by "
                    + "one request to let a frame finish); past it, a listener stops reading new requests until "
                    + "room frees, so clients feel back-pressure instead of the node running out of heap (parked "
                    + "acks=all produces and fetches hold none). At least socket.request.max.bytes. Kafka's key; "
                    + "unlike Kafka's -1 default it is bounded.")
            .define(NUM_IO_THREADS_CONFIG, INT, 8, Range.atLeast(1), MEDIUM,
                    "Threads that handle requests (produce appends, fetch reads, admin calls); a fixed pool, "
                    + "so the thread count does not follow the load.")
            .define(BACKGROUND_THREADS_CONFIG, INT, 10, Range.atLeast(1), LOW,
                    "Threads for the logs' background work: retention passes, delayed unlinks, checkpoints, "
                    + "the fsync of a rolled segment. Kept apart from the threads that send heartbeats and expire "
                    + "requests, so a slow disk does not get a healthy broker fenced. Kafka's key and default.")
            .define(MAX_CONCURRENT_CALLS_PER_CONNECTION_CONFIG, INT, 100, Range.atLeast(1), LOW,
                    "Requests one client connection may have open at once (HTTP/2 MAX_CONCURRENT_STREAMS); "
                    + "a client with more waits for one to finish. With fetch.max.bytes it bounds the answers "
                    + "a connection can have queued.")
            .define(FLOW_CONTROL_WINDOW_BYTES_CONFIG, INT, 1024 * 1024, Range.atLeast(64 * 1024), LOW,
                    "The HTTP/2 flow-control window of each call and connection (fixed, not auto-tuned): the "
                    + "most a peer may send on a connection before the node has read it.");

    private final NodeConfig node;
    private final StoreConfig store;
    private final ReplicationConfig replication;
    private final io.tideline.node.group.GroupConfig groups;
    private final Listener listener;
    private final Listener advertised;
    private final Optional<KafkaListeners> kafka;
    private final Map<InetAddress, Integer> connectionsPerIpOverrides;

    private ServerConfig(Map<String, ?> props) {
        super(CONFIG, props);
        this.node = NodeConfig.fromMap(props);
        this.store = StoreConfig.fromMap(props);
        this.replication = ReplicationConfig.fromMap(props);
        this.groups = new io.tideline.node.group.GroupConfig(props);
        this.listener = Listener.parse(LISTENERS_CONFIG, getString(LISTENERS_CONFIG));
        String adv = getString(ADVERTISED_LISTENERS_CONFIG);
        this.advertised = adv == null ? listener : Listener.parse(ADVERTISED_LISTENERS_CONFIG, adv);
        this.kafka = KafkaListeners.parse(getString(KafkaListenerConfig.KAFKA_LISTENERS_CONFIG),
                getString(KafkaListenerConfig.KAFKA_ADVERTISED_LISTENERS_CONFIG));
        this.connectionsPerIpOverrides = ConnectionsPerIpOverrides.parse(
                getString(KafkaListenerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG));
        if (getInt(KafkaListenerConfig.MAX_CONNECTIONS_PER_IP_CONFIG) == 0 && connectionsPerIpOverrides.isEmpty()) {
            // Kafka's rule too: 0 with no override would refuse every client.
            throw new ConfigException(KafkaListenerConfig.MAX_CONNECTIONS_PER_IP_CONFIG, 0,
                    "0 refuses every address not named in max.connections.per.ip.overrides, which is empty");
        }
        if (getLong(QUEUED_MAX_REQUEST_BYTES_CONFIG) < getInt(SOCKET_REQUEST_MAX_BYTES_CONFIG)) {
            throw new ConfigException(QUEUED_MAX_REQUEST_BYTES_CONFIG, getLong(QUEUED_MAX_REQUEST_BYTES_CONFIG),
                    "must be at least socket.request.max.bytes (" + getInt(SOCKET_REQUEST_MAX_BYTES_CONFIG) + ")");
        }
        if (advertised.host().isEmpty()) {
            throw new ConfigException(adv == null ? LISTENERS_CONFIG : ADVERTISED_LISTENERS_CONFIG, advertised.toString(),
                    "other nodes need a host to reach this one: set advertised.listeners with a host");
        }
    }

    /**
     * Parses and validates.
     *
     * @throws ConfigException listing every bad key (one per line) when anything is wrong
     */
    public static ServerConfig fromMap(Map<String, ?> props) {
        List<String> problems = validate(props);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems.get(0).split(":", 2)[0], String.join("\n", problems));
        }
        return new ServerConfig(props);
    }

    /** Reads a properties file (UTF-8), applies {@code overrides} on top, then parses. */
    public static ServerConfig load(Path file, Map<String, String> overrides) throws IOException {
        return fromMap(readProperties(file, overrides));
    }

    public static Map<String, Object> readProperties(Path file, Map<String, String> overrides) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        }
        Map<String, Object> props = new LinkedHashMap<>();
        for (String name : properties.stringPropertyNames()) {
            props.put(name, properties.getProperty(name).trim());
        }
        props.putAll(overrides);
        return props;
    }

    /** Every definition a node reads, for the unknown-key check and the docs. */
    public static List<ConfigDef> definitions() {
        return List.of(CONFIG, NodeConfig.configDef(), StoreConfig.configDef(), ReplicationConfig.configDef(),
                io.tideline.node.group.GroupConfig.configDef());
    }

    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }

    /**
     * Every problem with {@code props}, one line each ("key: why"): bad values and missing required keys
     * of every definition, then the rules across keys. Empty when the config is good.
     */
    public static List<String> validate(Map<String, ?> props) {
        List<String> problems = new ArrayList<>();
        for (ConfigDef def : definitions()) {
            for (ConfigDef.ConfigKey key : def.configKeys().values()) {
                Object raw = props.get(key.name());
                if (raw == null) {
                    // log.dir stands in for log.dirs; the store's own check reports when both are missing.
                    if (key.required() && !(key.name().equals(StoreConfig.LOG_DIRS_CONFIG)
                            && props.get(StoreConfig.LOG_DIR_CONFIG) != null)) {
                        problems.add(key.name() + ": missing (required)");
                    }
                    continue;
                }
                try {
                    Object value = ConfigDef.parseType(key.name(), raw, key.type());
                    if (key.validator() != null) {
                        key.validator().ensureValid(key.name(), value);
                    }
                } catch (ConfigException e) {
                    problems.add(key.name() + ": " + e.getMessage());
                }
            }
        }
        if (problems.isEmpty()) {
            try {
                new ServerConfig(props);
            } catch (ConfigException e) {
                problems.add(e.key() + ": " + e.getMessage());
            }
        }
        return problems;
    }

    /** Keys in {@code props} no definition knows (typos); reported as warnings, as Kafka does. */
    public static Set<String> unknownKeys(Map<String, ?> props) {
        Set<String> unknown = new TreeSet<>(props.keySet());
        for (ConfigDef def : definitions()) {
            unknown.removeAll(def.names());
        }
        return unknown;
    }

    public NodeConfig node() {
        return node;
    }

    public StoreConfig store() {
        return store;
    }

    /** The group coordinator's keys (docs/node-configuration.md). */
    public io.tideline.node.group.GroupConfig groups() {
        return groups;
    }

    public ReplicationConfig replication() {
        return replication;
    }

    public Listener listener() {
        return listener;
    }

    public Listener advertisedListener() {
        return advertised;
    }

    /** The Kafka protocol listener (bound and advertised); empty when {@code kafka.listeners} is empty. */
    public Optional<KafkaListeners> kafkaListener() {
        return kafka;
    }

    public long connectionsMaxIdleMs() {
        return getLong(KafkaListenerConfig.CONNECTIONS_MAX_IDLE_MS_CONFIG);
    }

    public long kafkaRequestReceiveTimeoutMs() {
        return getLong(KafkaListenerConfig.REQUEST_RECEIVE_TIMEOUT_MS_CONFIG);
    }

    public int kafkaMaxInFlightRequestsPerConnection() {
        return getInt(KafkaListenerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION_CONFIG);
    }

    /**
     * {@code max.connections}, {@code max.connections.per.ip} and {@code max.connections.per.ip.overrides} of the
     * Kafka listener.
     */
    public KafkaServer.ConnectionLimits kafkaConnectionLimits() {
        return new KafkaServer.ConnectionLimits(getInt(KafkaListenerConfig.MAX_CONNECTIONS_CONFIG),
                getInt(KafkaListenerConfig.MAX_CONNECTIONS_PER_IP_CONFIG), connectionsPerIpOverrides);
    }

    public int numNetworkThreads() {
        return getInt(KafkaListenerConfig.NUM_NETWORK_THREADS_CONFIG);
    }

    /** {@code metrics.http.host}, or when it is unset the listener's host (see {@link MetricsHttpConfig#bindHost}). */
    public String metricsHttpHost() {
        return MetricsHttpConfig.bindHost(getString(MetricsHttpConfig.METRICS_HTTP_HOST_CONFIG), listener.host());
    }

    /** -1: no metrics endpoint; 0: any free port. */
    public int metricsHttpPort() {
        return getInt(MetricsHttpConfig.METRICS_HTTP_PORT_CONFIG);
    }

    public long controlledShutdownTimeoutMs() {
        return getLong(CONTROLLED_SHUTDOWN_TIMEOUT_MS_CONFIG);
    }

    public int socketRequestMaxBytes() {
        return getInt(SOCKET_REQUEST_MAX_BYTES_CONFIG);
    }

    public long queuedMaxRequestBytes() {
        return getLong(QUEUED_MAX_REQUEST_BYTES_CONFIG);
    }

    public int numIoThreads() {
        return getInt(NUM_IO_THREADS_CONFIG);
    }

    public int backgroundThreads() {
        return getInt(BACKGROUND_THREADS_CONFIG);
    }

    public int maxConcurrentCallsPerConnection() {
        return getInt(MAX_CONCURRENT_CALLS_PER_CONNECTION_CONFIG);
    }

    public int flowControlWindowBytes() {
        return getInt(FLOW_CONTROL_WINDOW_BYTES_CONFIG);
    }
}
