package io.tideline.node.metrics;

import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.prometheus.metrics.model.snapshots.SummarySnapshot.SummaryDataPointSnapshot;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * The JVM's garbage collections as the Prometheus hotspot collector names them: one summary
 * {@code jvm_gc_collection_seconds{gc="<collector>"}} per collector, its {@code _count} the collections since
 * start and its {@code _sum} the seconds spent in them, without quantiles (the JVM keeps no distribution).
 * Kafka dashboards (Strimzi's among them) chart {@code rate()} of both.
 *
 * <p>A summary cannot be expressed in the Dropwizard registry (a Timer would own its count and sum), so this is a
 * collector of its own beside {@link RegistryCollector}; JMX already has these figures as the platform's
 * {@code java.lang:type=GarbageCollector,name=*} MBeans. Reads the MXBeans at each scrape; thread-safe.
 */
public final class JvmGcCollector implements Collector {
    public static final String NAME = "jvm_gc_collection_seconds";

    private final List<GarbageCollectorMXBean> collectors;

    public JvmGcCollector() {
        this(ManagementFactory.getGarbageCollectorMXBeans());
    }

    JvmGcCollector(List<GarbageCollectorMXBean> collectors) {
        this.collectors = List.copyOf(collectors);
    }

    @Override
    public MetricSnapshot collect() {
        SummarySnapshot.Builder summary = SummarySnapshot.builder().name(NAME)
                .help("Time spent in a given JVM garbage collector in seconds.");
        for (GarbageCollectorMXBean gc : collectors) {
            long count = gc.getCollectionCount();
            long ms = gc.getCollectionTime();
            // -1: this collector does not report the figure; leave it out rather than publish a false zero.
            if (count < 0 || ms < 0) {
                continue;
            }
            summary.dataPoint(SummaryDataPointSnapshot.builder()
                    .labels(Labels.of("gc", gc.getName()))
                    .count(count)
                    .sum(ms / 1000.0)
                    .build());
        }
        return summary.build();
    }

    @Override
    public String getPrometheusName() {
        return NAME;
    }
}
