package io.tideline.cluster.proxy;

/** The two directions of one proxied connection. */
public enum Direction {
    /** From the connecting side (the link's source) to the target. */
    TO_TARGET,
    /** From the target back to the connecting side. */
    FROM_TARGET
}
