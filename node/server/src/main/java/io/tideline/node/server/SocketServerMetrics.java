package io.tideline.node.server;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;

/**
 * The listener's request memory under Kafka's names: {@code kafka.network:type=SocketServer,name=
 * MemoryPoolAvailable|MemoryPoolUsed} (bytes, of {@code queued.max.request.bytes}), and ours,
 * {@code RequestsHeldForMemory} (calls that had to wait for room, since start) and
 * {@code RequestsWaitingForMemory} (waiting now).
 */
final class SocketServerMetrics {
    static final String PREFIX = "kafka.network:type=SocketServer,name=";

    private SocketServerMetrics() {
    }

    static void register(MetricRegistry registry, RequestMemoryPool pool) {
        registry.register(PREFIX + "MemoryPoolAvailable", (Gauge<Long>) pool::available);
        registry.register(PREFIX + "MemoryPoolUsed", (Gauge<Long>) pool::used);
        registry.register(PREFIX + "RequestsHeldForMemory", (Gauge<Long>) pool::heldBackCount);
        registry.register(PREFIX + "RequestsWaitingForMemory", (Gauge<Integer>) pool::waitingCount);
    }
}
