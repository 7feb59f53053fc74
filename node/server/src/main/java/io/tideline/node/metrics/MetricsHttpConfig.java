package io.tideline.node.metrics;

import static io.tideline.common.config.ConfigDef.Importance.MEDIUM;
import static io.tideline.common.config.ConfigDef.Type.INT;
import static io.tideline.common.config.ConfigDef.Type.STRING;

import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.ConfigException;
import io.tideline.common.config.Range;
import io.tideline.common.config.Validator;

/**
 * The node configuration keys of the metrics endpoint ({@link MetricsHttpServer}); the node config adds them with
 * {@link #define}. Not Kafka keys (Kafka has no built-in HTTP endpoint; its users run the JMX exporter agent), so
 * they take the {@code metrics.} prefix Kafka uses for its metrics settings.
 */
public final class MetricsHttpConfig {

    public static final String METRICS_HTTP_HOST_CONFIG = "metrics.http.host";
    /**
     * What an unset {@code metrics.http.host} binds when the listener has no host either (the listener binds
     * every interface): all interfaces as well. With a listener host the endpoint binds that host, so a node
     * whose listener serves only 127.0.0.1 does not publish its metrics and health on every interface.
     */
    public static final String ALL_INTERFACES = "0.0.0.0";

    public static final String METRICS_HTTP_PORT_CONFIG = "metrics.http.port";
    /** The port Strimzi's Kafka pods serve Prometheus metrics on, so existing scrape configs need no change. */
    public static final int METRICS_HTTP_PORT_DEFAULT = 9404;
    /** The port value that turns the endpoint off. */
    public static final int METRICS_HTTP_DISABLED = -1;

    private MetricsHttpConfig() {
    }

    /** Adds the two keys to {@code def} and returns it. */
    public static ConfigDef define(ConfigDef def) {
        return def
                .define(METRICS_HTTP_HOST_CONFIG, STRING, null, new NonBlank(), MEDIUM,
                        "The address the metrics endpoint (GET /metrics in the Prometheus text format, GET /health) "
                        + "listens on: 0.0.0.0 for all interfaces, 127.0.0.1 to serve only this machine. Unset, it "
                        + "is the host of listeners (0.0.0.0 when that host is empty), so the endpoint is reachable "
                        + "from where the listener is; set 0.0.0.0 for a Prometheus on another machine when the "
                        + "listener serves one address.")
                .define(METRICS_HTTP_PORT_CONFIG, INT, METRICS_HTTP_PORT_DEFAULT,
                        Range.between(METRICS_HTTP_DISABLED, 65535), MEDIUM,
                        "The TCP port of the metrics endpoint; -1 turns it off, 0 takes any free port (tests). "
                        + "Nodes that share a machine need distinct ports.");
    }

    /**
     * The host the endpoint binds: {@code configured} ({@code metrics.http.host}, null when unset), else the
     * listener's host, else (an empty listener host binds every interface) all interfaces.
     */
    public static String bindHost(String configured, String listenerHost) {
        if (configured != null) {
            return configured;
        }
        return listenerHost == null || listenerHost.isEmpty() ? ALL_INTERFACES : listenerHost;
    }

    /** Whether a parsed {@code metrics.http.port} value asks for the endpoint. */
    public static boolean enabled(int port) {
        return port != METRICS_HTTP_DISABLED;
    }

    private static final class NonBlank implements Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (!(value instanceof String s) || s.isBlank()) {
                throw new ConfigException(name, "\"" + value + "\"", "must not be empty");
            }
        }

        @Override
        public String describe() {
            return "non-empty string";
        }
    }
}
