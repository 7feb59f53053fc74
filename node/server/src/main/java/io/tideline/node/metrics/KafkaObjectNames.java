package io.tideline.node.metrics;

import com.codahale.metrics.jmx.ObjectNameFactory;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Makes the registry name itself the JMX ObjectName, so a metric registered as
 * {@code kafka.log:type=Log,name=LogStartOffset,topic=orders,partition=0} is the MBean of exactly that name, as in
 * Kafka, and Kafka's JMX dashboards and alert rules find it. The key properties keep their written order (JMX
 * consoles show them in that order); a value that JMX does not accept bare (one with {@code : " * ? \ } or a line
 * break, or an empty one) is quoted with {@link ObjectName#quote}.
 *
 * <p>A name not in the {@code domain:key=value,...} form (see {@link KafkaMetricName#parse}) falls back to
 * {@code <reporter domain>:type=<kind>,name=<name>}, the kind being the reporter's ({@code gauges}, {@code meters},
 * ...), like Dropwizard's default factory. No metric name makes it throw: one the parse accepts but JMX refuses
 * (a domain or key with {@code * ?} or a line break) falls back the same way. Stateless and thread-safe.
 */
public final class KafkaObjectNames implements ObjectNameFactory {

    @Override
    public ObjectName createName(String kind, String reporterDomain, String name) {
        return toObjectName(name).orElseGet(() -> fallback(kind, reporterDomain, name));
    }

    /** The ObjectName of a registry name in Kafka's form, or empty when the name is not in that form. */
    public static Optional<ObjectName> toObjectName(String name) {
        Optional<KafkaMetricName> parsed = KafkaMetricName.parse(name);
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        StringJoiner properties = new StringJoiner(",");
        for (Map.Entry<String, String> property : parsed.get().properties()) {
            properties.add(property.getKey() + "=" + quoteIfNeeded(property.getValue()));
        }
        try {
            return Optional.of(new ObjectName(parsed.get().domain() + ":" + properties));
        } catch (MalformedObjectNameException e) {
            return Optional.empty();
        }
    }

    private static ObjectName fallback(String kind, String reporterDomain, String name) {
        try {
            return new ObjectName(reporterDomain + ":type=" + quoteIfNeeded(kind) + ",name=" + quoteIfNeeded(name));
        } catch (MalformedObjectNameException e) {
            // Only a reporter domain with a pattern character gets here; it is ours, so that is a programming error.
            throw new IllegalArgumentException("invalid JMX domain for metrics: " + reporterDomain, e);
        }
    }

    static String quoteIfNeeded(String value) {
        if (value.isEmpty()) {
            return ObjectName.quote(value);
        }
        for (int i = 0; i < value.length(); i++) {
            switch (value.charAt(i)) {
                case ',', '=', ':', '"', '*', '?', '\\', '\n' -> {
                    return ObjectName.quote(value);
                }
                default -> {
                }
            }
        }
        return value;
    }
}
