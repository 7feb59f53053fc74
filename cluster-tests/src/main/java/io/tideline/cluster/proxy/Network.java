package io.tideline.cluster.proxy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The proxies of a test cluster, one per directed link, keyed by the link's name ("client->2",
 * "1->2 replication", "2->3 raft"), so a scenario can cut or heal a set of links in one call. Thread-safe: the
 * map is guarded by this object's monitor; the faults themselves are the proxies' own and thread-safe.
 */
public final class Network implements AutoCloseable {
    private final Map<String, LinkProxy> links = new LinkedHashMap<>();

    /** Starts a proxy for a new link; a name already in use is a mistake in the test. */
    public synchronized LinkProxy add(String link, InetSocketAddress target) throws IOException {
        if (links.containsKey(link)) {
            throw new IllegalArgumentException("link already exists: " + link);
        }
        LinkProxy proxy = LinkProxy.start(link, target);
        links.put(link, proxy);
        return proxy;
    }

    public synchronized LinkProxy link(String link) {
        LinkProxy proxy = links.get(link);
        if (proxy == null) {
            throw new IllegalArgumentException("no such link: " + link + " (links: " + links.keySet() + ")");
        }
        return proxy;
    }

    public synchronized Set<String> links() {
        return Set.copyOf(links.keySet());
    }

    /** Cuts every named link; all names are checked first, so a typo cuts nothing. */
    public void cut(Collection<String> names) {
        resolve(names).forEach(LinkProxy::cut);
    }

    public void cut(String... names) {
        cut(List.of(names));
    }

    public void heal(Collection<String> names) {
        resolve(names).forEach(LinkProxy::heal);
    }

    public void heal(String... names) {
        heal(List.of(names));
    }

    /** Holds every named link ({@link LinkProxy#hold()}): bytes wait, nothing is lost. */
    public void hold(Collection<String> names) {
        resolve(names).forEach(LinkProxy::hold);
    }

    public void release(Collection<String> names) {
        resolve(names).forEach(LinkProxy::release);
    }

    public void healAll() {
        heal(links());
    }

    private synchronized List<LinkProxy> resolve(Collection<String> names) {
        List<LinkProxy> proxies = new ArrayList<>(names.size());
        for (String name : names) {
            proxies.add(link(name));
        }
        return proxies;
    }

    /** Closes every proxy; one failing to stop does not keep the others running. */
    @Override
    public synchronized void close() {
        RuntimeException failure = null;
        for (LinkProxy proxy : links.values()) {
            try {
                proxy.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        links.clear();
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public synchronized String toString() {
        StringBuilder s = new StringBuilder("Network");
        links.values().forEach(p -> s.append(System.lineSeparator()).append("  ").append(p));
        return s.toString();
    }
}
