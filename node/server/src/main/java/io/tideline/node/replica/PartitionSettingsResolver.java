package io.tideline.node.replica;

import io.tideline.node.config.TopicConfigs;
import io.tideline.node.metadata.TopicImage;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.follower.OutOfRangePolicy;
import io.tideline.replication.server.PartitionSettings;
import io.tideline.replication.server.ThrottledReplicas;
import io.tideline.store.config.LogConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A partition's replication settings: the topic's configs (as committed in the metadata image) over the
 * broker's defaults. The store keys among the topic configs go to the log as overrides.
 */
public final class PartitionSettingsResolver {
    private static final java.util.Set<String> LOG_KEYS = LogConfig.configDef().names();

    private final ReplicationConfig brokerDefaults;

    public PartitionSettingsResolver(ReplicationConfig brokerDefaults) {
        this.brokerDefaults = Objects.requireNonNull(brokerDefaults, "brokerDefaults");
    }

    public PartitionSettings resolve(TopicImage topic, int partition, int brokerId) {
        Map<String, String> configs = topic.configs();
        int minIsr = TopicConfigs.minInsyncReplicas(configs, brokerDefaults.minInsyncReplicas());
        OutOfRangePolicy policy = configs.containsKey(TopicConfigs.REPLICA_FETCH_OUT_OF_RANGE_POLICY_CONFIG)
                ? OutOfRangePolicy.parse(configs.get(TopicConfigs.REPLICA_FETCH_OUT_OF_RANGE_POLICY_CONFIG))
                : brokerDefaults.outOfRangePolicy();
        boolean leaderThrottled = ThrottledReplicas.parse(
                configs.get(TopicConfigs.LEADER_REPLICATION_THROTTLED_REPLICAS_CONFIG)).includes(partition, brokerId);
        boolean followerThrottled = ThrottledReplicas.parse(
                configs.get(TopicConfigs.FOLLOWER_REPLICATION_THROTTLED_REPLICAS_CONFIG)).includes(partition, brokerId);
        Map<String, String> logOverrides = new HashMap<>();
        for (Map.Entry<String, String> e : configs.entrySet()) {
            if (LOG_KEYS.contains(e.getKey())) {
                logOverrides.put(e.getKey(), e.getValue());
            }
        }
        return new PartitionSettings(minIsr, policy, leaderThrottled, followerThrottled, logOverrides);
    }
}
