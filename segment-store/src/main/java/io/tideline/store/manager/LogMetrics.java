package io.tideline.store.manager;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.store.dir.DeletedOpenFile;
import io.tideline.store.dir.DeletedOpenFilesScanner;
import io.tideline.store.log.Log;
import io.tideline.store.retention.DeletionReason;
import io.tideline.store.retention.SegmentDeleter;
import java.util.List;
import java.util.function.Supplier;

/**
 * Per-log gauges under Kafka's JMX-style names, e.g.
 * {@code kafka.log:type=Log,name=LogStartOffset,topic=orders,partition=0}, so dashboards built for
 * Kafka find them. Registered when a log opens, removed when it closes.
 */
public final class LogMetrics {
    public static final List<String> LOG_GAUGES = List.of("LogStartOffset", "LogEndOffset", "HighWatermark",
            "NumLogSegments", "Size");
    public static final String PENDING_DELETION_SEGMENTS = "kafka.log:type=LogManager,name=PendingDeletionSegments";
    public static final String PENDING_DELETION_BYTES = "kafka.log:type=LogManager,name=PendingDeletionBytes";
    public static final String DELETED_OPEN_FILES = "kafka.log:type=LogManager,name=DeletedOpenFiles";
    public static final String DELETED_OPEN_BYTES = "kafka.log:type=LogManager,name=DeletedOpenBytes";
    /**
     * Segments retention took out since start, one gauge per {@code reason} (a {@link DeletionReason}); it only
     * grows, so dashboards chart its {@code rate()}. Not a Kafka metric: Kafka logs these only.
     */
    public static final String DELETED_SEGMENTS = "kafka.log:type=LogManager,name=DeletedSegments,reason=";
    /** The reasons a retention pass deletes for (truncation and log deletion are not retention). */
    public static final List<DeletionReason> RETENTION_REASONS = List.of(DeletionReason.LOG_START_OFFSET_BREACH,
            DeletionReason.RETENTION_SIZE_BREACH, DeletionReason.RETENTION_TIME_BREACH);
    public static final String OFFLINE_LOG_DIRECTORY_COUNT = "kafka.log:type=LogManager,name=OfflineLogDirectoryCount";

    private LogMetrics() {
    }

    public static String name(String metric, TopicPartition tp) {
        return "kafka.log:type=Log,name=" + metric + ",topic=" + tp.topic() + ",partition=" + tp.partition();
    }

    static void register(MetricRegistry registry, Log log) {
        TopicPartition tp = log.topicPartition();
        registry.register(name("LogStartOffset", tp), (Gauge<Long>) log::logStartOffset);
        registry.register(name("LogEndOffset", tp), (Gauge<Long>) log::logEndOffset);
        registry.register(name("HighWatermark", tp), (Gauge<Long>) log::highWatermark);
        registry.register(name("NumLogSegments", tp), (Gauge<Integer>) log::numberOfSegments);
        registry.register(name("Size", tp), (Gauge<Long>) log::size);
    }

    /** Store-wide gauges: segments waiting for their unlink, and files unlinked but still held open. */
    static void registerStore(MetricRegistry registry, SegmentDeleter deleter,
                              Supplier<List<DeletedOpenFile>> deletedButOpen) {
        for (DeletionReason reason : RETENTION_REASONS) {
            registry.register(DELETED_SEGMENTS + reason, (Gauge<Long>) () -> deleter.deletedSegments(reason));
        }
        registry.register(PENDING_DELETION_SEGMENTS, (Gauge<Integer>) deleter::pendingSegments);
        registry.register(PENDING_DELETION_BYTES, (Gauge<Long>) deleter::pendingBytes);
        registry.register(DELETED_OPEN_FILES, (Gauge<Integer>) () -> deletedButOpen.get().size());
        registry.register(DELETED_OPEN_BYTES,
                (Gauge<Long>) () -> DeletedOpenFilesScanner.summarize(deletedButOpen.get()).totalBytes());
    }

    static void removeStore(MetricRegistry registry) {
        for (String name : List.of(PENDING_DELETION_SEGMENTS, PENDING_DELETION_BYTES, DELETED_OPEN_FILES, DELETED_OPEN_BYTES,
                OFFLINE_LOG_DIRECTORY_COUNT)) {
            registry.remove(name);
        }
        for (DeletionReason reason : RETENTION_REASONS) {
            registry.remove(DELETED_SEGMENTS + reason);
        }
    }

    static void remove(MetricRegistry registry, TopicPartition tp) {
        for (String gauge : LOG_GAUGES) {
            registry.remove(name(gauge, tp));
        }
    }
}
