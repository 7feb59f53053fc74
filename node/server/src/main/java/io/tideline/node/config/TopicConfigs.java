package io.tideline.node.config;

import static io.tideline.common.config.ConfigDef.Importance.HIGH;
import static io.tideline.common.config.ConfigDef.Importance.MEDIUM;
import static io.tideline.common.config.ConfigDef.Type.BOOLEAN;
import static io.tideline.common.config.ConfigDef.Type.INT;
import static io.tideline.common.config.ConfigDef.Type.STRING;

import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.ConfigException;
import io.tideline.common.config.Range;
import io.tideline.common.config.ValidString;
import io.tideline.store.config.LogConfig;
import java.util.Map;
import java.util.Objects;

/**
 * Every key a topic may set: the store's {@link LogConfig} keys (taken from {@link LogConfig#configDef()},
 * never redeclared, so the store and the controller cannot disagree about a segment setting) plus the
 * replication keys that only the node knows. The controller validates a topic's configs with
 * {@link #validate} when the topic is created or its configs are altered, so a bad value is refused
 * before it is committed to the metadata log rather than failing on every broker that later opens the
 * log.
 *
 * <p>Stateless; the definition is built once and never modified, so it is safe to share between threads.
 */
public final class TopicConfigs {

    public static final String MIN_IN_SYNC_REPLICAS_CONFIG = "min.insync.replicas";
    public static final int MIN_IN_SYNC_REPLICAS_DEFAULT = 1;

    /**
     * The min.insync.replicas a topic runs with: its override (validated when it was set), else
     * {@code brokerDefault}.
     */
    public static int minInsyncReplicas(java.util.Map<String, String> configs, int brokerDefault) {
        String value = configs.get(MIN_IN_SYNC_REPLICAS_CONFIG);
        return value == null ? brokerDefault : Integer.parseInt(value.trim());
    }

    public static final String UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG = "unclean.leader.election.enable";
    public static final boolean UNCLEAN_LEADER_ELECTION_ENABLE_DEFAULT = false;

    public static final String REPLICA_FETCH_OUT_OF_RANGE_POLICY_CONFIG = "replica.fetch.out.of.range.policy";
    /** The follower stops the replica and reports why; an operator reassigns or rebuilds it. */
    public static final String OUT_OF_RANGE_POLICY_HALT = "halt";
    /** The follower truncates its log fully and restarts at the leader's log start offset (Kafka's way). */
    public static final String OUT_OF_RANGE_POLICY_REBUILD = "rebuild";
    public static final String REPLICA_FETCH_OUT_OF_RANGE_POLICY_DEFAULT = OUT_OF_RANGE_POLICY_HALT;

    public static final String LEADER_REPLICATION_THROTTLED_REPLICAS_CONFIG = "leader.replication.throttled.replicas";
    public static final String FOLLOWER_REPLICATION_THROTTLED_REPLICAS_CONFIG = "follower.replication.throttled.replicas";

    /** Only the keys the node adds; LogConfig's keys are documented with the store's settings. */
    private static final ConfigDef NODE_KEYS = defineNodeKeys(new ConfigDef());

    private static final ConfigDef CONFIG = defineNodeKeys(LogConfig.configDef());

    private TopicConfigs() {
    }

    // One declaration, applied to both definitions above.
    private static ConfigDef defineNodeKeys(ConfigDef def) {
        return def
            .define(MIN_IN_SYNC_REPLICAS_CONFIG, INT, MIN_IN_SYNC_REPLICAS_DEFAULT, Range.atLeast(1), HIGH,
                    "Fewest in-sync replicas (the leader included) that must hold a batch before an acks=all "
                    + "produce succeeds; with fewer in the ISR such produces fail with NOT_ENOUGH_REPLICAS. "
                    + "Has no effect on acks=0 or acks=1.")
            .define(UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, BOOLEAN, UNCLEAN_LEADER_ELECTION_ENABLE_DEFAULT,
                    HIGH,
                    "Whether a replica outside the ISR may become leader when no ISR member is alive. false "
                    + "keeps the partition offline (no leader) until an ISR member returns, so no committed "
                    + "record is lost; true brings it back sooner at the cost of losing the records the new "
                    + "leader lacks.")
            .define(REPLICA_FETCH_OUT_OF_RANGE_POLICY_CONFIG, STRING, REPLICA_FETCH_OUT_OF_RANGE_POLICY_DEFAULT,
                    ValidString.in(OUT_OF_RANGE_POLICY_HALT, OUT_OF_RANGE_POLICY_REBUILD), MEDIUM,
                    "What a follower does when its fetch offset is below the leader's log start offset "
                    + "(OFFSET_OUT_OF_RANGE, e.g. it was cut off for longer than the leader's retention). "
                    + "halt: the replica stops fetching, reports the reason to the controller and stays out of "
                    + "the ISR, so the partition is under-replicated until an operator reassigns or rebuilds it; "
                    + "the data the follower still has is kept for inspection. rebuild: the follower deletes "
                    + "its log and restarts at the leader's log start offset, as Kafka does, healing without "
                    + "an operator but silently discarding the older records it held.")
            .define(LEADER_REPLICATION_THROTTLED_REPLICAS_CONFIG, STRING, "", new ThrottledReplicasValidator(), MEDIUM,
                    "Replicas whose outgoing replication, on the leader side, counts against the broker's "
                    + "leader.replication.throttled.rate: '*' for all, or partition:broker entries separated by "
                    + "commas (e.g. 0:101,1:102). Followers in the ISR are never throttled.")
            .define(FOLLOWER_REPLICATION_THROTTLED_REPLICAS_CONFIG, STRING, "", new ThrottledReplicasValidator(),
                    MEDIUM,
                    "Replicas whose fetching, on the follower side, counts against the broker's "
                    + "follower.replication.throttled.rate: '*' for all, or partition:broker entries separated "
                    + "by commas. Set it on the replicas a reassignment adds so their catch-up does not starve "
                    + "clients.");
    }

    private static final class ThrottledReplicasValidator implements io.tideline.common.config.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            try {
                io.tideline.replication.server.ThrottledReplicas.parse((String) value);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, value, e.getMessage());
            }
        }

        @Override
        public String describe() {
            return "'*' or partition:broker,...";
        }
    }

    /** A copy of the definitions: every LogConfig key plus the replication keys above. */
    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }

    /** A copy of only the keys this class adds to {@link LogConfig#configDef()}. */
    public static ConfigDef nodeKeysConfigDef() {
        return new ConfigDef(NODE_KEYS);
    }

    /**
     * Checks a topic's config overrides: every key must be a topic-level key and every value must parse
     * and pass its validator. Keys absent from {@code configs} are not checked (they take the broker
     * defaults).
     *
     * @throws ConfigException "Unknown topic config key x" for an undeclared key (checked first, before
     *                         any value), or naming the key and value for a bad value
     */
    public static void validate(Map<String, String> configs) {
        Objects.requireNonNull(configs, "configs");
        for (String key : CONFIG.unknownKeys(configs)) {
            throw new ConfigException(key, "Unknown topic config key " + key);
        }
        // parse() fills in defaults for the absent keys, which are valid by construction.
        CONFIG.parse(configs);
    }
}
