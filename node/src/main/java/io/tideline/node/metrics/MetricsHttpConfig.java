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
    /** All interfaces: Prometheus normally scrapes from another machine. */
    public static final String METRICS_HTTP_HOST_DEFAULT = "0.0.0.0";

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
                .define(METRICS_HTTP_HOST_CONFIG, STRING, METRICS_HTTP_HOST_DEFAULT, new NonBlank(), MEDIUM,
                        "The address the metrics endpoint (GET /metrics in the Prometheus text format, GET /health) "
                        + "listens on: 0.0.0.0 for all interfaces, 127.0.0.1 to serve only this machine.")
                .define(METRICS_HTTP_PORT_CONFIG, INT, METRICS_HTTP_PORT_DEFAULT,
                        Range.between(METRICS_HTTP_DISABLED, 65535), MEDIUM,
                        "The TCP port of the metrics endpoint; -1 turns it off, 0 takes any free port (tests). "
                        + "Nodes that share a machine need distinct ports.");
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
