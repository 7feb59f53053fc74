package io.tideline.node.kafka;

import io.tideline.common.config.ConfigException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Kafka's {@code max.connections.per.ip.overrides}: {@code host:count,host:count}, where a host is an IP address
 * or a name, each with its own bound in place of {@code max.connections.per.ip}. Names are resolved once, when the
 * config is read, as Kafka's broker resolves them when it starts: a name that does not resolve is a config error
 * rather than an override silently never applied. The count is split off at the last colon, so an IPv6 address
 * may be written bare or in brackets ({@code ::1:10}, {@code [::1]:10}).
 */
public final class ConnectionsPerIpOverrides {
    private ConnectionsPerIpOverrides() {
    }

    /**
     * The bound of each address named in {@code value}; empty for an empty value.
     *
     * @throws ConfigException naming the entry that is not {@code host:count} with a count of at least 0, or whose
     *                         host does not resolve
     */
    public static Map<InetAddress, Integer> parse(String value) {
        Map<InetAddress, Integer> out = new LinkedHashMap<>();
        if (value == null || value.isBlank()) {
            return out;
        }
        for (String raw : value.split(",")) {
            String entry = raw.trim();
            int colon = entry.lastIndexOf(':');
            if (colon <= 0 || colon == entry.length() - 1) {
                throw bad(value, "'" + entry + "' is not host:count");
            }
            String host = entry.substring(0, colon).trim();
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int count;
            try {
                count = Integer.parseInt(entry.substring(colon + 1).trim());
            } catch (NumberFormatException e) {
                throw bad(value, "'" + entry + "': the count is not a whole number");
            }
            if (count < 0) {
                throw bad(value, "'" + entry + "': the count must be at least 0");
            }
            InetAddress address;
            try {
                address = InetAddress.getByName(host);
            } catch (UnknownHostException e) {
                throw bad(value, "'" + entry + "': the host does not resolve");
            }
            if (out.put(address, count) != null) {
                throw bad(value, "'" + entry + "': " + address.getHostAddress() + " is named twice");
            }
        }
        return out;
    }

    private static ConfigException bad(String value, String why) {
        return new ConfigException(KafkaListenerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG, value, why);
    }
}
