package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.tideline.proto.client.ClientServiceGrpc;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.proto.client.ProduceResponse;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * queued.max.request.bytes over a real Netty listener: requests past the pool wait, unread, until handled
 * ones free room, and none is lost or refused; nothing stays charged once the calls are over.
 */
class RequestMemoryPoolTest {
    private static final int REQUEST_BYTES = 4096;
    private static final long CAPACITY = 3 * REQUEST_BYTES;

    private final RequestMemoryPool pool = new RequestMemoryPool(CAPACITY);
    private final ExecutorService handlers = Executors.newCachedThreadPool();
    private final AtomicInteger inHandler = new AtomicInteger();
    private final AtomicInteger maxInHandler = new AtomicInteger();
    private final AtomicLong maxUsed = new AtomicLong();
    /** A handler parks here until the test lets it return. */
    private final BlockingQueue<CompletableFuture<Void>> parked = new LinkedBlockingQueue<>();
    private final List<Integer> handledOrder = java.util.Collections.synchronizedList(new ArrayList<>());
    private Server server;
    private ManagedChannel channel;

    private void start() throws Exception {
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).executor(handlers)
                .intercept(pool)
                .addService(new ClientServiceGrpc.ClientServiceImplBase() {
                    @Override
                    public void produce(ProduceRequest request, StreamObserver<ProduceResponse> observer) {
                        maxInHandler.accumulateAndGet(inHandler.incrementAndGet(), Math::max);
                        maxUsed.accumulateAndGet(pool.used(), Math::max);
                        handledOrder.add(request.getTimeoutMs());
                        CompletableFuture<Void> release = new CompletableFuture<>();
                        parked.add(release);
                        release.join();
                        inHandler.decrementAndGet();
                        observer.onNext(ProduceResponse.getDefaultInstance());
                        observer.onCompleted();
                    }
                }).build().start();
        int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
        channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    }

    @AfterEach
    void stop() throws Exception {
        parked.forEach(f -> f.complete(null));
        if (channel != null) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        handlers.shutdownNow();
    }

    private static ProduceRequest request(int id) {
        return ProduceRequest.newBuilder().setTimeoutMs(id).setAcks(1).addPartitions(ProducePartition.newBuilder()
                .setTopic("t").setRecords(ByteString.copyFrom(new byte[REQUEST_BYTES]))).build();
    }

    @Test
    void requestsPastThePoolWaitUnreadUntilHandledOnesFreeRoom() throws Exception {
        start();
        ClientServiceGrpc.ClientServiceFutureStub stub = ClientServiceGrpc.newFutureStub(channel);
        List<com.google.common.util.concurrent.ListenableFuture<ProduceResponse>> calls = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            calls.add(stub.produce(request(i)));
        }
        // The pool takes about three requests; the fourth may pass on the estimate of a request's size.
        // Settled: every call is either in its (blocked) handler or waiting for room.
        Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> pool.waitingCount() >= 16 && inHandler.get() + pool.waitingCount() == 20);
        int entered = inHandler.get();
        assertTrue(entered >= 3 && entered <= 4, "handlers entered: " + entered);
        assertTrue(pool.used() <= CAPACITY + REQUEST_BYTES + 64, "used " + pool.used());
        assertTrue(pool.heldBackCount() >= 16);

        // Each handled request lets the next ones in; all twenty are answered.
        for (int answered = 0; answered < 20; answered++) {
            CompletableFuture<Void> next = parked.poll(10, TimeUnit.SECONDS);
            assertTrue(next != null, "a request reached its handler after " + answered + " answers");
            next.complete(null);
        }
        for (var call : calls) {
            call.get(10, TimeUnit.SECONDS);
        }
        assertTrue(maxInHandler.get() <= 4, "at most the pool's worth at once: " + maxInHandler.get());
        assertTrue(maxUsed.get() <= CAPACITY + REQUEST_BYTES + 64, "max used " + maxUsed.get());
        assertEquals(20, handledOrder.stream().distinct().count(), "every request handled once");
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> pool.used() == 0 && pool.available() == CAPACITY);
    }

    @Test
    void aWaitingCallThatIsCancelledLeavesTheQueueAndHoldsNothing() throws Exception {
        start();
        ClientServiceGrpc.ClientServiceFutureStub stub = ClientServiceGrpc.newFutureStub(channel);
        List<com.google.common.util.concurrent.ListenableFuture<ProduceResponse>> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            held.add(stub.produce(request(i)));
        }
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> inHandler.get() + pool.waitingCount() == 4);
        var doomed = stub.withDeadlineAfter(300, TimeUnit.MILLISECONDS).produce(request(99));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> pool.waitingCount() >= 1 + (4 - inHandler.get()));
        try {
            doomed.get(10, TimeUnit.SECONDS);
            throw new AssertionError("the call should have passed its deadline while waiting");
        } catch (java.util.concurrent.ExecutionException e) {
            assertEquals(Status.Code.DEADLINE_EXCEEDED, ((StatusRuntimeException) e.getCause()).getStatus().getCode());
        }
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> pool.waitingCount() == 4 - inHandler.get());
        for (int i = 0; i < 4; i++) {
            parked.poll(10, TimeUnit.SECONDS).complete(null);
        }
        for (var call : held) {
            call.get(10, TimeUnit.SECONDS);
        }
        assertTrue(!handledOrder.contains(99), "the cancelled request never reached its handler");
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> pool.used() == 0 && pool.available() == CAPACITY
                && pool.waitingCount() == 0);
    }
}
