package io.tideline.node.config;

import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.ConfigException;
import io.tideline.replication.ReplicationConfig;
import io.tideline.store.config.StoreConfig;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The broker keys that may change at runtime ({@code admin configs --alter --entity-type brokers}), per
 * broker or as the cluster-wide default: the store's broker-level defaults of the topic keys (Kafka's
 * {@code log.*} synonyms, re-resolved into every log's config), {@code min.insync.replicas} (re-applied to
 * every partition whose topic has no value of its own), the two replication throttle rates (set on the
 * running quotas), and {@code unclean.leader.election.enable}, which the controller reads, so only as the
 * cluster-wide default ({@link #CLUSTER_DEFAULT_ONLY}). Each is declared once, where its static form is
 * ({@link StoreConfig}, {@link ReplicationConfig}, {@link NodeConfig}); this class only picks them, so a
 * dynamic value passes the same validator as a value in node.properties.
 *
 * <p>{@code log.retention.check.interval.ms} is not among them: as in Kafka, the retention task's period is
 * fixed at start. Stateless and thread-safe.
 */
public final class DynamicBrokerConfigs {
    /** The broker id that names the cluster-wide default (Kafka's empty entity name). */
    public static final int CLUSTER_DEFAULT = -1;

    private static final List<String> STORE_KEYS = List.of(
            StoreConfig.LOG_SEGMENT_BYTES_CONFIG,
            StoreConfig.LOG_ROLL_MS_CONFIG, StoreConfig.LOG_ROLL_HOURS_CONFIG,
            StoreConfig.LOG_ROLL_JITTER_MS_CONFIG, StoreConfig.LOG_ROLL_JITTER_HOURS_CONFIG,
            StoreConfig.LOG_INDEX_SIZE_MAX_BYTES_CONFIG, StoreConfig.LOG_INDEX_INTERVAL_BYTES_CONFIG,
            StoreConfig.LOG_RETENTION_MS_CONFIG, StoreConfig.LOG_RETENTION_MINUTES_CONFIG,
            StoreConfig.LOG_RETENTION_HOURS_CONFIG, StoreConfig.LOG_RETENTION_BYTES_CONFIG,
            StoreConfig.LOG_SEGMENT_DELETE_DELAY_MS_CONFIG, StoreConfig.MESSAGE_MAX_BYTES_CONFIG,
            StoreConfig.LOG_MESSAGE_TIMESTAMP_TYPE_CONFIG, StoreConfig.LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG,
            StoreConfig.LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG,
            StoreConfig.LOG_FLUSH_INTERVAL_MESSAGES_CONFIG, StoreConfig.LOG_FLUSH_INTERVAL_MS_CONFIG,
            StoreConfig.LOG_CLEANUP_POLICY_CONFIG, StoreConfig.LOG_CLEANER_MIN_CLEANABLE_RATIO_CONFIG,
            StoreConfig.LOG_CLEANER_MIN_COMPACTION_LAG_MS_CONFIG, StoreConfig.LOG_CLEANER_MAX_COMPACTION_LAG_MS_CONFIG,
            StoreConfig.LOG_CLEANER_DELETE_RETENTION_MS_CONFIG, StoreConfig.COMPRESSION_TYPE_CONFIG);

    private static final List<String> REPLICATION_KEYS = List.of(
            ReplicationConfig.MIN_INSYNC_REPLICAS_CONFIG,
            ReplicationConfig.LEADER_REPLICATION_THROTTLED_RATE_CONFIG,
            ReplicationConfig.FOLLOWER_REPLICATION_THROTTLED_RATE_CONFIG);

    private static final List<String> CONTROLLER_KEYS = List.of(NodeConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG);

    /**
     * Keys the controller quorum reads when it elects leaders. Kafka takes the active controller's own value
     * before the cluster-wide default; here every voter applies each command itself and must decide alike,
     * so only a value in the metadata image that is the same for all of them counts: the default.
     */
    public static final Set<String> CLUSTER_DEFAULT_ONLY = Set.copyOf(CONTROLLER_KEYS);

    /** Kafka's synonym groups, highest precedence first: a key set in ms beats the same in minutes or hours. */
    private static final List<List<String>> SYNONYM_GROUPS = List.of(
            List.of(StoreConfig.LOG_RETENTION_MS_CONFIG, StoreConfig.LOG_RETENTION_MINUTES_CONFIG,
                    StoreConfig.LOG_RETENTION_HOURS_CONFIG),
            List.of(StoreConfig.LOG_ROLL_MS_CONFIG, StoreConfig.LOG_ROLL_HOURS_CONFIG),
            List.of(StoreConfig.LOG_ROLL_JITTER_MS_CONFIG, StoreConfig.LOG_ROLL_JITTER_HOURS_CONFIG));

    private static final ConfigDef DEFINITION = pick();

    private DynamicBrokerConfigs() {
    }

    private static ConfigDef pick() {
        ConfigDef def = new ConfigDef();
        copy(StoreConfig.configDef(), STORE_KEYS, def);
        copy(ReplicationConfig.configDef(), REPLICATION_KEYS, def);
        copy(NodeConfig.configDef(), CONTROLLER_KEYS, def);
        return def;
    }

    private static void copy(ConfigDef from, List<String> names, ConfigDef to) {
        for (String name : names) {
            ConfigDef.ConfigKey k = Objects.requireNonNull(from.configKeys().get(name), name);
            to.define(k.name(), k.type(), k.defaultValue(), k.validator(), k.importance(), k.documentation());
        }
    }

    /** The dynamic keys with their static definitions (types, defaults, validators). */
    public static ConfigDef definition() {
        return new ConfigDef(DEFINITION);
    }

    public static Set<String> names() {
        return DEFINITION.names();
    }

    /**
     * Checks a broker's (or the default's) dynamic configs as they would be after an alter: every key must
     * be dynamic, every value must pass the key's validator.
     *
     * @throws ConfigException "Cannot update these configs dynamically: [k, ...]" (Kafka's message) naming
     *                         every non-dynamic key, checked before any value; else naming the bad value
     */
    public static void validate(Map<String, String> configs) {
        Set<String> notDynamic = new TreeSet<>(DEFINITION.unknownKeys(configs));
        if (!notDynamic.isEmpty()) {
            throw new ConfigException(notDynamic.iterator().next(),
                    "Cannot update these configs dynamically: " + notDynamic);
        }
        DEFINITION.parse(configs);
    }

    /**
     * Kafka's synonyms of a broker key, highest precedence first ({@code log.retention.ms},
     * {@code log.retention.minutes}, {@code log.retention.hours} for any of the three); the key alone when
     * it has none.
     */
    public static List<String> synonyms(String name) {
        for (List<String> group : SYNONYM_GROUPS) {
            if (group.contains(name)) {
                return group;
            }
        }
        return List.of(name);
    }
}
