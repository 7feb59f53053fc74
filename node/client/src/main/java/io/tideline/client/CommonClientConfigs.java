package io.tideline.client;

import io.tideline.client.internals.BootstrapServers;
import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.ConfigDef.Importance;
import io.tideline.common.config.ConfigDef.Type;
import io.tideline.common.config.Range;

/** The keys every client has, with Kafka's names and defaults. */
public final class CommonClientConfigs {
    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String CLIENT_ID = "client.id";
    public static final String REQUEST_TIMEOUT_MS = "request.timeout.ms";
    public static final String RETRY_BACKOFF_MS = "retry.backoff.ms";
    public static final String SOCKET_CONNECTION_SETUP_TIMEOUT_MS = "socket.connection.setup.timeout.ms";
    /** Kafka's default. */
    public static final long DEFAULT_SOCKET_CONNECTION_SETUP_TIMEOUT_MS = 10_000L;

    private CommonClientConfigs() {
    }

    /** A new definition holding the common keys; each client adds its own. */
    static ConfigDef base(int requestTimeoutDefaultMs) {
        return new ConfigDef()
                .define(BOOTSTRAP_SERVERS, Type.LIST, ConfigDef.NO_DEFAULT, BootstrapServers.VALIDATOR, Importance.HIGH,
                        "Brokers to ask for the cluster's metadata, as host:port,host:port. Any one broker that "
                        + "answers is enough: the answer lists every broker's advertised address, which the "
                        + "client then uses.")
                .define(CLIENT_ID, Type.STRING, "", Importance.LOW,
                        "A name for this client in its thread names and log lines.")
                .define(REQUEST_TIMEOUT_MS, Type.INT, requestTimeoutDefaultMs, Range.atLeast(1), Importance.MEDIUM,
                        "How long the client waits for the answer to one request before it treats the request as "
                        + "failed (REQUEST_TIMED_OUT) and, where it may, retries.")
                .define(RETRY_BACKOFF_MS, Type.LONG, 100L, Range.atLeast(0), Importance.LOW,
                        "How long the client waits before retrying a request that failed with a retriable error "
                        + "(after refreshing its metadata when the error says the leader moved).")
                .define(SOCKET_CONNECTION_SETUP_TIMEOUT_MS, Type.LONG, DEFAULT_SOCKET_CONNECTION_SETUP_TIMEOUT_MS,
                        Range.atLeast(1), Importance.MEDIUM,
                        "How long the client waits for a TCP connection to a broker to be set up before it counts "
                        + "the broker as unreachable (a refused connection fails at once). Until some broker has "
                        + "answered, the client tries each bootstrap.servers address once, in order, and the call "
                        + "fails with a BootstrapException naming every address and why it failed, instead of "
                        + "retrying until its timeout.");
    }
}
