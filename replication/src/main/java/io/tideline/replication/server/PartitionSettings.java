package io.tideline.replication.server;

import io.tideline.replication.follower.OutOfRangePolicy;
import java.util.Map;
import java.util.Objects;

/**
 * The topic-level settings a replica of one partition works with, resolved by the caller from the topic
 * config over the broker defaults.
 *
 * @param minInsyncReplicas  {@code min.insync.replicas}
 * @param outOfRangePolicy   {@code replica.fetch.out.of.range.policy}
 * @param leaderThrottled    this broker, as leader, is listed in {@code leader.replication.throttled.replicas}
 *                           for this partition: bytes it sends to out-of-sync followers count against
 *                           {@code leader.replication.throttled.rate}
 * @param followerThrottled  this broker, as follower, is listed in {@code follower.replication.throttled.replicas}:
 *                           bytes it fetches count against {@code follower.replication.throttled.rate}
 * @param logOverrides       topic-level store keys ({@code retention.ms}, {@code segment.bytes}, ...) for the log
 */
public record PartitionSettings(int minInsyncReplicas, OutOfRangePolicy outOfRangePolicy, boolean leaderThrottled,
                                boolean followerThrottled, Map<String, ?> logOverrides) {

    public PartitionSettings {
        if (minInsyncReplicas < 1) {
            throw new IllegalArgumentException("min.insync.replicas must be at least 1: " + minInsyncReplicas);
        }
        Objects.requireNonNull(outOfRangePolicy, "outOfRangePolicy");
        logOverrides = Map.copyOf(logOverrides);
    }

    /** min.insync.replicas 1, policy halt, no throttle, no log overrides. */
    public static PartitionSettings defaults() {
        return new PartitionSettings(1, OutOfRangePolicy.DEFAULT, false, false, Map.of());
    }

    public PartitionSettings withMinInsyncReplicas(int value) {
        return new PartitionSettings(value, outOfRangePolicy, leaderThrottled, followerThrottled, logOverrides);
    }

    public PartitionSettings withOutOfRangePolicy(OutOfRangePolicy value) {
        return new PartitionSettings(minInsyncReplicas, value, leaderThrottled, followerThrottled, logOverrides);
    }

    public PartitionSettings withThrottles(boolean leader, boolean follower) {
        return new PartitionSettings(minInsyncReplicas, outOfRangePolicy, leader, follower, logOverrides);
    }

    public PartitionSettings withLogOverrides(Map<String, ?> value) {
        return new PartitionSettings(minInsyncReplicas, outOfRangePolicy, leaderThrottled, followerThrottled, value);
    }
}
