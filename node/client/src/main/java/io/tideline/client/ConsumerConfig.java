package io.tideline.client;

import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.ConfigDef.Importance;
import io.tideline.common.config.ConfigDef.Type;
import io.tideline.common.config.Range;
import io.tideline.common.config.ValidString;
import java.util.Locale;
import java.util.Map;

/** The consumer's settings, with Kafka's names and defaults. Immutable. */
public final class ConsumerConfig extends ClientConfig {
    public static final String AUTO_OFFSET_RESET = "auto.offset.reset";
    public static final String FETCH_MIN_BYTES = "fetch.min.bytes";
    public static final String FETCH_MAX_WAIT_MS = "fetch.max.wait.ms";
    public static final String MAX_PARTITION_FETCH_BYTES = "max.partition.fetch.bytes";
    public static final String FETCH_MAX_BYTES = "fetch.max.bytes";
    public static final String MAX_POLL_RECORDS = "max.poll.records";
    public static final String DEFAULT_API_TIMEOUT_MS = "default.api.timeout.ms";

    private static final ConfigDef CONFIG = CommonClientConfigs.base(30_000)
            .define(AUTO_OFFSET_RESET, Type.STRING, "latest", ValidString.in("earliest", "latest", "none"),
                    Importance.MEDIUM,
                    "Where to go when a partition has no position, or its position is out of the leader's log "
                    + "(OFFSET_OUT_OF_RANGE, e.g. below the log start offset after retention or DeleteRecords): "
                    + "earliest moves to the log start offset and reports the offsets skipped (callback, metric, "
                    + "WARN line); latest moves to the high watermark; none makes poll() throw "
                    + "OffsetOutOfRangeException (or NoOffsetForPartitionException for a partition without a "
                    + "position).")
            .define(FETCH_MIN_BYTES, Type.INT, 1, Range.atLeast(0), Importance.MEDIUM,
                    "The least data the broker should gather before it answers a fetch, or fetch.max.wait.ms "
                    + "passes.")
            .define(FETCH_MAX_WAIT_MS, Type.INT, 500, Range.atLeast(0), Importance.LOW,
                    "How long the broker may hold a fetch waiting for fetch.min.bytes.")
            .define(MAX_PARTITION_FETCH_BYTES, Type.INT, 1_048_576, Range.atLeast(1), Importance.MEDIUM,
                    "The most data one fetch returns per partition; the first batch comes whole even when it is "
                    + "larger, so a consumer always makes progress.")
            .define(FETCH_MAX_BYTES, Type.INT, 52_428_800, Range.atLeast(1), Importance.MEDIUM,
                    "The most data one fetch returns over all its partitions (same first-batch exception).")
            .define(MAX_POLL_RECORDS, Type.INT, 500, Range.atLeast(1), Importance.MEDIUM,
                    "The most records one poll() returns; the rest stay buffered for the next poll.")
            .define(DEFAULT_API_TIMEOUT_MS, Type.INT, 60_000, Range.atLeast(0), Importance.MEDIUM,
                    "The bound on blocking calls that take no timeout of their own (position(), the offset "
                    + "lookups behind seekToBeginning and seekToEnd).");

    private final OffsetResetStrategy autoOffsetReset;
    private final int fetchMinBytes;
    private final int fetchMaxWaitMs;
    private final int maxPartitionFetchBytes;
    private final int fetchMaxBytes;
    private final int maxPollRecords;
    private final int defaultApiTimeoutMs;

    public ConsumerConfig(Map<String, ?> props) {
        super(CONFIG, props);
        this.autoOffsetReset = OffsetResetStrategy.valueOf(getString(AUTO_OFFSET_RESET).toUpperCase(Locale.ROOT));
        this.fetchMinBytes = getInt(FETCH_MIN_BYTES);
        this.fetchMaxWaitMs = getInt(FETCH_MAX_WAIT_MS);
        this.maxPartitionFetchBytes = getInt(MAX_PARTITION_FETCH_BYTES);
        this.fetchMaxBytes = getInt(FETCH_MAX_BYTES);
        this.maxPollRecords = getInt(MAX_POLL_RECORDS);
        this.defaultApiTimeoutMs = getInt(DEFAULT_API_TIMEOUT_MS);
    }

    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }

    public OffsetResetStrategy autoOffsetReset() {
        return autoOffsetReset;
    }

    public int fetchMinBytes() {
        return fetchMinBytes;
    }

    public int fetchMaxWaitMs() {
        return fetchMaxWaitMs;
    }

    public int maxPartitionFetchBytes() {
        return maxPartitionFetchBytes;
    }

    public int fetchMaxBytes() {
        return fetchMaxBytes;
    }

    public int maxPollRecords() {
        return maxPollRecords;
    }

    public int defaultApiTimeoutMs() {
        return defaultApiTimeoutMs;
    }
}
