package io.tideline.node.metrics;

import com.codahale.metrics.Meter;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.PrometheusNaming;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's Dropwizard registry as Prometheus metric families, converted by the Prometheus Dropwizard bridge
 * ({@link DropwizardExports}) with {@link KafkaLabelMapper}: gauges become gauges, counters and meters counters
 * ({@code _total}), histograms and timers summaries (timers in seconds).
 *
 * <p>Why the layers: the bridge makes one family per registry metric, and the Prometheus model refuses two families
 * of one name, so the per-partition metrics (one family, a label set each) cannot go through it in one pass. Each
 * scrape therefore deals the metrics into layers that hold at most one metric per family, lets the bridge convert
 * each layer, and joins the data points of a family. A scrape costs O(n log n) in the number of metrics.
 *
 * <p>Two metrics that end up in one family with the same labels, or in one family as different types, are naming
 * mistakes: the first is kept and the others are reported in the log. A gauge that throws is left out of that
 * scrape. Reads the registry at each scrape, so metrics added or removed later show up; thread-safe.
 */
public final class RegistryCollector implements MultiCollector {
    private static final Logger log = LoggerFactory.getLogger(RegistryCollector.class);

    private final MetricRegistry registry;

    public RegistryCollector(MetricRegistry registry) {
        this.registry = registry;
    }

    @Override
    public MetricSnapshots collect() {
        List<Layer> layers = new ArrayList<>();
        Map<String, Integer> depth = new HashMap<>();
        for (Map.Entry<String, Metric> entry : registry.getMetrics().entrySet()) {
            String family = family(entry.getKey(), entry.getValue());
            int index = depth.merge(family, 1, Integer::sum) - 1;
            if (index == layers.size()) {
                layers.add(new Layer());
            }
            layers.get(index).add(family, entry.getKey(), entry.getValue());
        }
        Map<String, List<MetricSnapshot>> families = new TreeMap<>();
        Map<String, String> help = new HashMap<>();
        for (Layer layer : layers) {
            for (MetricSnapshot snapshot : layer.convert()) {
                String family = snapshot.getMetadata().getName();
                families.computeIfAbsent(family, k -> new ArrayList<>()).add(snapshot);
                String source = layer.sources.get(family);
                help.putIfAbsent(family, source == null ? snapshot.getMetadata().getHelp()
                        : PrometheusNames.help(source));
            }
        }
        MetricSnapshots.Builder out = MetricSnapshots.builder();
        families.forEach((family, parts) -> out.metricSnapshot(join(family, help.get(family), parts)));
        return out.build();
    }

    /** The family name the bridge will give this metric (it appends {@code _total} to meters, then sanitizes). */
    private static String family(String name, Metric metric) {
        String mapped = PrometheusNames.metricName(name);
        return PrometheusNaming.sanitizeMetricName(metric instanceof Meter ? mapped + "_total" : mapped);
    }

    private static MetricSnapshot join(String family, String help, List<MetricSnapshot> parts) {
        MetricSnapshot first = parts.get(0);
        List<DataPointSnapshot> points = new ArrayList<>();
        Set<Labels> seen = new HashSet<>();
        for (MetricSnapshot part : parts) {
            if (part.getClass() != first.getClass()) {
                log.warn("Metric family {} mixes {} and {}; exporting the first only", family,
                        first.getClass().getSimpleName(), part.getClass().getSimpleName());
                continue;
            }
            for (DataPointSnapshot point : part.getDataPoints()) {
                if (seen.add(point.getLabels())) {
                    points.add(point);
                } else {
                    log.warn("Metric family {} has two metrics labelled {}; exporting the first only", family,
                            point.getLabels());
                }
            }
        }
        MetricMetadata metadata = new MetricMetadata(family, help);
        if (first instanceof GaugeSnapshot) {
            return new GaugeSnapshot(metadata, cast(points));
        }
        if (first instanceof CounterSnapshot) {
            return new CounterSnapshot(metadata, cast(points));
        }
        if (first instanceof SummarySnapshot) {
            return new SummarySnapshot(metadata, cast(points));
        }
        throw new IllegalStateException("the Dropwizard bridge made a " + first.getClass().getSimpleName()
                + " for " + family + "; only gauges, counters and summaries are expected");
    }

    @SuppressWarnings("unchecked")
    private static <T extends DataPointSnapshot> List<T> cast(List<DataPointSnapshot> points) {
        return (List<T>) (List<?>) points;
    }

    /** Metrics of distinct families, in a registry of their own for the bridge to read. */
    private static final class Layer {
        private final MetricRegistry metrics = new MetricRegistry();
        /** Family name to the registry name it was made from. */
        private final Map<String, String> sources = new HashMap<>();

        void add(String family, String name, Metric metric) {
            metrics.register(name, metric);
            sources.put(family, name);
        }

        MetricSnapshots convert() {
            PrometheusRegistry scratch = new PrometheusRegistry();
            DropwizardExports.builder()
                    .dropwizardRegistry(metrics)
                    .customLabelMapper(new KafkaLabelMapper(metrics.getNames()))
                    .invalidMetricHandler((name, e) -> {
                        log.debug("Metric {} left out of this scrape: {}", name, e.toString());
                        return true;
                    })
                    .register(scratch);
            return scratch.scrape();
        }
    }
}
