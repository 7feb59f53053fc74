package io.tideline.client.internals;

import io.tideline.common.config.ConfigException;
import io.tideline.common.config.Validator;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses {@code bootstrap.servers}: {@code host:port} entries separated by commas, an IPv6 host in
 * brackets ({@code [::1]:9092}). The addresses are only used to find the cluster: the first one that
 * answers a Metadata request tells the client every broker's advertised address.
 */
public final class BootstrapServers implements Validator {
    public static final BootstrapServers VALIDATOR = new BootstrapServers();

    private BootstrapServers() {
    }

    public static List<BrokerAddress> parse(String key, List<String> entries) {
        if (entries.isEmpty()) {
            throw new ConfigException(key, "", "at least one host:port is needed");
        }
        List<BrokerAddress> addresses = new ArrayList<>(entries.size());
        for (String entry : entries) {
            addresses.add(parseOne(key, entry));
        }
        return List.copyOf(addresses);
    }

    private static BrokerAddress parseOne(String key, String entry) {
        String host;
        String port;
        if (entry.startsWith("[")) {
            int close = entry.indexOf(']');
            if (close < 0 || close + 1 >= entry.length() || entry.charAt(close + 1) != ':') {
                throw bad(key, entry);
            }
            host = entry.substring(1, close);
            port = entry.substring(close + 2);
        } else {
            int colon = entry.lastIndexOf(':');
            if (colon <= 0 || entry.indexOf(':') != colon) {
                throw bad(key, entry);
            }
            host = entry.substring(0, colon);
            port = entry.substring(colon + 1);
        }
        try {
            return new BrokerAddress(host, Integer.parseInt(port));
        } catch (IllegalArgumentException e) {
            throw bad(key, entry);
        }
    }

    private static ConfigException bad(String key, String entry) {
        return new ConfigException(key, entry, "expected host:port with a port in [1, 65535]");
    }

    @Override
    public void ensureValid(String name, Object value) {
        @SuppressWarnings("unchecked")
        List<String> entries = (List<String>) value;
        parse(name, entries);
    }

    @Override
    public String describe() {
        return "non-empty list of host:port";
    }
}
