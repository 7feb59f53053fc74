package io.tideline.node.kafka;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which remote hosts a warning was already logged for, so that a misconfigured client that reconnects every
 * few hundred milliseconds costs one log line, not thousands. Remembers at most {@link #MAX_HOSTS} hosts and
 * forgets them all when full (a flood of distinct hosts then logs again, bounded by the set's size per round).
 *
 * <p>Thread-safe.
 */
public final class OncePerAddress {
    static final int MAX_HOSTS = 1024;
    private final Set<InetAddress> seen = ConcurrentHashMap.newKeySet();

    /** Whether this is the first time {@code remote}'s host is seen (then the caller logs). */
    public boolean first(SocketAddress remote) {
        if (!(remote instanceof InetSocketAddress isa) || isa.getAddress() == null) {
            return true;
        }
        if (seen.size() >= MAX_HOSTS) {
            seen.clear();
        }
        return seen.add(isa.getAddress());
    }
}
