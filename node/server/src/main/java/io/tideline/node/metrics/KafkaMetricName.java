package io.tideline.node.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A registry name in Kafka's JMX form, {@code domain:key=value,key=value,...}, split into its domain and its
 * key properties in the order written ({@code kafka.log:type=Log,name=LogStartOffset,topic=orders,partition=0}).
 * Every exporter derives its names from this one parse, so JMX and Prometheus always agree on what a name means.
 *
 * <p>Values are taken verbatim up to the next comma: they may not contain {@code ,} or {@code =} (Kafka's topic
 * names cannot); anything else, {@code :} included, is allowed and quoted where JMX needs it.
 *
 * @param domain     the part before the first colon, non-empty
 * @param properties the key properties in the order written; keys unique and non-empty
 */
public record KafkaMetricName(String domain, List<Map.Entry<String, String>> properties) {

    public KafkaMetricName {
        properties = List.copyOf(properties);
    }

    /**
     * Parses {@code name}, or answers empty when it is not in the {@code domain:key=value,...} form (no colon, an
     * empty domain, a property without {@code =}, an empty or repeated key): such names are exported under a
     * fallback name by each exporter.
     */
    public static Optional<KafkaMetricName> parse(String name) {
        int colon = name.indexOf(':');
        if (colon <= 0 || colon == name.length() - 1) {
            return Optional.empty();
        }
        List<Map.Entry<String, String>> properties = new ArrayList<>();
        for (String property : name.substring(colon + 1).split(",", -1)) {
            int eq = property.indexOf('=');
            if (eq <= 0) {
                return Optional.empty();
            }
            String key = property.substring(0, eq);
            if (properties.stream().anyMatch(e -> e.getKey().equals(key))) {
                return Optional.empty();
            }
            properties.add(Map.entry(key, property.substring(eq + 1)));
        }
        return Optional.of(new KafkaMetricName(name.substring(0, colon), properties));
    }

    /** The value of {@code key}, if the name has that property. */
    public Optional<String> property(String key) {
        return properties.stream().filter(e -> e.getKey().equals(key)).map(Map.Entry::getValue).findFirst();
    }
}
