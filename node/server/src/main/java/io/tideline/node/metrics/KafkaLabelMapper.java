package io.tideline.node.metrics;

import io.prometheus.metrics.instrumentation.dropwizard5.labels.CustomLabelMapper;
import io.prometheus.metrics.instrumentation.dropwizard5.labels.MapperConfig;
import io.prometheus.metrics.model.snapshots.Labels;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plugs {@link PrometheusNames} into the Prometheus Dropwizard bridge, whose own mapper only knows dotted
 * Graphite-style globs and cannot read {@code domain:key=value} names (nor topics with dots in them).
 *
 * <p>The bridge asks for a meter's name with {@code _total} appended to the registry name, so a name it asks
 * about that is not registered but is once {@code _total} is taken off is such a meter. Immutable: the names are
 * those of one scrape's layer.
 */
final class KafkaLabelMapper extends CustomLabelMapper {
    private static final String COUNTER_SUFFIX = "_total";

    /**
     * The superclass insists on at least one glob rule; it is never consulted, because both lookups the bridge
     * makes ({@link #getName}, {@link #getLabels}) are overridden below.
     */
    private static final List<MapperConfig> NO_GLOB_RULES =
            List.of(new MapperConfig("tideline.*", "tideline", Map.of()));

    private final Set<String> registeredNames;

    /** @param registeredNames the names of the registry the bridge reads with this mapper */
    KafkaLabelMapper(Set<String> registeredNames) {
        super(NO_GLOB_RULES);
        this.registeredNames = registeredNames;
    }

    @Override
    public String getName(String dropwizardName) {
        if (!registeredNames.contains(dropwizardName) && dropwizardName.endsWith(COUNTER_SUFFIX)) {
            String meter = dropwizardName.substring(0, dropwizardName.length() - COUNTER_SUFFIX.length());
            if (registeredNames.contains(meter)) {
                return PrometheusNames.metricName(meter) + COUNTER_SUFFIX;
            }
        }
        return PrometheusNames.metricName(dropwizardName);
    }

    @Override
    public Labels getLabels(String dropwizardName, List<String> additionalLabelNames,
                            List<String> additionalLabelValues) {
        Labels labels = PrometheusNames.labels(dropwizardName);
        return additionalLabelNames.isEmpty() ? labels
                : labels.merge(Labels.of(additionalLabelNames, additionalLabelValues));
    }
}
