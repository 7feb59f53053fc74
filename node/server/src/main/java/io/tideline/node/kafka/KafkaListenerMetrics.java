package io.tideline.node.kafka;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The Kafka listener's metrics under Kafka's names: {@code kafka.network:type=RequestMetrics,name=RequestsPerSec,
 * request=<ApiName>} (a meter per API, Kafka's name without its per-version tag) and the open connections,
 * {@code kafka.server:type=socket-server-metrics,listener=<NAME>,name=connection-count} (Kafka's metric group
 * and attribute, as a name); the phases of each request's time are {@link KafkaRequestTimes}. Thread-safe.
 */
final class KafkaListenerMetrics {
    static final String REQUESTS_PER_SEC = "kafka.network:type=RequestMetrics,name=RequestsPerSec,request=";

    private final MetricRegistry registry;
    private final AtomicInteger connections = new AtomicInteger();
    private final Map<ApiKeys, Meter> requests = new ConcurrentHashMap<>();
    private final KafkaRequestTimes times;

    KafkaListenerMetrics(MetricRegistry registry, String listenerName) {
        this.registry = registry;
        this.times = new KafkaRequestTimes(registry);
        registry.register("kafka.server:type=socket-server-metrics,listener=" + listenerName + ",name=connection-count",
                (Gauge<Integer>) connections::get);
    }

    void connectionOpened() {
        connections.incrementAndGet();
    }

    void connectionClosed() {
        connections.decrementAndGet();
    }

    int connectionCount() {
        return connections.get();
    }

    KafkaRequestTimes times() {
        return times;
    }

    void request(ApiKeys key) {
        requests.computeIfAbsent(key, k -> registry.meter(REQUESTS_PER_SEC + k.name)).mark();
    }
}
