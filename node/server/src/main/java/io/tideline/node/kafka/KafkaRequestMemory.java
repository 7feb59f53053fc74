package io.tideline.node.kafka;

/**
 * The node's bound on request bytes held ({@code queued.max.request.bytes}), as the Kafka listener uses it: the
 * node hands in its request memory pool, the one the gRPC listener uses, so the bound is per node.
 */
public interface KafkaRequestMemory {

    /** Charges {@code bytes}, then runs {@code proceed}: now when there is room, else once there is (any thread). */
    void acquire(long bytes, Runnable proceed);

    /** Gives back bytes {@link #acquire} charged. */
    void release(long bytes);
}
