package io.tideline.store.manager;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.store.log.Log;
import java.util.List;

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

    static void remove(MetricRegistry registry, TopicPartition tp) {
        for (String gauge : LOG_GAUGES) {
            registry.remove(name(gauge, tp));
        }
    }
}
