package io.tideline.client;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;

/**
 * The consumer's metrics, in the registry it owns ({@link TidelineConsumer#metrics()}), named in
 * Kafka's JMX style under its {@code consumer-fetch-manager-metrics} group. Kafka has no metric for
 * offsets lost to a reset; these two are ours, so that data skipped by auto.offset.reset=earliest or
 * latest is visible on a dashboard and never silent.
 */
public final class ConsumerMetrics {
    private static final String GROUP = "kafka.consumer:type=consumer-fetch-manager-metrics,name=";
    /** Counter: offsets skipped by automatic resets of out-of-range positions, summed over partitions. */
    public static final String RECORDS_SKIPPED_BY_RESET = GROUP + "records-skipped-by-reset";
    /** Counter: automatic resets of out-of-range positions (OFFSET_OUT_OF_RANGE answers acted on). */
    public static final String OFFSET_OUT_OF_RANGE_RESETS = GROUP + "offset-out-of-range-resets";

    final Counter recordsSkippedByReset;
    final Counter offsetOutOfRangeResets;

    ConsumerMetrics(MetricRegistry registry) {
        this.recordsSkippedByReset = registry.counter(RECORDS_SKIPPED_BY_RESET);
        this.offsetOutOfRangeResets = registry.counter(OFFSET_OUT_OF_RANGE_RESETS);
    }
}
