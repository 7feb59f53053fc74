package io.tideline.cluster.harness;

/** The kinds of link a {@link ClusterHarness} proxies, each directed link a proxy of its own. */
public enum LinkKind {
    /** Producers, consumers and admin clients to broker N: {@code "client->N"}, one per broker. */
    CLIENT,
    /** Follower i's replica fetches (and rebuild copies) from leader j: {@code "i->j replication"}. */
    REPLICATION,
    /** Everything node i's Raft server and its controller client send to voter j: {@code "i->j raft"}. */
    RAFT
}
