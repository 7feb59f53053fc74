package io.tideline.node.server;

import io.tideline.common.config.ConfigException;
import java.util.Locale;

/**
 * A listener in Kafka's notation, {@code NAME://host:port} (an empty host means every interface when
 * binding and is not allowed in advertised.listeners).
 */
public record Listener(String name, String host, int port) {

    public static Listener parse(String key, String value) {
        String v = value == null ? "" : value.trim();
        int sep = v.indexOf("://");
        int colon = v.lastIndexOf(':');
        if (sep <= 0 || colon < sep + 3) {
            throw new ConfigException(key, value, "must be NAME://host:port, e.g. PLAINTEXT://127.0.0.1:9092");
        }
        String name = v.substring(0, sep).toUpperCase(Locale.ROOT);
        String host = v.substring(sep + 3, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(v.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new ConfigException(key, value, "the port must be a number in NAME://host:port");
        }
        if (port < 0 || port > 65535) {
            throw new ConfigException(key, value, "the port must be within 0-65535");
        }
        if (!name.matches("[A-Z][A-Z0-9_]*")) {
            throw new ConfigException(key, value, "the listener name must be letters, digits and '_'");
        }
        return new Listener(name, host, port);
    }

    /** The host to bind: all interfaces when none was given. */
    public String bindHost() {
        return host.isEmpty() ? "0.0.0.0" : host;
    }

    @Override
    public String toString() {
        return name + "://" + host + ":" + port;
    }
}
