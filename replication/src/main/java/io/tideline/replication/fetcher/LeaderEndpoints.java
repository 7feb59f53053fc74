package io.tideline.replication.fetcher;

import java.util.Optional;

/** Finds the link to a leader broker; empty while its address is unknown (the fetcher backs off). */
@FunctionalInterface
public interface LeaderEndpoints {
    Optional<LeaderEndpoint> endpointFor(int brokerId);
}
