package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.tideline.node.testutil.RawGrpc;
import io.tideline.proto.client.ClientServiceGrpc;
import io.tideline.proto.client.MetadataRequest;
import io.tideline.proto.client.MetadataResponse;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.proto.replication.ReplicaFetchRequest;
import io.tideline.proto.replication.ReplicaFetchResponse;
import io.tideline.proto.replication.ReplicaFetchServiceGrpc;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bytes that are not a gRPC method's request message end the call with INVALID_ARGUMENT before any handler runs,
 * without grpc-java's SEVERE stack trace (docs/behaviours.md B164); a real message is served normally.
 */
class TypedRequestParsingTest {
    /** A field 1 of wire type 7, which no protobuf message can hold. */
    private static final byte[] NOT_A_MESSAGE = {0x0F, 0x01, 0x02, 0x03};

    @TempDir
    Path dir;

    private final List<LogRecord> severe = new ArrayList<>();
    private final Handler severeRecords = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.SEVERE.intValue()) {
                synchronized (severe) {
                    severe.add(record);
                }
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Logger grpcLogger = Logger.getLogger("io.grpc");
    private Server server;
    private ManagedChannel channel;

    @BeforeEach
    void listenToGrpcsLog() {
        grpcLogger.addHandler(severeRecords);
    }

    @AfterEach
    void close() throws InterruptedException {
        grpcLogger.removeHandler(severeRecords);
        if (channel != null) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private void serve(io.grpc.BindableService service) throws Exception {
        String name = InProcessServerBuilder.generateName();
        server = InProcessServerBuilder.forName(name).directExecutor()
                .addService(TypedRequestParsing.of(service)).build().start();
        channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    }

    @Test
    void aUnaryCallOfBytesThatAreNotItsMessageIsInvalidArgumentAndReachesNoHandler() throws Exception {
        AtomicInteger handled = new AtomicInteger();
        serve(new ClientServiceGrpc.ClientServiceImplBase() {
            @Override
            public void metadata(MetadataRequest request, StreamObserver<MetadataResponse> observer) {
                handled.incrementAndGet();
                observer.onNext(MetadataResponse.newBuilder().setClusterId("c").build());
                observer.onCompleted();
            }
        });
        MethodDescriptor<byte[], byte[]> metadata = RawGrpc.asBytes(ClientServiceGrpc.getMetadataMethod());

        StatusRuntimeException refused = assertThrows(StatusRuntimeException.class,
                () -> ClientCalls.blockingUnaryCall(channel, metadata, CallOptions.DEFAULT, NOT_A_MESSAGE));
        assertEquals(Status.Code.INVALID_ARGUMENT, refused.getStatus().getCode(), refused.toString());
        assertTrue(refused.getStatus().getDescription().contains("tideline.client.ClientService/Metadata"),
                refused.getStatus().getDescription());
        assertEquals(0, handled.get(), "no handler ran");

        byte[] answer = ClientCalls.blockingUnaryCall(channel, metadata, CallOptions.DEFAULT,
                MetadataRequest.newBuilder().addTopics("t").build().toByteArray());
        assertEquals("c", MetadataResponse.parseFrom(answer).getClusterId());
        assertEquals(1, handled.get());
        // A method not overridden answers UNIMPLEMENTED as ever: the rebinding keeps every method.
        StatusRuntimeException unimplemented = assertThrows(StatusRuntimeException.class,
                () -> ClientServiceGrpc.newBlockingStub(channel).produce(ProduceRequest.getDefaultInstance()));
        assertEquals(Status.Code.UNIMPLEMENTED, unimplemented.getStatus().getCode());
        synchronized (severe) {
            assertEquals(List.of(), severe.stream().map(LogRecord::getMessage).toList(), "grpc-java logged SEVERE");
        }
    }

    @Test
    void onAStreamTheFirstUnparsableRequestEndsItAndLaterAnswersAreDropped() throws Exception {
        CompletableFuture<StreamObserver<ReplicaFetchResponse>> handlerSide = new CompletableFuture<>();
        List<ReplicaFetchRequest> received = new ArrayList<>();
        AtomicReference<Throwable> handlerWriteFailed = new AtomicReference<>();
        serve(new ReplicaFetchServiceGrpc.ReplicaFetchServiceImplBase() {
            @Override
            public StreamObserver<ReplicaFetchRequest> fetchStream(StreamObserver<ReplicaFetchResponse> observer) {
                handlerSide.complete(observer);
                return new StreamObserver<>() {
                    @Override
                    public void onNext(ReplicaFetchRequest request) {
                        received.add(request);
                        observer.onNext(ReplicaFetchResponse.newBuilder().setCorrelationId(request.getCorrelationId())
                                .build());
                    }

                    @Override
                    public void onError(Throwable t) {
                    }

                    @Override
                    public void onCompleted() {
                        observer.onCompleted();
                    }
                };
            }
        });
        List<byte[]> answers = new ArrayList<>();
        CountDownLatch ended = new CountDownLatch(1);
        AtomicReference<Status> end = new AtomicReference<>();
        StreamObserver<byte[]> requests = ClientCalls.asyncBidiStreamingCall(
                channel.newCall(RawGrpc.asBytes(ReplicaFetchServiceGrpc.getFetchStreamMethod()), CallOptions.DEFAULT),
                new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] value) {
                        answers.add(value);
                    }

                    @Override
                    public void onError(Throwable t) {
                        end.set(Status.fromThrowable(t));
                        ended.countDown();
                    }

                    @Override
                    public void onCompleted() {
                        end.set(Status.OK);
                        ended.countDown();
                    }
                });
        requests.onNext(ReplicaFetchRequest.newBuilder().setCorrelationId(7).build().toByteArray());
        requests.onNext(NOT_A_MESSAGE);
        assertTrue(ended.await(10, TimeUnit.SECONDS), "the stream ended");
        assertEquals(Status.Code.INVALID_ARGUMENT, end.get().getCode(), end.get().toString());
        assertEquals(1, received.size(), "the handler saw the request before the unparsable one, and no other");
        assertEquals(1, answers.size());
        assertEquals(7, ReplicaFetchResponse.parseFrom(answers.get(0)).getCorrelationId());

        // An answer the handler still had on its way, as a parked fetch does, goes nowhere and fails nothing.
        StreamObserver<ReplicaFetchResponse> late = handlerSide.get(5, TimeUnit.SECONDS);
        try {
            late.onNext(ReplicaFetchResponse.newBuilder().setCorrelationId(8).build());
            late.onCompleted();
        } catch (RuntimeException e) {
            handlerWriteFailed.set(e);
        }
        assertEquals(null, handlerWriteFailed.get());
        assertEquals(1, answers.size());
        synchronized (severe) {
            assertEquals(List.of(), severe.stream().map(LogRecord::getMessage).toList(), "grpc-java logged SEVERE");
        }
    }

    /** The node serves every gRPC service this way: its own, health and reflection. */
    @Test
    void aNodeAnswersUnparsableBytesOnEachOfItsServicesWithInvalidArgument() throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 1, Map.of()).startAll()) {
            ManagedChannel toNode = NettyChannelBuilder.forAddress("127.0.0.1", cluster.clientPort(1)).usePlaintext()
                    .build();
            try {
                for (MethodDescriptor<?, ?> method : List.of(ClientServiceGrpc.getProduceMethod(),
                        io.tideline.proto.admin.AdminServiceGrpc.getCreateTopicsMethod(),
                        ReplicaFetchServiceGrpc.getFetchMethod(), io.grpc.health.v1.HealthGrpc.getCheckMethod())) {
                    StatusRuntimeException refused = assertThrows(StatusRuntimeException.class,
                            () -> ClientCalls.blockingUnaryCall(toNode, RawGrpc.asBytes(method),
                                    CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), NOT_A_MESSAGE));
                    assertEquals(Status.Code.INVALID_ARGUMENT, refused.getStatus().getCode(),
                            method.getFullMethodName() + ": " + refused);
                }
                assertTrue(cluster.node(1).isHealthy(), "the node still serves");
                assertFalse(cluster.node(1).image().topics().containsKey(""), "nothing was created");
            } finally {
                toNode.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
            synchronized (severe) {
                assertEquals(List.of(), severe.stream().map(LogRecord::getMessage).toList(), "grpc-java logged SEVERE");
            }
        }
    }
}
