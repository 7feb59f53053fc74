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
 *
 * <p>The broker's min.insync.replicas may change at runtime (a dynamic broker config,
 * {@link BrokerConfigApplier}); the other defaults are the static file's. Thread-safe: the default is read
 * by the admin API's describe while the metadata publisher sets it.
 */
public final class PartitionSettingsResolver {
    private static final java.util.Set<String> LOG_KEYS = LogConfig.configDef().names();

    private final ReplicationConfig brokerDefaults;
    private volatile int brokerMinInsyncReplicas;

    public PartitionSettingsResolver(ReplicationConfig brokerDefaults) {
        this.brokerDefaults = Objects.requireNonNull(brokerDefaults, "brokerDefaults");
        this.brokerMinInsyncReplicas = brokerDefaults.minInsyncReplicas();
    }

    /** The min.insync.replicas of topics without their own: the static value until a dynamic one applies. */
    public int brokerMinInsyncReplicas() {
        return brokerMinInsyncReplicas;
    }

    void setBrokerMinInsyncReplicas(int value) {
        if (value < 1) {
            throw new IllegalArgumentException("min.insync.replicas must be at least 1: " + value);
        }
        this.brokerMinInsyncReplicas = value;
    }

    public PartitionSettings resolve(TopicImage topic, int partition, int brokerId) {
        Map<String, String> configs = topic.configs();
        int minIsr = TopicConfigs.minInsyncReplicas(configs, brokerMinInsyncReplicas);
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
