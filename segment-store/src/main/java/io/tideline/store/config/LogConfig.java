package io.tideline.store.config;

import static io.tideline.common.config.ConfigDef.Importance.HIGH;
import static io.tideline.common.config.ConfigDef.Importance.LOW;
import static io.tideline.common.config.ConfigDef.Importance.MEDIUM;
import static io.tideline.common.config.ConfigDef.Type.DOUBLE;
import static io.tideline.common.config.ConfigDef.Type.INT;
import static io.tideline.common.config.ConfigDef.Type.LIST;
import static io.tideline.common.config.ConfigDef.Type.LONG;
import static io.tideline.common.config.ConfigDef.Type.STRING;

import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.ConfigException;
import io.tideline.common.config.Range;
import io.tideline.common.config.ValidList;
import io.tideline.common.config.ValidString;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The settings of one partition log (per topic), under Kafka's topic-level key names, defaults and
 * validators. Parsed once into final typed fields; immutable and safe to share between threads. A topic's
 * effective config is the broker defaults ({@link StoreConfig#logConfigDefaults()}) with the topic's
 * overrides applied by {@link #withOverrides}.
 */
public final class LogConfig {

    public static final String SEGMENT_BYTES_CONFIG = "segment.bytes";
    public static final int SEGMENT_BYTES_DEFAULT = 1024 * 1024 * 1024;

    public static final String SEGMENT_MS_CONFIG = "segment.ms";
    public static final long SEGMENT_MS_DEFAULT = 7 * 24 * 60 * 60 * 1000L;

    public static final String SEGMENT_JITTER_MS_CONFIG = "segment.jitter.ms";
    public static final long SEGMENT_JITTER_MS_DEFAULT = 0L;

    public static final String SEGMENT_INDEX_BYTES_CONFIG = "segment.index.bytes";
    public static final int SEGMENT_INDEX_BYTES_DEFAULT = 10 * 1024 * 1024;

    public static final String INDEX_INTERVAL_BYTES_CONFIG = "index.interval.bytes";
    public static final int INDEX_INTERVAL_BYTES_DEFAULT = 4096;

    public static final String RETENTION_MS_CONFIG = "retention.ms";
    public static final long RETENTION_MS_DEFAULT = 7 * 24 * 60 * 60 * 1000L;

    public static final String RETENTION_BYTES_CONFIG = "retention.bytes";
    public static final long RETENTION_BYTES_DEFAULT = -1L;

    public static final String FILE_DELETE_DELAY_MS_CONFIG = "file.delete.delay.ms";
    public static final long FILE_DELETE_DELAY_MS_DEFAULT = 60_000L;

    public static final String MAX_MESSAGE_BYTES_CONFIG = "max.message.bytes";
    /** 1 MiB plus the 12-byte log overhead (offset + size), as in Kafka. */
    public static final int MAX_MESSAGE_BYTES_DEFAULT = 1024 * 1024 + 12;

    public static final String MESSAGE_TIMESTAMP_TYPE_CONFIG = "message.timestamp.type";
    public static final String CREATE_TIME = "CreateTime";
    public static final String LOG_APPEND_TIME = "LogAppendTime";
    public static final String MESSAGE_TIMESTAMP_TYPE_DEFAULT = CREATE_TIME;

    public static final String MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG = "message.timestamp.before.max.ms";
    /** Kafka 4.x's default: any past timestamp is accepted. */
    public static final long MESSAGE_TIMESTAMP_BEFORE_MAX_MS_DEFAULT = Long.MAX_VALUE;

    public static final String MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG = "message.timestamp.after.max.ms";
    /** Kafka 4.x's default: one hour ahead of the broker's clock. */
    public static final long MESSAGE_TIMESTAMP_AFTER_MAX_MS_DEFAULT = 60 * 60 * 1000L;
    public static final String FLUSH_MESSAGES_CONFIG = "flush.messages";
    /** Kafka's default: no fsync counted in messages; durability comes from replication (docs/storage.md). */
    public static final long FLUSH_MESSAGES_DEFAULT = Long.MAX_VALUE;

    public static final String FLUSH_MS_CONFIG = "flush.ms";
    /** Kafka's default: no fsync by age. */
    public static final long FLUSH_MS_DEFAULT = Long.MAX_VALUE;

    public static final String CLEANUP_POLICY_CONFIG = "cleanup.policy";
    public static final String CLEANUP_POLICY_DELETE = "delete";
    public static final String CLEANUP_POLICY_COMPACT = "compact";
    public static final String CLEANUP_POLICY_DEFAULT = CLEANUP_POLICY_DELETE;

    public static final String MIN_CLEANABLE_DIRTY_RATIO_CONFIG = "min.cleanable.dirty.ratio";
    public static final double MIN_CLEANABLE_DIRTY_RATIO_DEFAULT = 0.5;

    public static final String MIN_COMPACTION_LAG_MS_CONFIG = "min.compaction.lag.ms";
    public static final long MIN_COMPACTION_LAG_MS_DEFAULT = 0L;

    public static final String MAX_COMPACTION_LAG_MS_CONFIG = "max.compaction.lag.ms";
    public static final long MAX_COMPACTION_LAG_MS_DEFAULT = Long.MAX_VALUE;

    public static final String DELETE_RETENTION_MS_CONFIG = "delete.retention.ms";
    public static final long DELETE_RETENTION_MS_DEFAULT = 24 * 60 * 60 * 1000L;

    public static final String COMPRESSION_TYPE_CONFIG = "compression.type";
    /** Keep each batch in the codec its producer chose. */
    public static final String COMPRESSION_TYPE_PRODUCER = "producer";
    public static final String COMPRESSION_TYPE_UNCOMPRESSED = "uncompressed";
    public static final String COMPRESSION_TYPE_DEFAULT = COMPRESSION_TYPE_PRODUCER;

    /** Kafka's minimum: the overhead of the smallest (v0) record, so a segment can hold at least one. */
    static final int SEGMENT_BYTES_MIN = 14;
    /** Kafka's minimum. */
    static final int SEGMENT_INDEX_BYTES_MIN = 4;

    // Must be initialised before DEFAULT.
    private static final ConfigDef CONFIG = new ConfigDef()
            .define(SEGMENT_BYTES_CONFIG, INT, SEGMENT_BYTES_DEFAULT, Range.atLeast(SEGMENT_BYTES_MIN), MEDIUM,
                    "Size in bytes at which the active segment is rolled: an append that would take it past this "
                    + "size goes to a new segment. Retention deletes whole segments, so this is also the "
                    + "granularity at which disk space is freed.")
            .define(SEGMENT_MS_CONFIG, LONG, SEGMENT_MS_DEFAULT, Range.atLeast(1), MEDIUM,
                    "Maximum age of the active segment, measured from its first record's timestamp, after which "
                    + "the next append rolls a new segment even if the current one is not full, so that "
                    + "time-based retention can delete the old data of a slow partition.")
            .define(SEGMENT_JITTER_MS_CONFIG, LONG, SEGMENT_JITTER_MS_DEFAULT, Range.atLeast(0), LOW,
                    "Largest random amount subtracted from segment.ms for each new segment, so that partitions "
                    + "created together do not all roll at the same moment. 0 disables jitter.")
            .define(SEGMENT_INDEX_BYTES_CONFIG, INT, SEGMENT_INDEX_BYTES_DEFAULT,
                    Range.atLeast(SEGMENT_INDEX_BYTES_MIN), MEDIUM,
                    "Largest size in bytes preallocated for each segment's offset index and time index; a new "
                    + "segment gets less when segment.bytes at one entry per index.interval.bytes needs less. A "
                    + "full index rolls the segment even if segment.bytes is not reached; the index files are "
                    + "trimmed to their used size when the segment is rolled.")
            .define(INDEX_INTERVAL_BYTES_CONFIG, INT, INDEX_INTERVAL_BYTES_DEFAULT, Range.atLeast(0), MEDIUM,
                    "Bytes of record batches appended between two index entries. Smaller values make a fetch "
                    + "scan less of the segment to find an offset or timestamp, at the cost of larger indexes; "
                    + "0 indexes every batch.")
            .define(RETENTION_MS_CONFIG, LONG, RETENTION_MS_DEFAULT, Range.atLeast(-1), HIGH,
                    "How long records are kept: a closed segment is deleted once its largest record timestamp "
                    + "is older than now - retention.ms. The active segment is never deleted, so data can "
                    + "outlive this by up to segment.ms. -1 means no time limit.")
            .define(RETENTION_BYTES_CONFIG, LONG, RETENTION_BYTES_DEFAULT, Range.atLeast(-1), HIGH,
                    "Size limit of each partition's log (not of the whole topic): the oldest closed segments are "
                    + "deleted while the log stays at or above this size without them, so it may exceed the limit "
                    + "by up to one segment. The active segment is never deleted. -1 means no size limit.")
            .define(FILE_DELETE_DELAY_MS_CONFIG, LONG, FILE_DELETE_DELAY_MS_DEFAULT, Range.atLeast(0), LOW,
                    "How long a deleted segment and its indexes stay on disk, renamed with the .deleted suffix, "
                    + "before the files are unlinked, so that reads already in progress on them can finish.")
            .define(MAX_MESSAGE_BYTES_CONFIG, INT, MAX_MESSAGE_BYTES_DEFAULT, Range.atLeast(0), MEDIUM,
                    "Largest record batch, in bytes after compression, that an append accepts; larger batches "
                    + "are refused with MESSAGE_TOO_LARGE. Raising it also requires consumers and followers to "
                    + "fetch batches that large.")
            .define(MESSAGE_TIMESTAMP_TYPE_CONFIG, STRING, MESSAGE_TIMESTAMP_TYPE_DEFAULT,
                    ValidString.in(CREATE_TIME, LOG_APPEND_TIME), MEDIUM,
                    "Which timestamp records carry in the log: CreateTime keeps the producer's timestamp, "
                    + "LogAppendTime replaces it with the broker's clock at append. Time-based retention, "
                    + "rolling and the time index use this timestamp.")
            .define(MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, LONG, MESSAGE_TIMESTAMP_BEFORE_MAX_MS_DEFAULT,
                    Range.atLeast(0), MEDIUM,
                    "How far before the broker's clock a record's timestamp may be: with message.timestamp.type "
                    + "CreateTime, a batch holding a record older than now minus this is refused with "
                    + "INVALID_TIMESTAMP. Ignored with LogAppendTime.")
            .define(MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, LONG, MESSAGE_TIMESTAMP_AFTER_MAX_MS_DEFAULT,
                    Range.atLeast(0), MEDIUM,
                    "How far after the broker's clock a record's timestamp may be: with message.timestamp.type "
                    + "CreateTime, a batch holding a record dated later than now plus this is refused with "
                    + "INVALID_TIMESTAMP, so a producer's clock cannot date records (and hold back their "
                    + "time-based retention) arbitrarily far ahead. Ignored with LogAppendTime.")
            .define(FLUSH_MESSAGES_CONFIG, LONG, FLUSH_MESSAGES_DEFAULT, Range.atLeast(1), MEDIUM,
                    "Messages appended to a partition's log after which the append that reaches the count "
                    + "fsyncs the log before it returns: 1 fsyncs every append. The default never fsyncs by "
                    + "count and leaves durability to replication; see docs/storage.md, Durability, for what "
                    + "each setting keeps when every replica loses power at once, and its cost.")
            .define(FLUSH_MS_CONFIG, LONG, FLUSH_MS_DEFAULT, Range.atLeast(0), MEDIUM,
                    "Age of a partition log's last fsync at which the log flusher fsyncs it; the flusher runs "
                    + "every log.flush.scheduler.interval.ms, so records can stay unsynced for up to the sum. Has no "
                    + "effect while log.flush.scheduler.interval.ms keeps its default (the flusher never runs).")
            .define(CLEANUP_POLICY_CONFIG, LIST, CLEANUP_POLICY_DEFAULT,
                    ValidList.in(CLEANUP_POLICY_DELETE, CLEANUP_POLICY_COMPACT), HIGH,
                    "How old records go: delete removes whole closed segments by retention.ms and "
                    + "retention.bytes; compact keeps the latest record of each key and removes older ones in "
                    + "place, keeping their neighbours' offsets; both (compact,delete) do the two. A compacted "
                    + "topic refuses records without a key.")
            .define(MIN_CLEANABLE_DIRTY_RATIO_CONFIG, DOUBLE, MIN_CLEANABLE_DIRTY_RATIO_DEFAULT,
                    Range.between(0, 1), MEDIUM,
                    "Share of a compacted log that is dirty (written since its last cleaning) at which the "
                    + "cleaner takes it: a lower ratio cleans sooner and more often, keeping fewer obsolete "
                    + "records on disk at the cost of more cleaning I/O.")
            .define(MIN_COMPACTION_LAG_MS_CONFIG, LONG, MIN_COMPACTION_LAG_MS_DEFAULT, Range.atLeast(0), MEDIUM,
                    "Youngest a record may be, by its batch's largest timestamp, and still be compacted away: "
                    + "records newer than this stay uncleaned, so a consumer has at least this long to read "
                    + "every update of a key.")
            .define(MAX_COMPACTION_LAG_MS_CONFIG, LONG, MAX_COMPACTION_LAG_MS_DEFAULT, Range.atLeast(1), MEDIUM,
                    "Oldest an uncleaned record may become: a compacted log holding a dirty segment older than "
                    + "this is cleaned even below min.cleanable.dirty.ratio, and its active segment is rolled "
                    + "so the record can be cleaned. Must be at least min.compaction.lag.ms.")
            .define(DELETE_RETENTION_MS_CONFIG, LONG, DELETE_RETENTION_MS_DEFAULT, Range.atLeast(0), MEDIUM,
                    "How long a tombstone (a record with a key and a null value) stays in a compacted log after "
                    + "the cleaning that first reached it, so consumers reading from behind see the delete. A "
                    + "consumer that falls further behind than this can miss it.")
            .define(COMPRESSION_TYPE_CONFIG, STRING, COMPRESSION_TYPE_DEFAULT,
                    ValidString.in(COMPRESSION_TYPE_PRODUCER, COMPRESSION_TYPE_UNCOMPRESSED, "gzip", "snappy", "lz4",
                            "zstd"), MEDIUM,
                    "Codec the log stores batches in: producer keeps each batch as its producer compressed it; "
                    + "uncompressed, gzip, snappy, lz4 or zstd recompresses every batch that arrives in another "
                    + "codec before it is appended.");

    /** Kafka's defaults for every key. */
    public static final LogConfig DEFAULT = fromMap(Map.of());

    private final Map<String, Object> values;
    private final int segmentBytes;
    private final long segmentMs;
    private final long segmentJitterMs;
    private final int segmentIndexBytes;
    private final int indexIntervalBytes;
    private final long retentionMs;
    private final long retentionBytes;
    private final long fileDeleteDelayMs;
    private final int maxMessageBytes;
    private final boolean logAppendTime;
    private final long messageTimestampBeforeMaxMs;
    private final long messageTimestampAfterMaxMs;
    private final long flushMessages;
    private final long flushMs;
    private final List<String> cleanupPolicy;
    private final boolean compact;
    private final boolean delete;
    private final double minCleanableDirtyRatio;
    private final long minCompactionLagMs;
    private final long maxCompactionLagMs;
    private final long deleteRetentionMs;
    private final String compressionType;

    private LogConfig(Map<String, Object> values) {
        this.values = values;
        this.segmentBytes = (Integer) values.get(SEGMENT_BYTES_CONFIG);
        this.segmentMs = (Long) values.get(SEGMENT_MS_CONFIG);
        this.segmentJitterMs = (Long) values.get(SEGMENT_JITTER_MS_CONFIG);
        this.segmentIndexBytes = (Integer) values.get(SEGMENT_INDEX_BYTES_CONFIG);
        this.indexIntervalBytes = (Integer) values.get(INDEX_INTERVAL_BYTES_CONFIG);
        this.retentionMs = (Long) values.get(RETENTION_MS_CONFIG);
        this.retentionBytes = (Long) values.get(RETENTION_BYTES_CONFIG);
        this.fileDeleteDelayMs = (Long) values.get(FILE_DELETE_DELAY_MS_CONFIG);
        this.maxMessageBytes = (Integer) values.get(MAX_MESSAGE_BYTES_CONFIG);
        this.logAppendTime = LOG_APPEND_TIME.equals(values.get(MESSAGE_TIMESTAMP_TYPE_CONFIG));
        this.messageTimestampBeforeMaxMs = (Long) values.get(MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG);
        this.messageTimestampAfterMaxMs = (Long) values.get(MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG);
        this.flushMessages = (Long) values.get(FLUSH_MESSAGES_CONFIG);
        this.flushMs = (Long) values.get(FLUSH_MS_CONFIG);
        @SuppressWarnings("unchecked")
        List<String> policy = (List<String>) values.get(CLEANUP_POLICY_CONFIG);
        this.cleanupPolicy = List.copyOf(policy);
        this.compact = policy.contains(CLEANUP_POLICY_COMPACT);
        this.delete = policy.contains(CLEANUP_POLICY_DELETE);
        this.minCleanableDirtyRatio = (Double) values.get(MIN_CLEANABLE_DIRTY_RATIO_CONFIG);
        this.minCompactionLagMs = (Long) values.get(MIN_COMPACTION_LAG_MS_CONFIG);
        this.maxCompactionLagMs = (Long) values.get(MAX_COMPACTION_LAG_MS_CONFIG);
        this.deleteRetentionMs = (Long) values.get(DELETE_RETENTION_MS_CONFIG);
        this.compressionType = (String) values.get(COMPRESSION_TYPE_CONFIG);
        // Kafka's cross-key rule: a record cannot have to be cleaned before it may be.
        if (minCompactionLagMs > maxCompactionLagMs) {
            throw new ConfigException(MAX_COMPACTION_LAG_MS_CONFIG, maxCompactionLagMs,
                    "conflict: must be at least " + MIN_COMPACTION_LAG_MS_CONFIG + " " + minCompactionLagMs);
        }
    }

    /**
     * A config from topic-level keys, Kafka's defaults for the rest. Keys that are not topic-level log
     * settings are ignored (see {@link ConfigDef#unknownKeys} to warn about them).
     *
     * @throws ConfigException naming the first invalid key
     */
    public static LogConfig fromMap(Map<String, ?> props) {
        return new LogConfig(CONFIG.parse(props));
    }

    /**
     * A new config with this config's values as defaults and {@code topicOverrides} on top, validated.
     * A key mapped to {@code null} is not an override.
     *
     * @throws ConfigException naming the first invalid override
     */
    public LogConfig withOverrides(Map<String, ?> topicOverrides) {
        Map<String, Object> merged = new LinkedHashMap<>(values);
        topicOverrides.forEach((key, value) -> {
            if (value != null) {
                merged.put(key, value);
            }
        });
        return new LogConfig(CONFIG.parse(merged));
    }

    /** A copy of the definitions (extending it does not change this class's). */
    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }

    /** Every key with its typed value, in definition order; unmodifiable. */
    public Map<String, Object> values() {
        return values;
    }

    public int segmentBytes() {
        return segmentBytes;
    }

    public long segmentMs() {
        return segmentMs;
    }

    public long segmentJitterMs() {
        return segmentJitterMs;
    }

    public int segmentIndexBytes() {
        return segmentIndexBytes;
    }

    public int indexIntervalBytes() {
        return indexIntervalBytes;
    }

    /** -1 means unlimited. */
    public long retentionMs() {
        return retentionMs;
    }

    /** -1 means unlimited. */
    public long retentionBytes() {
        return retentionBytes;
    }

    public long fileDeleteDelayMs() {
        return fileDeleteDelayMs;
    }

    public int maxMessageBytes() {
        return maxMessageBytes;
    }

    /** True when message.timestamp.type is LogAppendTime: the broker stamps batches at append. */
    public boolean logAppendTime() {
        return logAppendTime;
    }

    /** message.timestamp.before.max.ms; checked only with CreateTime (docs/behaviours.md B150). */
    public long messageTimestampBeforeMaxMs() {
        return messageTimestampBeforeMaxMs;
    }

    /** message.timestamp.after.max.ms; checked only with CreateTime (docs/behaviours.md B150). */
    public long messageTimestampAfterMaxMs() {
        return messageTimestampAfterMaxMs;
    }

    /** flush.messages: unflushed messages at which an append fsyncs the log (B170). */
    public long flushMessages() {
        return flushMessages;
    }

    /** flush.ms: age of the last fsync at which the log flusher fsyncs the log (B171). */
    public long flushMs() {
        return flushMs;
    }

    /** cleanup.policy as configured: delete, compact, or both, in the order given. */
    public List<String> cleanupPolicy() {
        return cleanupPolicy;
    }

    /** cleanup.policy holds compact: the log cleaner keeps the latest record of each key (B180). */
    public boolean compact() {
        return compact;
    }

    /** cleanup.policy holds delete: retention.ms and retention.bytes delete closed segments. */
    public boolean delete() {
        return delete;
    }

    public double minCleanableDirtyRatio() {
        return minCleanableDirtyRatio;
    }

    public long minCompactionLagMs() {
        return minCompactionLagMs;
    }

    public long maxCompactionLagMs() {
        return maxCompactionLagMs;
    }

    public long deleteRetentionMs() {
        return deleteRetentionMs;
    }

    /** compression.type: producer, uncompressed, gzip, snappy, lz4 or zstd. */
    public String compressionType() {
        return compressionType;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LogConfig other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return Objects.hash(values);
    }

    @Override
    public String toString() {
        return "LogConfig" + values;
    }
}
