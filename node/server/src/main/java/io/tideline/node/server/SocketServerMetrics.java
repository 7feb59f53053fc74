package io.tideline.node.server;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.tideline.node.kafka.KafkaRequestMemoryPool;

/**
 * The listeners' request memory. The Kafka listener's pool under Kafka's names, as Kafka's SocketServer reports
 * its own: {@code kafka.network:type=SocketServer,name=MemoryPoolAvailable|MemoryPoolUsed} (bytes, of
 * {@code queued.max.request.bytes}), with ours beside them, {@code RequestsHeldForMemory} (charges that had to wait
 * for room, since start), {@code RequestsWaitingForMemory} (waiting now) and {@code MemoryPoolOverdrafts} (frames let
 * past the bound to break a standstill, docs/behaviours.md B110). The gRPC listener's pool under the same names in
 * {@code tideline.grpc:type=RequestMemory}.
 */
final class SocketServerMetrics {
    static final String PREFIX = "kafka.network:type=SocketServer,name=";
    static final String GRPC_PREFIX = "tideline.grpc:type=RequestMemory,name=";

    private SocketServerMetrics() {
    }

    static void register(MetricRegistry registry, KafkaRequestMemoryPool kafka, RequestMemoryPool grpc) {
        registry.register(PREFIX + "MemoryPoolAvailable", (Gauge<Long>) kafka::available);
        registry.register(PREFIX + "MemoryPoolUsed", (Gauge<Long>) kafka::used);
        registry.register(PREFIX + "RequestsHeldForMemory", (Gauge<Long>) kafka::heldBackCount);
        registry.register(PREFIX + "RequestsWaitingForMemory", (Gauge<Integer>) kafka::waitingCount);
        registry.register(PREFIX + "MemoryPoolOverdrafts", (Gauge<Long>) kafka::overdraftCount);
        registry.register(GRPC_PREFIX + "MemoryPoolAvailable", (Gauge<Long>) grpc::available);
        registry.register(GRPC_PREFIX + "MemoryPoolUsed", (Gauge<Long>) grpc::used);
        registry.register(GRPC_PREFIX + "RequestsHeldForMemory", (Gauge<Long>) grpc::heldBackCount);
        registry.register(GRPC_PREFIX + "RequestsWaitingForMemory", (Gauge<Integer>) grpc::waitingCount);
    }
}
