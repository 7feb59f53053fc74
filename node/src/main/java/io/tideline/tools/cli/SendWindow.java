package io.tideline.tools.cli;

import java.util.concurrent.Semaphore;

/**
 * At most {@code limit} bytes of records sent and not yet answered. Kafka's producer blocks
 * {@code send()} once buffer.memory bytes wait in it, which is what bounds Kafka's perf tool at an
 * unbounded rate (and makes its latency the time a record spends in that buffer plus the round trip).
 * {@code perf produce} keeps the same bound itself, with the producer's buffer.memory setting (default
 * Kafka's 32 MiB), so that both tools queue about as much, and so that an unthrottled run cannot grow
 * the tool's heap with every record the cluster has not answered yet. It also tells when every record
 * sent has its answer ({@link #awaitEmpty}).
 *
 * <p>Thread-safe: the sending thread acquires, the producer's thread releases.
 */
final class SendWindow {
    private final Semaphore free;
    private final int limit;

    SendWindow(int limit) {
        this.limit = limit;
        this.free = new Semaphore(limit);
    }

    /** Blocks until {@code bytes} more fit (a record larger than the window waits for it to be empty). */
    void acquire(int bytes) {
        free.acquireUninterruptibly(clamp(bytes));
    }

    void release(int bytes) {
        free.release(clamp(bytes));
    }

    /** Blocks until every acquired byte was released: every record sent has been answered. */
    void awaitEmpty() {
        free.acquireUninterruptibly(limit);
        free.release(limit);
    }

    private int clamp(int bytes) {
        return Math.max(1, Math.min(bytes, limit));
    }
}
