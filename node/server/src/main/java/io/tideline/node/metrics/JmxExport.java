package io.tideline.node.metrics;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.jmx.JmxReporter;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;

/**
 * Publishes a node's metric registry as MBeans named by {@link KafkaObjectNames}: a gauge's reading is the
 * attribute {@code Value}; a meter has {@code Count} and the {@code OneMinuteRate}-style rates per second; a
 * timer's durations are in milliseconds, the units of Kafka's own MBeans. Metrics registered or removed later
 * are added or removed as they come and go.
 *
 * <p>Nodes that share a JVM (tests) must each get their own {@link MBeanServer}
 * ({@code MBeanServerFactory.newMBeanServer()}): on one server the second node's MBeans would clash with the
 * first's and be skipped. Thread-safe.
 */
public final class JmxExport implements AutoCloseable {
    /** The domain of names that are not in Kafka's {@code domain:key=value,...} form. */
    public static final String FALLBACK_DOMAIN = "tideline";

    private final JmxReporter reporter;

    private JmxExport(JmxReporter reporter) {
        this.reporter = reporter;
    }

    /** Registers every current and future metric of {@code registry} with {@code server}. */
    public static JmxExport start(MetricRegistry registry, MBeanServer server) {
        JmxReporter reporter = JmxReporter.forRegistry(registry)
                .registerWith(server)
                .inDomain(FALLBACK_DOMAIN)
                .createsObjectNamesWith(new KafkaObjectNames())
                .convertRatesTo(TimeUnit.SECONDS)
                .convertDurationsTo(TimeUnit.MILLISECONDS)
                .build();
        reporter.start();
        return new JmxExport(reporter);
    }

    /** Unregisters every MBean this export registered. */
    @Override
    public void close() {
        reporter.stop();
    }
}
