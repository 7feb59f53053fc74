package io.tideline.node.kafka;

/**
 * The Kafka listener's bound on request bytes held ({@code queued.max.request.bytes}); a connection charges a
 * frame's bytes as they arrive, in steps, and names itself as the owner of the frame it is receiving.
 */
public interface KafkaRequestMemory {

    /**
     * Charges {@code bytes} of the frame {@code owner} is receiving, then runs {@code proceed}: now when there is
     * room, else once there is (any thread).
     */
    void acquire(Object owner, long bytes, Runnable proceed);

    /**
     * {@code owner}'s frame is whole, or will never be: its charge no longer counts as a frame still arriving, and
     * a charge of its still waiting is dropped (its {@code proceed} never runs). The charge itself stays until
     * {@link #release}d.
     */
    void frameEnded(Object owner);

    /** Gives back bytes {@link #acquire} charged. */
    void release(long bytes);
}
