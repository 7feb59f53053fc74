package io.tideline.replication;

import static io.tideline.common.config.ConfigDef.Importance.HIGH;
import static io.tideline.common.config.ConfigDef.Importance.LOW;
import static io.tideline.common.config.ConfigDef.Importance.MEDIUM;
import static io.tideline.common.config.ConfigDef.Type.INT;
import static io.tideline.common.config.ConfigDef.Type.LONG;
import static io.tideline.common.config.ConfigDef.Type.STRING;

import io.tideline.common.config.AbstractConfig;
import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.ConfigException;
import io.tideline.common.config.Range;
import io.tideline.common.config.Validator;
import io.tideline.replication.follower.OutOfRangePolicy;
import java.util.Map;

/**
 * Broker-level replication settings under Kafka's key names. Immutable; safe to share between threads.
 * Topic-level overrides ({@code min.insync.replicas}, {@code replica.fetch.out.of.range.policy}, the
 * throttled-replica lists) reach a partition through {@link io.tideline.replication.server.PartitionSettings}.
 */
public final class ReplicationConfig extends AbstractConfig {

    public static final String REPLICA_LAG_TIME_MAX_MS_CONFIG = "replica.lag.time.max.ms";
    public static final long REPLICA_LAG_TIME_MAX_MS_DEFAULT = 30_000L;
    public static final String REPLICA_FETCH_MIN_BYTES_CONFIG = "replica.fetch.min.bytes";
    public static final String REPLICA_FETCH_WAIT_MAX_MS_CONFIG = "replica.fetch.wait.max.ms";
    public static final String REPLICA_FETCH_MAX_BYTES_CONFIG = "replica.fetch.max.bytes";
    public static final String REPLICA_FETCH_RESPONSE_MAX_BYTES_CONFIG = "replica.fetch.response.max.bytes";
    public static final String REPLICA_FETCH_BACKOFF_MS_CONFIG = "replica.fetch.backoff.ms";
    public static final String NUM_REPLICA_FETCHERS_CONFIG = "num.replica.fetchers";
    public static final String LEADER_REPLICATION_THROTTLED_RATE_CONFIG = "leader.replication.throttled.rate";
    public static final String FOLLOWER_REPLICATION_THROTTLED_RATE_CONFIG = "follower.replication.throttled.rate";
    public static final String REPLICA_FETCH_OUT_OF_RANGE_POLICY_CONFIG = "replica.fetch.out.of.range.policy";
    public static final String MIN_INSYNC_REPLICAS_CONFIG = "min.insync.replicas";
    public static final String ISR_CHANGE_TIMEOUT_MS_CONFIG = "replica.isr.change.timeout.ms";
    public static final String FETCH_MAX_BYTES_CONFIG = "fetch.max.bytes";

