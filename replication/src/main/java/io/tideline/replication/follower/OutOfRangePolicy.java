package io.tideline.replication.follower;

import java.util.Locale;

/**
 * {@code replica.fetch.out.of.range.policy}: what a follower does when its log end is below the leader's
 * log start offset (it was away longer than the leader's retention; docs/behaviours.md B42).
 */
public enum OutOfRangePolicy {
    /** Stop fetching, keep the data, mark the replica FAILED (the default). */
    HALT("halt"),
    /** Truncate fully, restart at the leader's log start offset, REBUILDING until caught up (Kafka's behaviour). */
    REBUILD("rebuild");

    public static final OutOfRangePolicy DEFAULT = HALT;

    private final String configValue;

    OutOfRangePolicy(String configValue) {
        this.configValue = configValue;
    }

    /** The value as written in the topic or broker config. */
    public String configValue() {
        return configValue;
    }

    /** Parses "halt" or "rebuild" (surrounding blanks and case ignored). */
    public static OutOfRangePolicy parse(String value) {
        if (value == null) {
            throw new IllegalArgumentException("replica.fetch.out.of.range.policy must be one of [halt, rebuild], got null");
        }
        String normalized = value.trim().toLowerCase(Locale.ROOT);
        for (OutOfRangePolicy policy : values()) {
            if (policy.configValue.equals(normalized)) {
                return policy;
            }
        }
        throw new IllegalArgumentException("replica.fetch.out.of.range.policy must be one of [halt, rebuild], got '"
                + value + "'");
    }
}
