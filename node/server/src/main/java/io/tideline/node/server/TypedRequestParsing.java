package io.tideline.node.server;

import io.grpc.BindableService;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a gRPC service so that a request whose bytes are not its method's message ends with INVALID_ARGUMENT
 * before any handler runs (docs/behaviours.md B164).
 *
 * <p>grpc-java parses a request with the method's marshaller before the first interceptor sees it, and answers
 * a marshaller that throws with UNKNOWN ("Application error processing RPC"), logging a SEVERE stack trace per
 * call: one client could fill the node's log and gets an untyped error. Here every method is bound again, under
 * its own name and schema (which the reflection service reads), with a marshaller that hands on {@code null}
 * for bytes that do not parse; the call's listener then refuses the call instead of passing the request on.
 *
 * <p>A refused call's handler never sees a request. For a client-streaming or bidirectional method it may already
 * be answering earlier requests on other threads, so its writes to the call and the refusal go through one
 * lock, and nothing it writes after the refusal is sent.
 */
public final class TypedRequestParsing {
    private static final Logger log = LoggerFactory.getLogger(TypedRequestParsing.class);

    private TypedRequestParsing() {
    }

    public static ServerServiceDefinition of(BindableService service) {
        return of(service.bindService());
    }

    public static ServerServiceDefinition of(ServerServiceDefinition service) {
        ServiceDescriptor original = service.getServiceDescriptor();
        List<ServerMethodDefinition<?, ?>> methods = new ArrayList<>();
        ServiceDescriptor.Builder descriptor = ServiceDescriptor.newBuilder(original.getName())
                .setSchemaDescriptor(original.getSchemaDescriptor());
        for (ServerMethodDefinition<?, ?> m : service.getMethods()) {
            ServerMethodDefinition<?, ?> rebound = rebind(m);
            descriptor.addMethod(rebound.getMethodDescriptor());
            methods.add(rebound);
        }
        ServerServiceDefinition.Builder out = ServerServiceDefinition.builder(descriptor.build());
        methods.forEach(out::addMethod);
        return out.build();
    }

    private static <Q, R> ServerMethodDefinition<Q, R> rebind(ServerMethodDefinition<Q, R> method) {
        MethodDescriptor<Q, R> typed = method.getMethodDescriptor();
        MethodDescriptor<Q, R> lenient = typed.toBuilder()
                .setRequestMarshaller(new NullWhenUnparsable<>(typed.getRequestMarshaller(), typed.getFullMethodName()))
                .build();
        return ServerMethodDefinition.create(lenient, new RefusingHandler<>(method.getServerCallHandler(),
                typed.getType().clientSendsOneMessage()));
    }

    /** The method's own marshaller, but bytes it cannot parse become {@code null} instead of an exception. */
    private static final class NullWhenUnparsable<T> implements MethodDescriptor.Marshaller<T> {
        private final MethodDescriptor.Marshaller<T> delegate;
        private final String method;

        NullWhenUnparsable(MethodDescriptor.Marshaller<T> delegate, String method) {
            this.delegate = delegate;
            this.method = method;
        }

        @Override
        public InputStream stream(T value) {
            return delegate.stream(value);
        }

        @Override
        public T parse(InputStream stream) {
            try {
                return delegate.parse(stream);
            } catch (RuntimeException e) {
                log.debug("A request to {} is not its message: {}", method, e.toString());
                return null;
            }
        }
    }

    private static final class RefusingHandler<Q, R> implements ServerCallHandler<Q, R> {
        private final ServerCallHandler<Q, R> next;
        private final boolean oneRequest;

        RefusingHandler(ServerCallHandler<Q, R> next, boolean oneRequest) {
            this.next = next;
            this.oneRequest = oneRequest;
        }

        @Override
        public ServerCall.Listener<Q> startCall(ServerCall<Q, R> call, Metadata headers) {
            // With one request, the handler starts only once it has arrived, so nothing else writes to the call
            // when it is refused; with a stream of them, earlier requests may be answered meanwhile.
            ClosableOnce<Q, R> guarded = oneRequest ? null : new ClosableOnce<>(call);
            ServerCall.Listener<Q> handler = next.startCall(guarded == null ? call : guarded, headers);
            String type = call.getMethodDescriptor().getFullMethodName();
            return new SimpleForwardingServerCallListener<>(handler) {
                /** Listener callbacks are serialized by gRPC. */
                private boolean refused;

                @Override
                public void onMessage(Q message) {
                    if (refused) {
                        return;
                    }
                    if (message == null) {
                        refused = true;
                        Status status = Status.INVALID_ARGUMENT.withDescription(
                                "the request is not a valid message of " + type);
                        if (guarded == null) {
                            call.close(status, new Metadata());
                        } else {
                            guarded.refuse(status);
                        }
                        return;
                    }
                    super.onMessage(message);
                }

                @Override
                public void onHalfClose() {
                    if (!refused) {
                        super.onHalfClose();
                    }
                }

                @Override
                public void onReady() {
                    if (!refused) {
                        super.onReady();
                    }
                }
            };
        }
    }

    /** A call whose answers and whose refusal take one lock; after either closes it, writes are dropped. */
    private static final class ClosableOnce<Q, R> extends SimpleForwardingServerCall<Q, R> {
        private boolean closed;

        ClosableOnce(ServerCall<Q, R> call) {
            super(call);
        }

        synchronized void refuse(Status status) {
            if (!closed) {
                closed = true;
                super.close(status, new Metadata());
            }
        }

        @Override
        public synchronized void sendHeaders(Metadata headers) {
            if (!closed) {
                super.sendHeaders(headers);
            }
        }

        @Override
        public synchronized void sendMessage(R message) {
            if (!closed) {
                super.sendMessage(message);
            }
        }

        @Override
        public synchronized void close(Status status, Metadata trailers) {
            if (!closed) {
                closed = true;
                super.close(status, trailers);
            }
        }
    }
}