    private static final ConfigDef CONFIG = new ConfigDef()
            .define(REPLICA_LAG_TIME_MAX_MS_CONFIG, LONG, REPLICA_LAG_TIME_MAX_MS_DEFAULT, Range.atLeast(1), HIGH,
                    "A follower that has not caught up with the leader's log end offset for this long is "
                    + "removed from the ISR (through the controller). The leader checks every half of it.")
            .define(REPLICA_FETCH_MIN_BYTES_CONFIG, INT, 1, Range.atLeast(1), MEDIUM,
                    "Bytes a replica fetch waits for before the leader answers (up to replica.fetch.wait.max.ms).")
            .define(REPLICA_FETCH_WAIT_MAX_MS_CONFIG, INT, 500, Range.atLeast(0), MEDIUM,
                    "Longest a replica fetch is parked at the leader waiting for replica.fetch.min.bytes. "
                    + "A higher log start offset than the follower knows answers at once, a higher high watermark "
                    + "after at most 20 ms (the next append carries it sooner).")
            .define(REPLICA_FETCH_MAX_BYTES_CONFIG, INT, 1024 * 1024, Range.atLeast(1), MEDIUM,
                    "Bytes fetched per partition per request; the first batch comes whole even if larger.")
            .define(REPLICA_FETCH_RESPONSE_MAX_BYTES_CONFIG, INT, 10 * 1024 * 1024, Range.atLeast(1), MEDIUM,
                    "Bytes in a whole replica fetch response, over all partitions.")
            .define(REPLICA_FETCH_BACKOFF_MS_CONFIG, INT, 1000, Range.atLeast(0), MEDIUM,
                    "Pause before a follower fetches a partition again after an error.")
            .define(NUM_REPLICA_FETCHERS_CONFIG, INT, 1, Range.atLeast(1), MEDIUM,
                    "Fetcher threads per source broker; partitions are spread over them by hash.")
            .define(LEADER_REPLICATION_THROTTLED_RATE_CONFIG, LONG, Long.MAX_VALUE, Range.atLeast(1), MEDIUM,
                    "Bytes per second a leader sends to out-of-sync followers of throttled replicas "
                    + "(leader.replication.throttled.replicas). Unlimited by default.")
            .define(FOLLOWER_REPLICATION_THROTTLED_RATE_CONFIG, LONG, Long.MAX_VALUE, Range.atLeast(1), MEDIUM,
                    "Bytes per second a follower fetches for its throttled replicas "
                    + "(follower.replication.throttled.replicas). Unlimited by default.")
            .define(REPLICA_FETCH_OUT_OF_RANGE_POLICY_CONFIG, STRING, OutOfRangePolicy.DEFAULT.configValue(),
                    new PolicyValidator(), HIGH,
                    "What a follower does when its log end is below the leader's log start offset: 'halt' "
                    + "stops fetching, keeps the data and marks the replica FAILED (it stays out of the ISR "
                    + "until reassigned or rebuilt); 'rebuild' truncates fully and catches up from the "
                    + "leader's log start offset. Also a topic-level key.")
            .define(MIN_INSYNC_REPLICAS_CONFIG, INT, 1, Range.atLeast(1), HIGH,
                    "Default for the topic key: acks=all produce needs this many in-sync replicas, and the "
                    + "high watermark does not advance with fewer.")
            .define(FETCH_MAX_BYTES_CONFIG, INT, 55 * 1024 * 1024, Range.atLeast(1024), MEDIUM,
                    "The most record bytes a leader returns for one fetch, from a consumer or a follower, "
                    + "whatever the request asks (one whole batch still goes when it alone is larger). "
                    + "Kafka's broker key and default.")
            .define(ISR_CHANGE_TIMEOUT_MS_CONFIG, LONG, 30_000L, Range.atLeast(1), LOW,
                    "How long a leader waits for the controller's verdict on an ISR change before it sends the "
                    + "same change again. Until a verdict or newer metadata, the change stays pending: a replica "
                    + "it adds still bounds the high watermark, and no other change is proposed.");

    private ReplicationConfig(Map<String, ?> props) {
        super(CONFIG, props);
    }

    /** Parses and validates; keys this class does not know are ignored. */
    public static ReplicationConfig fromMap(Map<String, ?> props) {
        return new ReplicationConfig(props);
    }

    public static ReplicationConfig defaults() {
        return fromMap(Map.of());
    }

    /** A copy of the definitions, for the node's config and generated docs. */
    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }

    public long replicaLagTimeMaxMs() {
        return getLong(REPLICA_LAG_TIME_MAX_MS_CONFIG);
    }

    public int fetchMinBytes() {
        return getInt(REPLICA_FETCH_MIN_BYTES_CONFIG);
    }

    public int fetchWaitMaxMs() {
        return getInt(REPLICA_FETCH_WAIT_MAX_MS_CONFIG);
    }

    public int fetchMaxBytes() {
        return getInt(REPLICA_FETCH_MAX_BYTES_CONFIG);
    }

    public int fetchResponseMaxBytes() {
        return getInt(REPLICA_FETCH_RESPONSE_MAX_BYTES_CONFIG);
    }

    public int fetchBackoffMs() {
        return getInt(REPLICA_FETCH_BACKOFF_MS_CONFIG);
    }

    public int numReplicaFetchers() {
        return getInt(NUM_REPLICA_FETCHERS_CONFIG);
    }

    public long leaderThrottledRate() {
        return getLong(LEADER_REPLICATION_THROTTLED_RATE_CONFIG);
    }

    public long followerThrottledRate() {
        return getLong(FOLLOWER_REPLICATION_THROTTLED_RATE_CONFIG);
    }

    public OutOfRangePolicy outOfRangePolicy() {
        return OutOfRangePolicy.parse(getString(REPLICA_FETCH_OUT_OF_RANGE_POLICY_CONFIG));
    }

    public int minInsyncReplicas() {
        return getInt(MIN_INSYNC_REPLICAS_CONFIG);
    }

    /** fetch.max.bytes: the leader's cap on one fetch answer (replica.fetch.max.bytes is the follower's ask). */
    public int servedFetchMaxBytes() {
        return getInt(FETCH_MAX_BYTES_CONFIG);
    }

    public long isrChangeTimeoutMs() {
        return getLong(ISR_CHANGE_TIMEOUT_MS_CONFIG);
    }

    private static final class PolicyValidator implements Validator {
        @Override
        public void ensureValid(String name, Object value) {
            try {
                OutOfRangePolicy.parse((String) value);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, value, "must be one of [halt, rebuild]");
            }
        }

        @Override
        public String describe() {
            return "[halt, rebuild]";
        }
    }
}
