package io.tideline.node.server;

import com.google.protobuf.MessageLite;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounds the bytes of requests the gRPC listener holds between receiving them and having handled them
 * ({@code queued.max.request.bytes}, Kafka's key and meaning; the Kafka listener has a pool of its own, so that
 * neither listener's clients can starve the other's, replication included: docs/behaviours.md B112): past the
 * bound, the listener stops taking new requests off its connections until handled ones free room, so load turns
 * into back-pressure on the clients (their HTTP/2 flow-control windows fill and their sends wait) rather than into heap.
 *
 * <p>How: gRPC reads a call's message only once the server asks for it ({@link ServerCall#request}). This
 * interceptor holds those asks while the pool is full and releases them, oldest first, as room frees. A
 * message is charged its serialized size from delivery until its handler returned (for a unary call: the
 * produce appended, the fetch parked or answered; parked requests hold no request bytes, as in Kafka).
 * Until then gRPC keeps at most one flow-control window of a not-yet-read message per connection.
 *
 * <p>A message's size is known only once it is read, so each call let through reserves the mean size of
 * recent requests until its message arrives; the pool can be passed by the difference between the
 * actual and the reserved sizes of the calls let through together (at most one request each), never by
 * a flood of calls. Anything let through while the pool is empty always passes, so a request larger than
 * the whole pool still gets through (on its own).
 *
 * <p>Thread-safe: the accounting is under this object's monitor; asks are released outside it, since a
 * direct-executor transport may deliver the message on the releasing thread.
 */
public final class RequestMemoryPool implements ServerInterceptor {
    /** Starting guess of a request's size, before any was seen: a small produce. */
    private static final long INITIAL_ESTIMATE = 16 * 1024;
    /** Floor of the estimate, so that a run of tiny requests (metadata) cannot make it nothing. */
    private static final long MIN_ESTIMATE = 1024;

    private final long capacity;
    /** Bytes of delivered requests whose handler has not returned. Guarded by this. */
    private long used;
    /** Estimates held by calls let through whose message has not arrived yet. Guarded by this. */
    private long reserved;
    /** Mean of recent request sizes (exponentially weighted). Guarded by this. */
    private long estimate = INITIAL_ESTIMATE;
    /** Asks held back while the pool is full, in arrival order. Guarded by this. */
    private final ArrayDeque<Admission> waiting = new ArrayDeque<>();
    private final AtomicLong heldBack = new AtomicLong();

    public RequestMemoryPool(long capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
    }

    public long capacity() {
        return capacity;
    }

    /** Bytes of requests received and not yet handled (Kafka's MemoryPoolUsed). */
    public synchronized long used() {
        return used;
    }

    /** What is left before new requests wait (Kafka's MemoryPoolAvailable); negative when passed. */
    public synchronized long available() {
        return capacity - used - reserved;
    }

    /** Calls whose request had to wait for room, since start. */
    public long heldBackCount() {
        return heldBack.get();
    }

    /** Calls waiting for room now. */
    public synchronized int waitingCount() {
        return waiting.size();
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
                                                                 ServerCallHandler<ReqT, RespT> next) {
        Admission admission = new Admission();
        boolean unary = call.getMethodDescriptor().getType() == MethodType.UNARY;
        ServerCall<ReqT, RespT> gated = new SimpleForwardingServerCall<>(call) {
            @Override
            public void request(int numMessages) {
                admission.asked(() -> super.request(numMessages));
            }
        };
        ServerCall.Listener<ReqT> listener = next.startCall(gated, headers);
        return new SimpleForwardingServerCallListener<>(listener) {
            @Override
            public void onMessage(ReqT message) {
                admission.arrived(message instanceof MessageLite m ? m.getSerializedSize() : 0);
                try {
                    super.onMessage(message);
                } finally {
                    if (!unary) {
                        // A streaming handler works on each message as it arrives.
                        admission.handled();
                    }
                }
            }

            @Override
            public void onHalfClose() {
                try {
                    super.onHalfClose();
                } finally {
                    // A unary handler runs here: its request is handled once it returns.
                    admission.handled();
                }
            }

            @Override
            public void onCancel() {
                try {
                    super.onCancel();
                } finally {
                    admission.finished();
                }
            }

            @Override
            public void onComplete() {
                try {
                    super.onComplete();
                } finally {
                    admission.finished();
                }
            }
        };
    }

    /** One call's standing with the pool. Its methods run on the call's serialized executor. */
    private final class Admission {
        private Runnable pendingAsk;
        /** The estimate this call reserved when let through; 0 when it holds no reservation. */
        private long reservation;
        /** Bytes charged for its delivered message, until handled. */
        private long charged;
        private boolean finished;

        void asked(Runnable ask) {
            List<Runnable> release;
            synchronized (RequestMemoryPool.this) {
                if (finished) {
                    return;
                }
                if (reservation > 0 || pendingAsk != null) {
                    // Already let through (a unary handler asks for two messages to catch a second one).
                    release = List.of(ask);
                } else if (used + reserved < capacity && waiting.isEmpty()) {
                    admit();
                    release = List.of(ask);
                } else {
                    pendingAsk = ask;
                    waiting.add(this);
                    heldBack.incrementAndGet();
                    release = List.of();
                }
            }
            release.forEach(Runnable::run);
        }

        /** Under the pool's monitor. */
        void admit() {
            reservation = estimate;
            reserved += reservation;
        }

        void arrived(long size) {
            List<Runnable> release;
            synchronized (RequestMemoryPool.this) {
                reserved -= reservation;
                reservation = 0;
                charged += size;
                used += size;
                estimate = Math.max(MIN_ESTIMATE, (estimate * 7 + size) / 8);
                // A message smaller than its reservation frees room.
                release = admitWaiting();
            }
            release.forEach(Runnable::run);
        }

        void handled() {
            List<Runnable> release;
            synchronized (RequestMemoryPool.this) {
                used -= charged;
                charged = 0;
                release = admitWaiting();
            }
            release.forEach(Runnable::run);
        }

        void finished() {
            List<Runnable> release;
            synchronized (RequestMemoryPool.this) {
                if (finished) {
                    return;
                }
                finished = true;
                used -= charged;
                charged = 0;
                reserved -= reservation;
                reservation = 0;
                if (pendingAsk != null) {
                    waiting.remove(this);
                    pendingAsk = null;
                }
                release = admitWaiting();
            }
            release.forEach(Runnable::run);
        }
    }

    /** Lets waiting calls through while there is room; returns their asks to run outside the monitor. */
    private List<Runnable> admitWaiting() {
        List<Runnable> release = new ArrayList<>();
        while (!waiting.isEmpty() && used + reserved < capacity) {
            Admission next = waiting.poll();
            next.admit();
            release.add(next.pendingAsk);
            next.pendingAsk = null;
        }
        return release;
    }
}
