package io.tideline.store.manager;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.tideline.store.cleaner.LogCleaner;
import java.util.List;

/** The log cleaner's gauges under Kafka's JMX-style names (docs/behaviours.md B192). */
final class CleanerMetrics {
    static final String MAX_DIRTY_PERCENT = "kafka.log:type=LogCleanerManager,name=max-dirty-percent";
    static final String RECOPY_PERCENT = "kafka.log:type=LogCleaner,name=cleaner-recopy-percent";
    static final String MAX_CLEAN_TIME_SECS = "kafka.log:type=LogCleaner,name=max-clean-time-secs";
    static final String MAX_BUFFER_UTILIZATION_PERCENT = "kafka.log:type=LogCleaner,name=max-buffer-utilization-percent";
    static final String MAX_COMPACTION_DELAY_SECS = "kafka.log:type=LogCleaner,name=max-compaction-delay-secs";
    private static final List<String> ALL = List.of(MAX_DIRTY_PERCENT, RECOPY_PERCENT, MAX_CLEAN_TIME_SECS,
            MAX_BUFFER_UTILIZATION_PERCENT, MAX_COMPACTION_DELAY_SECS);

    private CleanerMetrics() {
    }

    static void register(MetricRegistry registry, LogCleaner cleaner) {
        registry.register(MAX_DIRTY_PERCENT, (Gauge<Integer>) () -> (int) cleaner.maxDirtyPercent());
        registry.register(RECOPY_PERCENT, (Gauge<Integer>) () -> (int) cleaner.cleanerRecopyPercent());
        registry.register(MAX_CLEAN_TIME_SECS, (Gauge<Integer>) () -> (int) cleaner.maxCleanTimeSecs());
        registry.register(MAX_BUFFER_UTILIZATION_PERCENT, (Gauge<Integer>) () -> (int) cleaner.maxBufferUtilizationPercent());
        registry.register(MAX_COMPACTION_DELAY_SECS, (Gauge<Integer>) () -> (int) cleaner.maxCompactionDelaySecs());
    }

    static void remove(MetricRegistry registry) {
        ALL.forEach(registry::remove);
    }
}
