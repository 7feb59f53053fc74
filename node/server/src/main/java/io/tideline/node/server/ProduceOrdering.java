package io.tideline.node.server;

import io.grpc.Attributes;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.ServerTransportFilter;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Produce calls of one client connection are handled one at a time, in the order gRPC delivers them; every other
 * call runs on the request handler pool.
 *
 * <p>Why: the idempotent producer keeps up to max.in.flight.requests.per.connection Produce requests of a
 * partition in flight, in sequence order, and the leader refuses a batch whose sequence does not follow the
 * last one it wrote (OUT_OF_ORDER_SEQUENCE_NUMBER; the producer then retries it). gRPC hands each call to the
 * pool on its own, so pipelined calls would reach the append in any order: without this ordering, `tideline perf
 * produce` (five in flight, one partition, acks=all) has a quarter of its Produce requests refused and retried, and
 * the rate falls from 16,600 to 1,100 records/s (docs/performance.md). Kafka's broker keeps the order by reading a
 * connection's next request only after answering the last. Here only the handler's own work (checks and the
 * append) is serialized, not the answer, which for acks=all waits for the followers.
 *
 * <p>How: the server's default executor is direct, so gRPC looks each call's method up on the connection's
 * transport thread, and this supplier then moves the call to its executor: for Produce, the connection's own
 * {@link Ordered} executor (which {@link #transportReady} attached to the connection's attributes), for anything
 * else the pool. A call's handler runs when its request has been delivered, and gRPC delivers the requests of
 * one connection nearly always, not always, in the order sent (ProduceOrderingTest saw a few of 500 pipelined
 * calls swap places): about one Produce request in a hundred is still refused as overtaking and retried.
 */
final class ProduceOrdering extends ServerTransportFilter implements ServerCallExecutorSupplier {
    private static final Attributes.Key<Executor> PRODUCE_EXECUTOR = Attributes.Key.create("tideline.produce-executor");

    private final String orderedMethod;
    private final Executor pool;

    /** @param orderedMethod the full name of the method whose calls keep their order per connection */
    ProduceOrdering(MethodDescriptor<?, ?> orderedMethod, Executor pool) {
        this.orderedMethod = orderedMethod.getFullMethodName();
        this.pool = Objects.requireNonNull(pool, "pool");
    }

    @Override
    public Attributes transportReady(Attributes transportAttrs) {
        return transportAttrs.toBuilder().set(PRODUCE_EXECUTOR, new Ordered(pool)).build();
    }

    @Override
    public <ReqT, RespT> Executor getExecutor(ServerCall<ReqT, RespT> call, Metadata metadata) {
        if (orderedMethod.equals(call.getMethodDescriptor().getFullMethodName())) {
            Executor ordered = call.getAttributes().get(PRODUCE_EXECUTOR);
            if (ordered != null) {
                return ordered;
            }
        }
        return pool;
    }

    /**
     * Runs its tasks one at a time, in submission order, on the pool: a queue and a flag, drained by one pool
     * thread at a time. Holds only what was submitted and not yet run.
     */
    static final class Ordered implements Executor {
        private static final Logger log = LoggerFactory.getLogger(Ordered.class);

        private final Executor pool;
        private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean draining = new AtomicBoolean();

        Ordered(Executor pool) {
            this.pool = pool;
        }

        @Override
        public void execute(Runnable task) {
            tasks.add(Objects.requireNonNull(task, "task"));
            schedule();
        }

        private void schedule() {
            if (draining.compareAndSet(false, true)) {
                try {
                    pool.execute(this::drain);
                } catch (RuntimeException e) {
                    // The pool is shutting down: nothing will run these any more.
                    draining.set(false);
                    throw e;
                }
            }
        }

        private void drain() {
            try {
                Runnable task;
                while ((task = tasks.poll()) != null) {
                    try {
                        task.run();
                    } catch (RuntimeException e) {
                        log.error("A produce task failed; the connection's next ones run on", e);
                    }
                }
            } finally {
                draining.set(false);
            }
            if (!tasks.isEmpty()) {
                // Added after the last poll and before the flag was cleared: that submitter saw it set.
                schedule();
            }
        }
    }
}
