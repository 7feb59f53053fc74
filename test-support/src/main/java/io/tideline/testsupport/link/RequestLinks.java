package io.tideline.testsupport.link;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The directed {@link RequestLink}s of one in-process test cluster, between node ids, created on first use and
 * named {@code "<from>-><to>"} (a follower's fetches from its leader go over {@code follower->leader}).
 * Thread-safe.
 */
public final class RequestLinks {
    private final Map<String, RequestLink> links = new ConcurrentHashMap<>();

    public RequestLink link(int from, int to) {
        String name = from + "->" + to;
        return links.computeIfAbsent(name, RequestLink::new);
    }

    /** Heals every link. */
    public void healAll() {
        links.values().forEach(RequestLink::heal);
    }

    @Override
    public String toString() {
        List<String> lines = links.values().stream().map(RequestLink::toString).sorted().collect(Collectors.toList());
        return String.join("\n", lines);
    }
}
