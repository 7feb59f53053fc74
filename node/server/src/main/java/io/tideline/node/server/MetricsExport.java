package io.tideline.node.server;

import com.codahale.metrics.MetricRegistry;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metrics.JmxExport;
import io.tideline.node.metrics.MetricsHttpConfig;
import io.tideline.node.metrics.MetricsHttpServer;
import io.tideline.node.replica.FailedReplicasCollector;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a node's metrics are read: JMX always, and the HTTP endpoint when {@code metrics.http.port} turns it on.
 *
 * <p>Thread-safety: started and closed by the node's start-up and stop; {@link #port} may be read from any thread.
 */
final class MetricsExport {
    private static final Logger log = LoggerFactory.getLogger(MetricsExport.class);

    private final JmxExport jmx;
    private final MetricsHttpServer http;

    private MetricsExport(JmxExport jmx, MetricsHttpServer http) {
        this.jmx = jmx;
        this.http = http;
    }

    static MetricsExport start(ServerConfig config, MetricRegistry metrics, BooleanSupplier healthy,
                               Supplier<MetadataImage> image) throws IOException {
        JmxExport jmx = JmxExport.start(metrics, ManagementFactory.getPlatformMBeanServer());
        MetricsHttpServer http = null;
        try {
            int id = config.node().nodeId();
            if (MetricsHttpConfig.enabled(config.metricsHttpPort())) {
                http = MetricsHttpServer.start(config.metricsHttpHost(), config.metricsHttpPort(), metrics, healthy,
                        List.of(new FailedReplicasCollector(id, image)));
                log.info("Node {} serves metrics on http://{}:{}/metrics", id, config.metricsHttpHost(), http.port());
            }
        } catch (IOException | RuntimeException e) {
            jmx.close();
            throw e;
        }
        return new MetricsExport(jmx, http);
    }

    /** The HTTP endpoint's bound port, empty when it is off. */
    Optional<Integer> port() {
        return Optional.ofNullable(http).map(MetricsHttpServer::port);
    }

    /** What the registration advertises: the HTTP endpoint's URL, or "" when it is off. */
    String url(ServerConfig config) {
        return http == null ? "" : AdvertisedEndpoints.metricsUrl(config, http.port());
    }

    void close() {
        if (http != null) {
            http.close();
        }
        jmx.close();
    }
}
