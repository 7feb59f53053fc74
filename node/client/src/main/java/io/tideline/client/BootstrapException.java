package io.tideline.client;

import io.tideline.common.errors.Errors;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * No address of bootstrap.servers could be connected to, and the client has not reached any broker
 * yet: each address was tried once, in order, and each refused the connection, did not accept it within
 * socket.connection.setup.timeout.ms, or did not resolve. The client gives up at once instead of
 * retrying until its timeout, since a mistyped or stopped bootstrap address does not heal by waiting
 * (once a client has reached the cluster, an unreachable broker is retried as usual). {@link #error()}
 * is BROKER_NOT_AVAILABLE; the exception is not retriable.
 */
public final class BootstrapException extends TidelineClientException {
    private final Map<String, String> failures;

    /** {@code failures}: each address tried, as host:port, to why it failed, in the order tried. */
    public BootstrapException(Map<String, String> failures) {
        super(Errors.BROKER_NOT_AVAILABLE, message(failures));
        this.failures = Collections.unmodifiableMap(new LinkedHashMap<>(failures));
    }

    /** Each bootstrap address tried (host:port) and why it failed ("Connection refused"), in the order tried. */
    public Map<String, String> failures() {
        return failures;
    }

    private static String message(Map<String, String> failures) {
        return "could not connect to any of bootstrap.servers: " + failures.entrySet().stream()
                .map(e -> e.getKey() + " (" + e.getValue() + ")").collect(Collectors.joining(", "));
    }
}
