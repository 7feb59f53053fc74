package io.tideline.client.internals;

import java.util.Objects;

/** A broker's client endpoint as the cluster advertises it (or as given in bootstrap.servers). */
public record BrokerAddress(String host, int port) {

    public BrokerAddress {
        Objects.requireNonNull(host, "host");
        if (host.isEmpty()) {
            throw new IllegalArgumentException("empty host");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
