package io.tideline.node.group;

import static io.tideline.common.config.ConfigDef.Importance.HIGH;
import static io.tideline.common.config.ConfigDef.Importance.LOW;
import static io.tideline.common.config.ConfigDef.Importance.MEDIUM;
import static io.tideline.common.config.ConfigDef.Type.INT;
import static io.tideline.common.config.ConfigDef.Type.LONG;

import io.tideline.common.config.AbstractConfig;
import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.ConfigException;
import io.tideline.common.config.Range;
import java.util.Map;

/**
 * The group coordinator's keys (docs/node-configuration.md), under Kafka's names where Kafka has the concept.
 * Parsed once; immutable.
 */
public final class GroupConfig extends AbstractConfig {
    public static final String GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG = "group.min.session.timeout.ms";
    public static final String GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG = "group.max.session.timeout.ms";
    public static final String GROUP_INITIAL_REBALANCE_DELAY_MS_CONFIG = "group.initial.rebalance.delay.ms";
    public static final String GROUP_MAX_SIZE_CONFIG = "group.max.size";
    public static final String GROUP_COORDINATOR_MAX_GROUPS_CONFIG = "group.coordinator.max.groups";
    public static final String OFFSETS_COMMIT_TIMEOUT_MS_CONFIG = "offsets.commit.timeout.ms";
    public static final String OFFSETS_COMMIT_QUEUE_MAX_BYTES_CONFIG = "offsets.commit.queue.max.bytes";
    public static final String OFFSET_METADATA_MAX_BYTES_CONFIG = "offset.metadata.max.bytes";
    public static final String OFFSETS_RETENTION_MINUTES_CONFIG = "offsets.retention.minutes";
    public static final String OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG = "offsets.retention.check.interval.ms";

    private static final ConfigDef CONFIG = new ConfigDef()
            .define(GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG, INT, 6000, Range.atLeast(1), MEDIUM,
                    "The smallest session.timeout.ms a consumer may ask for; below it JoinGroup answers "
                    + "INVALID_SESSION_TIMEOUT.")
            .define(GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG, INT, 1_800_000, Range.atLeast(1), MEDIUM,
                    "The largest session.timeout.ms a consumer may ask for; above it JoinGroup answers "
                    + "INVALID_SESSION_TIMEOUT.")
            .define(GROUP_INITIAL_REBALANCE_DELAY_MS_CONFIG, INT, 3000, Range.atLeast(0), MEDIUM,
                    "How long the first rebalance of an Empty group waits for more members; every member that joins "
                    + "meanwhile extends it by this much, up to the rebalance timeout.")
            .define(GROUP_MAX_SIZE_CONFIG, INT, 1000, Range.atLeast(1), MEDIUM,
                    "The most members (including those given a member id and not yet rejoined) a group may have; "
                    + "past it JoinGroup answers GROUP_MAX_SIZE_REACHED. Kafka's default is unbounded.")
            .define(GROUP_COORDINATOR_MAX_GROUPS_CONFIG, INT, 100_000, Range.atLeast(1), MEDIUM,
                    "The most groups one coordinator holds in memory (those it served since it took them over); a new "
                    + "group past it is answered COORDINATOR_LOAD_IN_PROGRESS (retriable) until groups are deleted "
                    + "or expire.")
            .define(OFFSETS_COMMIT_TIMEOUT_MS_CONFIG, INT, 5000, Range.atLeast(1), HIGH,
                    "How long an OffsetCommit waits for the metadata quorum (including the wait for the commit entry "
                    + "in flight before it); then it is answered COORDINATOR_NOT_AVAILABLE, as Kafka answers a "
                    + "commit whose append timed out.")
            .define(OFFSETS_COMMIT_QUEUE_MAX_BYTES_CONFIG, INT, 8 * 1024 * 1024, Range.atLeast(1024), MEDIUM,
                    "The most bytes of offset commits waiting for the entry in flight; past it OffsetCommit answers "
                    + "COORDINATOR_LOAD_IN_PROGRESS, which the consumer retries.")
            .define(OFFSET_METADATA_MAX_BYTES_CONFIG, INT, 4096, Range.atLeast(0), MEDIUM,
                    "The longest metadata string of a committed offset; longer is OFFSET_METADATA_TOO_LARGE.")
            .define(OFFSETS_RETENTION_MINUTES_CONFIG, INT, 10080, Range.atLeast(1), HIGH,
                    "A group without members, and with no commit and no rebalance for this long, is removed with "
                    + "its offsets.")
            .define(OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG, LONG, 600_000L, Range.atLeast(1), LOW,
                    "How often a coordinator looks for expired groups (and drops groups it no longer coordinates).");

    private final int minSessionTimeoutMs;
    private final int maxSessionTimeoutMs;
    private final int initialRebalanceDelayMs;
    private final int maxSize;
    private final int maxGroups;
    private final int commitTimeoutMs;
    private final int commitQueueMaxBytes;
    private final int metadataMaxBytes;
    private final long retentionMs;
    private final long retentionCheckIntervalMs;

    public GroupConfig(Map<String, ?> props) {
        super(CONFIG, props);
        minSessionTimeoutMs = getInt(GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG);
        maxSessionTimeoutMs = getInt(GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG);
        initialRebalanceDelayMs = getInt(GROUP_INITIAL_REBALANCE_DELAY_MS_CONFIG);
        maxSize = getInt(GROUP_MAX_SIZE_CONFIG);
        maxGroups = getInt(GROUP_COORDINATOR_MAX_GROUPS_CONFIG);
        commitTimeoutMs = getInt(OFFSETS_COMMIT_TIMEOUT_MS_CONFIG);
        commitQueueMaxBytes = getInt(OFFSETS_COMMIT_QUEUE_MAX_BYTES_CONFIG);
        metadataMaxBytes = getInt(OFFSET_METADATA_MAX_BYTES_CONFIG);
        retentionMs = getInt(OFFSETS_RETENTION_MINUTES_CONFIG) * 60_000L;
        retentionCheckIntervalMs = getLong(OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG);
        if (minSessionTimeoutMs > maxSessionTimeoutMs) {
            throw new ConfigException(GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG, minSessionTimeoutMs,
                    "must not be above " + GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG + " (" + maxSessionTimeoutMs + ")");
        }
    }

    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }

    public int minSessionTimeoutMs() {
        return minSessionTimeoutMs;
    }

    public int maxSessionTimeoutMs() {
        return maxSessionTimeoutMs;
    }

    public int initialRebalanceDelayMs() {
        return initialRebalanceDelayMs;
    }

    public int maxSize() {
        return maxSize;
    }

    public int maxGroups() {
        return maxGroups;
    }

    public int commitTimeoutMs() {
        return commitTimeoutMs;
    }

    public int commitQueueMaxBytes() {
        return commitQueueMaxBytes;
    }

    public int metadataMaxBytes() {
        return metadataMaxBytes;
    }

    public long retentionMs() {
        return retentionMs;
    }

    public long retentionCheckIntervalMs() {
        return retentionCheckIntervalMs;
    }
}
