package io.tideline.node.metrics;

import io.prometheus.metrics.model.snapshots.Labels;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * The Prometheus name and labels of a registry name, as the Prometheus JMX exporter's Kafka rules write them
 * (lowercase output names, the rules Strimzi ships): {@code kafka_<domain rest>_<type>_<name>}, every other key
 * property a label.
 * <pre>
 *   kafka.log:type=Log,name=LogStartOffset,topic=orders,partition=0
 *     -> kafka_log_log_logstartoffset{topic="orders",partition="0"}
 *   kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions
 *     -> kafka_server_replicamanager_underreplicatedpartitions
 *   kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=orders      (a meter)
 *     -> kafka_server_brokertopicmetrics_bytesin_total{topic="orders"}          (the bridge appends _total)
 *   kafka.network:type=SocketServer,name=NetworkProcessorAvgIdlePercent
 *     -> kafka_network_socketserver_networkprocessoravgidle_percent
 * </pre>
 * The metric name is the domain, then the {@code type} value, then the {@code name} value (each only if present),
 * joined by {@code _}, in lower case. A {@code name} value with {@code PerSec} in it loses {@code PerSec} and what
 * follows (the exporter's rule for Kafka's meters, whose counts become {@code _total} counters); one with
 * {@code Percent} in it becomes what precedes it plus {@code _percent} (the exporter's rule for Kafka's idle and
 * blocked ratios). Label names keep their case, as the exporter's rules write them. A name not in the
 * {@code domain:key=value,...} form becomes a metric of that whole name, in lower case, without labels.
 *
 * <p>Sanitizing: in metric and label names every character outside {@code [a-zA-Z0-9_]} becomes {@code _}, runs of
 * {@code _} collapse to one, and a leading digit gets a {@code _} in front, so that every name is valid in the
 * classic text format that all Prometheus servers read. Label values are kept verbatim (the exposition escapes
 * them). When two keys of one name sanitize to the same label name, the first wins.
 */
public final class PrometheusNames {
    private static final String TYPE = "type";
    private static final String NAME = "name";
    private static final String PER_SEC = "PerSec";
    private static final String PERCENT = "Percent";

    private PrometheusNames() {
    }

    /** The Prometheus metric name of {@code registryName} (rules in the class comment). */
    public static String metricName(String registryName) {
        Optional<KafkaMetricName> parsed = KafkaMetricName.parse(registryName);
        if (parsed.isEmpty()) {
            return lower(sanitize(registryName));
        }
        StringJoiner parts = new StringJoiner("_");
        parts.add(parsed.get().domain());
        parsed.get().property(TYPE).ifPresent(parts::add);
        parsed.get().property(NAME).ifPresent(name -> parts.add(exporterName(name)));
        return lower(sanitize(parts.toString()));
    }

    /** The JMX exporter's Kafka rules for the {@code name} property: {@code (.+)PerSec\w*} and {@code (.+)Percent\w*}. */
    private static String exporterName(String name) {
        int perSec = name.lastIndexOf(PER_SEC);
        if (perSec > 0) {
            return name.substring(0, perSec);
        }
        int percent = name.lastIndexOf(PERCENT);
        if (percent > 0) {
            return name.substring(0, percent) + "_percent";
        }
        return name;
    }

    private static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }

    /** The labels of {@code registryName}: its key properties other than {@code type} and {@code name}. */
    public static Labels labels(String registryName) {
        Optional<KafkaMetricName> parsed = KafkaMetricName.parse(registryName);
        if (parsed.isEmpty()) {
            return Labels.EMPTY;
        }
        List<String> names = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (Map.Entry<String, String> property : parsed.get().properties()) {
            String label = sanitize(property.getKey());
            if (!property.getKey().equals(TYPE) && !property.getKey().equals(NAME) && !names.contains(label)) {
                names.add(label);
                values.add(property.getValue());
            }
        }
        return Labels.of(names, values);
    }

    /**
     * The HELP text of the family {@code registryName} belongs to: its name with every label value starred, e.g.
     * {@code JMX kafka.log:type=Log,name=LogStartOffset,topic=*,partition=*}, so a reader can find the MBeans.
     */
    public static String help(String registryName) {
        Optional<KafkaMetricName> parsed = KafkaMetricName.parse(registryName);
        if (parsed.isEmpty()) {
            return "Dropwizard metric " + registryName;
        }
        StringJoiner properties = new StringJoiner(",");
        for (Map.Entry<String, String> property : parsed.get().properties()) {
            boolean keep = property.getKey().equals(TYPE) || property.getKey().equals(NAME);
            properties.add(property.getKey() + "=" + (keep ? property.getValue() : "*"));
        }
        return "JMX " + parsed.get().domain() + ":" + properties;
    }

    /** {@code s} as a valid classic Prometheus metric or label name (rules in the class comment). */
    public static String sanitize(String s) {
        StringBuilder out = new StringBuilder(s.length() + 1);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean valid = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
            char next = valid ? c : '_';
            if (next != '_' || out.isEmpty() || out.charAt(out.length() - 1) != '_') {
                out.append(next);
            }
        }
        if (out.isEmpty() || Character.isDigit(out.charAt(0))) {
            out.insert(0, '_');
        }
        return out.toString();
    }
}
