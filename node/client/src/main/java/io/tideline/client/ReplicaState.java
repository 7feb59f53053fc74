package io.tideline.client;

/**
 * A replica's state as {@code replicas --describe} reports it (docs/cli.md, "replicas"). The leader is
 * {@link #IN_SYNC} by definition.
 */
public enum ReplicaState {
    /** In the ISR. */
    IN_SYNC,
    /** Fetching, but out of the ISR: behind by the offsets and bytes reported with it. */
    LAGGING,
    /**
     * Fell below the leader's log start offset under {@code replica.fetch.out.of.range.policy=halt}: it stopped
     * fetching and keeps its data until it is reassigned or rebuilt (docs/behaviours.md).
     */
    FAILED,
    /** Truncated fully and copying the leader's log from its log start offset; progress is reported with it. */
    REBUILDING,
    /** Its broker is fenced or unreachable, or its log dir failed: nothing is known of its log. */
    OFFLINE
}
