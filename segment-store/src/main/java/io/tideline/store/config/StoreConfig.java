package io.tideline.store.config;

import static io.tideline.common.config.ConfigDef.Importance.HIGH;
import static io.tideline.common.config.ConfigDef.Importance.LOW;
import static io.tideline.common.config.ConfigDef.Importance.MEDIUM;
import static io.tideline.common.config.ConfigDef.Type.DOUBLE;
import static io.tideline.common.config.ConfigDef.Type.INT;
import static io.tideline.common.config.ConfigDef.Type.LIST;
import static io.tideline.common.config.ConfigDef.Type.LONG;
import static io.tideline.common.config.ConfigDef.Type.STRING;

import io.tideline.common.config.AbstractConfig;
import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.ConfigException;
import io.tideline.store.producer.ProducerStateManager;
import io.tideline.common.config.Range;
import io.tideline.common.config.ValidList;
import io.tideline.common.config.ValidString;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Broker-level settings of the store, under Kafka's broker key names: where the logs live, how often the
 * background tasks run, and the broker-wide defaults for every {@link LogConfig} key (Kafka's
 * {@code log.*} synonyms, resolved into {@link #logConfigDefaults()}). Immutable and safe to share
 * between threads.
 */
public final class StoreConfig extends AbstractConfig {

    public static final String LOG_DIRS_CONFIG = "log.dirs";
    public static final String LOG_DIR_CONFIG = "log.dir";

    public static final String LOG_RETENTION_CHECK_INTERVAL_MS_CONFIG = "log.retention.check.interval.ms";
    public static final long LOG_RETENTION_CHECK_INTERVAL_MS_DEFAULT = 5 * 60 * 1000L;

    public static final String LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG =
            "log.flush.offset.checkpoint.interval.ms";
    public static final long LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS_DEFAULT = 60_000L;

    public static final String LOG_FLUSH_START_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG =
            "log.flush.start.offset.checkpoint.interval.ms";
    public static final long LOG_FLUSH_START_OFFSET_CHECKPOINT_INTERVAL_MS_DEFAULT = 60_000L;

    // Broker-wide defaults for the topic-level LogConfig keys.
    public static final String LOG_SEGMENT_BYTES_CONFIG = "log.segment.bytes";
    public static final String LOG_ROLL_MS_CONFIG = "log.roll.ms";
    public static final String LOG_ROLL_HOURS_CONFIG = "log.roll.hours";
    public static final int LOG_ROLL_HOURS_DEFAULT = 24 * 7;
    public static final String LOG_ROLL_JITTER_MS_CONFIG = "log.roll.jitter.ms";
    public static final String LOG_ROLL_JITTER_HOURS_CONFIG = "log.roll.jitter.hours";
    public static final int LOG_ROLL_JITTER_HOURS_DEFAULT = 0;
    public static final String LOG_INDEX_SIZE_MAX_BYTES_CONFIG = "log.index.size.max.bytes";
    public static final String LOG_INDEX_INTERVAL_BYTES_CONFIG = "log.index.interval.bytes";
    public static final String LOG_RETENTION_MS_CONFIG = "log.retention.ms";
    public static final String LOG_RETENTION_MINUTES_CONFIG = "log.retention.minutes";
    public static final String LOG_RETENTION_HOURS_CONFIG = "log.retention.hours";
    public static final int LOG_RETENTION_HOURS_DEFAULT = 24 * 7;
    public static final String LOG_RETENTION_BYTES_CONFIG = "log.retention.bytes";
    public static final String LOG_SEGMENT_DELETE_DELAY_MS_CONFIG = "log.segment.delete.delay.ms";
    public static final String MESSAGE_MAX_BYTES_CONFIG = "message.max.bytes";
    public static final String LOG_MESSAGE_TIMESTAMP_TYPE_CONFIG = "log.message.timestamp.type";
    public static final String LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG = "log.message.timestamp.before.max.ms";
    public static final String LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG = "log.message.timestamp.after.max.ms";
    public static final String LOG_FLUSH_INTERVAL_MESSAGES_CONFIG = "log.flush.interval.messages";
    public static final String LOG_FLUSH_INTERVAL_MS_CONFIG = "log.flush.interval.ms";

    public static final String LOG_FLUSH_SCHEDULER_INTERVAL_MS_CONFIG = "log.flush.scheduler.interval.ms";
    /** Kafka's default: the log flusher never runs, so flush.ms has no effect until this is set. */
    public static final long LOG_FLUSH_SCHEDULER_INTERVAL_MS_DEFAULT = Long.MAX_VALUE;

    public static final String LOG_CLEANUP_POLICY_CONFIG = "log.cleanup.policy";
    public static final String LOG_CLEANER_MIN_CLEANABLE_RATIO_CONFIG = "log.cleaner.min.cleanable.ratio";
    public static final String LOG_CLEANER_MIN_COMPACTION_LAG_MS_CONFIG = "log.cleaner.min.compaction.lag.ms";
    public static final String LOG_CLEANER_MAX_COMPACTION_LAG_MS_CONFIG = "log.cleaner.max.compaction.lag.ms";
    public static final String LOG_CLEANER_DELETE_RETENTION_MS_CONFIG = "log.cleaner.delete.retention.ms";
    public static final String COMPRESSION_TYPE_CONFIG = "compression.type";

    public static final String LOG_CLEANER_THREADS_CONFIG = "log.cleaner.threads";
    public static final int LOG_CLEANER_THREADS_DEFAULT = 1;
    public static final String LOG_CLEANER_DEDUPE_BUFFER_SIZE_CONFIG = "log.cleaner.dedupe.buffer.size";
    public static final long LOG_CLEANER_DEDUPE_BUFFER_SIZE_DEFAULT = 128L * 1024 * 1024;
    /** Kafka's floor: each cleaner thread's share of the dedupe buffer must be at least 1 MiB. */
    public static final long LOG_CLEANER_DEDUPE_BUFFER_PER_THREAD_MIN = 1024 * 1024;
    public static final String LOG_CLEANER_IO_BUFFER_SIZE_CONFIG = "log.cleaner.io.buffer.size";
    public static final int LOG_CLEANER_IO_BUFFER_SIZE_DEFAULT = 512 * 1024;
    public static final String LOG_CLEANER_IO_BUFFER_LOAD_FACTOR_CONFIG = "log.cleaner.io.buffer.load.factor";
    public static final double LOG_CLEANER_IO_BUFFER_LOAD_FACTOR_DEFAULT = 0.9;
    public static final String LOG_CLEANER_IO_MAX_BYTES_PER_SECOND_CONFIG = "log.cleaner.io.max.bytes.per.second";
    public static final double LOG_CLEANER_IO_MAX_BYTES_PER_SECOND_DEFAULT = Double.MAX_VALUE;
    public static final String LOG_CLEANER_BACKOFF_MS_CONFIG = "log.cleaner.backoff.ms";
    public static final long LOG_CLEANER_BACKOFF_MS_DEFAULT = 15_000L;

    public static final String PRODUCER_ID_EXPIRATION_MS_CONFIG = "producer.id.expiration.ms";
    public static final int PRODUCER_ID_EXPIRATION_MS_DEFAULT = 86_400_000;
    public static final String PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_CONFIG = "producer.id.expiration.check.interval.ms";
    public static final int PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT = 600_000;
    public static final String PRODUCER_ID_MAX_ENTRIES_PER_PARTITION_CONFIG = "producer.id.max.entries.per.partition";

    private static final long MS_PER_MINUTE = 60_000L;
    private static final long MS_PER_HOUR = 3_600_000L;

    private static final ConfigDef CONFIG = new ConfigDef()
            .define(LOG_DIRS_CONFIG, LIST, ConfigDef.NO_DEFAULT, ValidList.nonEmpty(), HIGH,
                    "Comma-separated directories that hold the partition logs, ideally one per disk; each "
                    + "partition lives wholly in one of them. Required, unless log.dir is set instead.")
            .define(LOG_DIR_CONFIG, STRING, null, LOW,
                    "A single log directory, used only when log.dirs is not set.")
            .define(LOG_RETENTION_CHECK_INTERVAL_MS_CONFIG, LONG, LOG_RETENTION_CHECK_INTERVAL_MS_DEFAULT,
                    Range.atLeast(1), MEDIUM,
                    "How often the retention task looks for segments to delete under retention.ms, "
                    + "retention.bytes and the log start offset. Data can outlive its retention by this much.")
            .define(LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG, LONG,
                    LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS_DEFAULT, Range.atLeast(0), HIGH,
                    "How often each log directory's recovery-point checkpoint is written. After an unclean "
                    + "shutdown, recovery re-validates everything past the last checkpointed offsets, so a "
                    + "longer interval means a longer restart.")
            .define(LOG_FLUSH_START_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG, LONG,
                    LOG_FLUSH_START_OFFSET_CHECKPOINT_INTERVAL_MS_DEFAULT, Range.atLeast(0), HIGH,
                    "How often each log directory's log-start-offset checkpoint is written, so that records "
                    + "removed by DeleteRecords stay invisible after a restart.")
            .define(LOG_SEGMENT_BYTES_CONFIG, INT, LogConfig.SEGMENT_BYTES_DEFAULT,
                    Range.atLeast(LogConfig.SEGMENT_BYTES_MIN), HIGH,
                    synonymDoc(LogConfig.SEGMENT_BYTES_CONFIG))
            .define(LOG_ROLL_MS_CONFIG, LONG, null, Range.atLeast(1), HIGH,
                    synonymDoc(LogConfig.SEGMENT_MS_CONFIG) + " Takes precedence over log.roll.hours.")
            .define(LOG_ROLL_HOURS_CONFIG, INT, LOG_ROLL_HOURS_DEFAULT, Range.atLeast(1), HIGH,
                    "The same as log.roll.ms, in hours; used when log.roll.ms is not set.")
            .define(LOG_ROLL_JITTER_MS_CONFIG, LONG, null, Range.atLeast(0), HIGH,
                    synonymDoc(LogConfig.SEGMENT_JITTER_MS_CONFIG) + " Takes precedence over log.roll.jitter.hours.")
            .define(LOG_ROLL_JITTER_HOURS_CONFIG, INT, LOG_ROLL_JITTER_HOURS_DEFAULT, Range.atLeast(0), HIGH,
                    "The same as log.roll.jitter.ms, in hours; used when log.roll.jitter.ms is not set.")
            .define(LOG_INDEX_SIZE_MAX_BYTES_CONFIG, INT, LogConfig.SEGMENT_INDEX_BYTES_DEFAULT,
                    Range.atLeast(LogConfig.SEGMENT_INDEX_BYTES_MIN), MEDIUM,
                    synonymDoc(LogConfig.SEGMENT_INDEX_BYTES_CONFIG))
            .define(LOG_INDEX_INTERVAL_BYTES_CONFIG, INT, LogConfig.INDEX_INTERVAL_BYTES_DEFAULT,
                    Range.atLeast(0), MEDIUM,
                    synonymDoc(LogConfig.INDEX_INTERVAL_BYTES_CONFIG))
            .define(LOG_RETENTION_MS_CONFIG, LONG, null, Range.atLeast(-1), HIGH,
                    synonymDoc(LogConfig.RETENTION_MS_CONFIG)
                    + " Takes precedence over log.retention.minutes and log.retention.hours.")
            .define(LOG_RETENTION_MINUTES_CONFIG, INT, null, Range.atLeast(-1), HIGH,
                    "The same as log.retention.ms, in minutes (-1: no time limit); used when log.retention.ms "
                    + "is not set, and takes precedence over log.retention.hours.")
            .define(LOG_RETENTION_HOURS_CONFIG, INT, LOG_RETENTION_HOURS_DEFAULT, Range.atLeast(-1), HIGH,
                    "The same as log.retention.ms, in hours (-1: no time limit); used when neither "
                    + "log.retention.ms nor log.retention.minutes is set.")
            .define(LOG_RETENTION_BYTES_CONFIG, LONG, LogConfig.RETENTION_BYTES_DEFAULT, Range.atLeast(-1), HIGH,
                    synonymDoc(LogConfig.RETENTION_BYTES_CONFIG))
            .define(LOG_SEGMENT_DELETE_DELAY_MS_CONFIG, LONG, LogConfig.FILE_DELETE_DELAY_MS_DEFAULT,
                    Range.atLeast(0), HIGH,
                    synonymDoc(LogConfig.FILE_DELETE_DELAY_MS_CONFIG))
            .define(MESSAGE_MAX_BYTES_CONFIG, INT, LogConfig.MAX_MESSAGE_BYTES_DEFAULT, Range.atLeast(0), HIGH,
                    synonymDoc(LogConfig.MAX_MESSAGE_BYTES_CONFIG))
            .define(LOG_MESSAGE_TIMESTAMP_TYPE_CONFIG, STRING, LogConfig.MESSAGE_TIMESTAMP_TYPE_DEFAULT,
                    ValidString.in(LogConfig.CREATE_TIME, LogConfig.LOG_APPEND_TIME), MEDIUM,
                    synonymDoc(LogConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG))
            .define(LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, LONG, LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_DEFAULT,
                    Range.atLeast(0), MEDIUM,
                    synonymDoc(LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG))
            .define(LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, LONG, LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_DEFAULT,
                    Range.atLeast(0), MEDIUM,
                    synonymDoc(LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG))
            .define(LOG_FLUSH_INTERVAL_MESSAGES_CONFIG, LONG, LogConfig.FLUSH_MESSAGES_DEFAULT, Range.atLeast(1), HIGH,
                    synonymDoc(LogConfig.FLUSH_MESSAGES_CONFIG))
            .define(LOG_FLUSH_INTERVAL_MS_CONFIG, LONG, null, Range.atLeast(0), HIGH,
                    synonymDoc(LogConfig.FLUSH_MS_CONFIG) + " When not set, log.flush.scheduler.interval.ms is used.")
            .define(LOG_FLUSH_SCHEDULER_INTERVAL_MS_CONFIG, LONG, LOG_FLUSH_SCHEDULER_INTERVAL_MS_DEFAULT,
                    Range.atLeast(1), HIGH,
                    "How often the log flusher checks every log against its flush.ms and fsyncs those whose last "
                    + "fsync is at least that old. The default never runs it.")
            .define(LOG_CLEANUP_POLICY_CONFIG, LIST, LogConfig.CLEANUP_POLICY_DEFAULT,
                    ValidList.in(LogConfig.CLEANUP_POLICY_DELETE, LogConfig.CLEANUP_POLICY_COMPACT), HIGH,
                    synonymDoc(LogConfig.CLEANUP_POLICY_CONFIG))
            .define(LOG_CLEANER_MIN_CLEANABLE_RATIO_CONFIG, DOUBLE, LogConfig.MIN_CLEANABLE_DIRTY_RATIO_DEFAULT,
                    Range.between(0, 1), MEDIUM,
                    synonymDoc(LogConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG))
            .define(LOG_CLEANER_MIN_COMPACTION_LAG_MS_CONFIG, LONG, LogConfig.MIN_COMPACTION_LAG_MS_DEFAULT,
                    Range.atLeast(0), MEDIUM,
                    synonymDoc(LogConfig.MIN_COMPACTION_LAG_MS_CONFIG))
            .define(LOG_CLEANER_MAX_COMPACTION_LAG_MS_CONFIG, LONG, LogConfig.MAX_COMPACTION_LAG_MS_DEFAULT,
                    Range.atLeast(1), MEDIUM,
                    synonymDoc(LogConfig.MAX_COMPACTION_LAG_MS_CONFIG))
            .define(LOG_CLEANER_DELETE_RETENTION_MS_CONFIG, LONG, LogConfig.DELETE_RETENTION_MS_DEFAULT,
                    Range.atLeast(0), MEDIUM,
                    synonymDoc(LogConfig.DELETE_RETENTION_MS_CONFIG))
            .define(COMPRESSION_TYPE_CONFIG, STRING, LogConfig.COMPRESSION_TYPE_DEFAULT,
                    ValidString.in(LogConfig.COMPRESSION_TYPE_PRODUCER, LogConfig.COMPRESSION_TYPE_UNCOMPRESSED,
                            "gzip", "snappy", "lz4", "zstd"), HIGH,
                    synonymDoc(LogConfig.COMPRESSION_TYPE_CONFIG))
            .define(LOG_CLEANER_THREADS_CONFIG, INT, LOG_CLEANER_THREADS_DEFAULT, Range.atLeast(0), MEDIUM,
                    "Threads that clean compacted logs; each cleans one log at a time. 0 disables cleaning, and "
                    + "compacted logs then grow as if their policy were delete without retention.")
            .define(LOG_CLEANER_DEDUPE_BUFFER_SIZE_CONFIG, LONG, LOG_CLEANER_DEDUPE_BUFFER_SIZE_DEFAULT,
                    Range.atLeast(0), MEDIUM,
                    "Heap bytes, shared by all cleaner threads, for the map from each key's hash to its latest "
                    + "offset. One cleaning covers as many dirty records as its share holds, at 24 bytes a key "
                    + "and log.cleaner.io.buffer.load.factor full; a larger dirty section takes several "
                    + "cleanings. Each thread's share must be at least 1 MiB.")
            .define(LOG_CLEANER_IO_BUFFER_SIZE_CONFIG, INT, LOG_CLEANER_IO_BUFFER_SIZE_DEFAULT, Range.atLeast(0),
                    MEDIUM,
                    "Bytes each cleaner thread reads and writes segments in, halved between its read and write "
                    + "buffers; a batch larger than this grows the buffers up to max.message.bytes.")
            .define(LOG_CLEANER_IO_BUFFER_LOAD_FACTOR_CONFIG, DOUBLE, LOG_CLEANER_IO_BUFFER_LOAD_FACTOR_DEFAULT,
                    Range.between(0.01, 1.0), MEDIUM,
                    "How full the dedupe map may get: a fuller map holds more keys per cleaning but makes hash "
                    + "probes longer.")
            .define(LOG_CLEANER_IO_MAX_BYTES_PER_SECOND_CONFIG, DOUBLE, LOG_CLEANER_IO_MAX_BYTES_PER_SECOND_DEFAULT,
                    Range.atLeast(1), MEDIUM,
                    "Bytes per second the cleaner threads together read and write at most, so cleaning leaves "
                    + "disk bandwidth to producers and consumers. The default is unthrottled.")
            .define(LOG_CLEANER_BACKOFF_MS_CONFIG, LONG, LOG_CLEANER_BACKOFF_MS_DEFAULT, Range.atLeast(0), MEDIUM,
                    "How long a cleaner thread sleeps when no log needs cleaning.")
            .define(PRODUCER_ID_EXPIRATION_MS_CONFIG, INT, PRODUCER_ID_EXPIRATION_MS_DEFAULT, Range.atLeast(1), LOW,
                    "How long a partition remembers an idempotent producer id after it last wrote a batch of it, by "
                    + "the broker's clock (not the batch's timestamp, which the client sets). "
                    + "A retry that arrives later is no longer recognised as a duplicate; this bounds the producer "
                    + "state each partition keeps.")
            .define(PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_CONFIG, INT, PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT,
                    Range.atLeast(1), LOW,
                    "How often every partition forgets the producer ids past producer.id.expiration.ms; a producer "
                    + "id can be remembered this much longer.")
            .define(PRODUCER_ID_MAX_ENTRIES_PER_PARTITION_CONFIG, INT,
                    ProducerStateManager.MAX_PRODUCER_IDS_DEFAULT, Range.atLeast(1), LOW,
                    "Most idempotent producer ids a partition leader remembers (Tideline's bound; Kafka has none). "
                    + "A batch from a producer id the partition does not know, when it knows this many already, "
                    + "is refused with THROTTLING_QUOTA_EXCEEDED (retriable: the producer retries until its "
                    + "delivery.timeout.ms) until producer.id.expiration.ms frees entries. Each entry takes "
                    + "a few hundred bytes of heap.");

    private final List<Path> logDirs;
    private final long retentionCheckIntervalMs;
    private final long offsetCheckpointIntervalMs;
    private final long startOffsetCheckpointIntervalMs;
    private final LogConfig logConfigDefaults;
    private final int producerIdExpirationMs;
    private final int producerIdExpirationCheckIntervalMs;
    private final int producerIdMaxEntriesPerPartition;
    private final long flushSchedulerIntervalMs;
    private final CleanerConfig cleanerConfig;

    private StoreConfig(Map<String, ?> props) {
        super(CONFIG, withLogDirFallback(props));
        this.logDirs = resolveLogDirs(getList(LOG_DIRS_CONFIG));
        this.retentionCheckIntervalMs = getLong(LOG_RETENTION_CHECK_INTERVAL_MS_CONFIG);
        this.offsetCheckpointIntervalMs = getLong(LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG);
        this.startOffsetCheckpointIntervalMs = getLong(LOG_FLUSH_START_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG);
        this.logConfigDefaults = resolveLogConfigDefaults();
        this.producerIdExpirationMs = getInt(PRODUCER_ID_EXPIRATION_MS_CONFIG);
        this.producerIdExpirationCheckIntervalMs = getInt(PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_CONFIG);
        this.producerIdMaxEntriesPerPartition = getInt(PRODUCER_ID_MAX_ENTRIES_PER_PARTITION_CONFIG);
        this.flushSchedulerIntervalMs = getLong(LOG_FLUSH_SCHEDULER_INTERVAL_MS_CONFIG);
        this.cleanerConfig = new CleanerConfig(getInt(LOG_CLEANER_THREADS_CONFIG),
                getLong(LOG_CLEANER_DEDUPE_BUFFER_SIZE_CONFIG), getInt(LOG_CLEANER_IO_BUFFER_SIZE_CONFIG),
                getDouble(LOG_CLEANER_IO_BUFFER_LOAD_FACTOR_CONFIG), getDouble(LOG_CLEANER_IO_MAX_BYTES_PER_SECOND_CONFIG),
                getLong(LOG_CLEANER_BACKOFF_MS_CONFIG));
        if (cleanerConfig.threads() > 0
                && cleanerConfig.dedupeBufferSize() / cleanerConfig.threads() < LOG_CLEANER_DEDUPE_BUFFER_PER_THREAD_MIN) {
            throw new ConfigException(LOG_CLEANER_DEDUPE_BUFFER_SIZE_CONFIG, cleanerConfig.dedupeBufferSize(),
                    "must be at least 1 MiB per cleaner thread (" + LOG_CLEANER_THREADS_CONFIG + " "
                    + cleanerConfig.threads() + ")");
        }
    }

    /**
     * Parses and validates broker settings. Keys this class does not know are ignored (see
     * {@link #unknownKeys()}).
     *
     * @throws ConfigException naming the first invalid or missing key
     */
    public static StoreConfig fromMap(Map<String, ?> props) {
        return new StoreConfig(props);
    }

    /** A copy of the definitions; the node's broker config can extend it. */
    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }

    /** The log directories, in the order given; never empty, no duplicates. */
    public List<Path> logDirs() {
        return logDirs;
    }

    /** The log.cleaner.* settings of the log cleaner. */
    public CleanerConfig cleanerConfig() {
        return cleanerConfig;
    }

    public long retentionCheckIntervalMs() {
        return retentionCheckIntervalMs;
    }

    /** Interval of the recovery-point checkpoint (log.flush.offset.checkpoint.interval.ms). */
    public long offsetCheckpointIntervalMs() {
        return offsetCheckpointIntervalMs;
    }

    /** Interval of the log-start-offset checkpoint (log.flush.start.offset.checkpoint.interval.ms). */
    public long startOffsetCheckpointIntervalMs() {
        return startOffsetCheckpointIntervalMs;
    }

    /** producer.id.max.entries.per.partition (docs/behaviours.md B153). */
    public int producerIdMaxEntriesPerPartition() {
        return producerIdMaxEntriesPerPartition;
    }

    /** producer.id.expiration.ms. */
    public int producerIdExpirationMs() {
        return producerIdExpirationMs;
    }

    /** producer.id.expiration.check.interval.ms. */
    public int producerIdExpirationCheckIntervalMs() {
        return producerIdExpirationCheckIntervalMs;
    }

    /** Period of the log flusher (log.flush.scheduler.interval.ms); Long.MAX_VALUE: it never runs (B171). */
    public long flushSchedulerIntervalMs() {
        return flushSchedulerIntervalMs;
    }

    /** The broker-wide defaults as a LogConfig; a topic's config is this {@link LogConfig#withOverrides}. */
    public LogConfig logConfigDefaults() {
        return logConfigDefaults;
    }

    private static String synonymDoc(String topicKey) {
        return "Broker-wide default for the topic-level " + topicKey + ". "
                + LogConfig.configDef().configKeys().get(topicKey).documentation();
    }

    /** As in Kafka: log.dirs if set, else log.dir (also comma-separated). */
    private static Map<String, ?> withLogDirFallback(Map<String, ?> props) {
        if (props.get(LOG_DIRS_CONFIG) != null || props.get(LOG_DIR_CONFIG) == null) {
            return props;
        }
        Map<String, Object> copy = new LinkedHashMap<>(props);
        copy.put(LOG_DIRS_CONFIG, props.get(LOG_DIR_CONFIG));
        return copy;
    }

    private static List<Path> resolveLogDirs(List<String> dirs) {
        List<Path> paths = new ArrayList<>(dirs.size());
        Set<Path> seen = new HashSet<>();
        for (String dir : dirs) {
            Path path;
            try {
                path = Path.of(dir);
            } catch (InvalidPathException e) {
                throw new ConfigException(LOG_DIRS_CONFIG, String.join(",", dirs), "Invalid path " + dir);
            }
            // Two entries naming the same directory would load every partition in it twice.
            if (!seen.add(path.toAbsolutePath().normalize())) {
                throw new ConfigException(LOG_DIRS_CONFIG, String.join(",", dirs), "Duplicate log directory " + dir);
            }
            paths.add(path);
        }
        return List.copyOf(paths);
    }

    /**
     * Kafka's precedence for the synonyms: milliseconds over minutes over hours. A negative retention in
     * any unit means unlimited and becomes -1 (not -1 hour in milliseconds).
     */
    private LogConfig resolveLogConfigDefaults() {
        Long rollMs = getLong(LOG_ROLL_MS_CONFIG);
        Long jitterMs = getLong(LOG_ROLL_JITTER_MS_CONFIG);
        Map<String, Object> topic = new LinkedHashMap<>();
        topic.put(LogConfig.SEGMENT_BYTES_CONFIG, getInt(LOG_SEGMENT_BYTES_CONFIG));
        topic.put(LogConfig.SEGMENT_MS_CONFIG,
                rollMs != null ? rollMs : getInt(LOG_ROLL_HOURS_CONFIG) * MS_PER_HOUR);
        topic.put(LogConfig.SEGMENT_JITTER_MS_CONFIG,
                jitterMs != null ? jitterMs : getInt(LOG_ROLL_JITTER_HOURS_CONFIG) * MS_PER_HOUR);
        topic.put(LogConfig.SEGMENT_INDEX_BYTES_CONFIG, getInt(LOG_INDEX_SIZE_MAX_BYTES_CONFIG));
        topic.put(LogConfig.INDEX_INTERVAL_BYTES_CONFIG, getInt(LOG_INDEX_INTERVAL_BYTES_CONFIG));
        topic.put(LogConfig.RETENTION_MS_CONFIG, resolveRetentionMs());
        topic.put(LogConfig.RETENTION_BYTES_CONFIG, getLong(LOG_RETENTION_BYTES_CONFIG));
        topic.put(LogConfig.FILE_DELETE_DELAY_MS_CONFIG, getLong(LOG_SEGMENT_DELETE_DELAY_MS_CONFIG));
        topic.put(LogConfig.MAX_MESSAGE_BYTES_CONFIG, getInt(MESSAGE_MAX_BYTES_CONFIG));
        topic.put(LogConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, getString(LOG_MESSAGE_TIMESTAMP_TYPE_CONFIG));
        topic.put(LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, getLong(LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG));
        topic.put(LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, getLong(LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG));
        topic.put(LogConfig.FLUSH_MESSAGES_CONFIG, getLong(LOG_FLUSH_INTERVAL_MESSAGES_CONFIG));
        topic.put(LogConfig.CLEANUP_POLICY_CONFIG, getList(LOG_CLEANUP_POLICY_CONFIG));
        topic.put(LogConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG, getDouble(LOG_CLEANER_MIN_CLEANABLE_RATIO_CONFIG));
        topic.put(LogConfig.MIN_COMPACTION_LAG_MS_CONFIG, getLong(LOG_CLEANER_MIN_COMPACTION_LAG_MS_CONFIG));
        topic.put(LogConfig.MAX_COMPACTION_LAG_MS_CONFIG, getLong(LOG_CLEANER_MAX_COMPACTION_LAG_MS_CONFIG));
        topic.put(LogConfig.DELETE_RETENTION_MS_CONFIG, getLong(LOG_CLEANER_DELETE_RETENTION_MS_CONFIG));
        topic.put(LogConfig.COMPRESSION_TYPE_CONFIG, getString(COMPRESSION_TYPE_CONFIG));
        Long flushMs = getLong(LOG_FLUSH_INTERVAL_MS_CONFIG);
        // Kafka's fallback: without log.flush.interval.ms, logs are flushed at the flusher's own period.
        topic.put(LogConfig.FLUSH_MS_CONFIG, flushMs != null ? flushMs : getLong(LOG_FLUSH_SCHEDULER_INTERVAL_MS_CONFIG));
        return LogConfig.fromMap(topic);
    }

    private long resolveRetentionMs() {
        Long ms = getLong(LOG_RETENTION_MS_CONFIG);
        if (ms != null) {
            return ms;
        }
        Integer minutes = getInt(LOG_RETENTION_MINUTES_CONFIG);
        if (minutes != null) {
            return minutes < 0 ? -1 : minutes * MS_PER_MINUTE;
        }
        int hours = getInt(LOG_RETENTION_HOURS_CONFIG);
        return hours < 0 ? -1 : hours * MS_PER_HOUR;
    }
}
