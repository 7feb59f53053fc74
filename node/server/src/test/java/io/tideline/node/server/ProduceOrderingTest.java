package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.tideline.proto.client.ClientServiceGrpc;
import io.tideline.proto.client.MetadataRequest;
import io.tideline.proto.client.MetadataResponse;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.proto.client.ProduceResponse;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A connection's Produce calls run their handler one at a time, in the order gRPC delivers them (ProduceOrdering);
 * other calls and other connections run on the pool side by side. (gRPC's delivery order is nearly, not always, the
 * order sent: the idempotent producer still retries a batch that overtook the one before it.)
 */
class ProduceOrderingTest {
    private static final int CALLS = 500;

    private final ExecutorService pool = Executors.newFixedThreadPool(8);
    private final List<Integer> handled = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger inProduce = new AtomicInteger();
    private final AtomicInteger maxInProduce = new AtomicInteger();
    private volatile CountDownLatch metadataGate = new CountDownLatch(0);
    /** The Produce call with id {@link #GATED} waits here in its handler. */
    private volatile CountDownLatch produceGate = new CountDownLatch(0);
    private static final int GATED = -7;
    private final List<ManagedChannel> channels = new ArrayList<>();
    private Server server;

    @AfterEach
    void stop() throws Exception {
        metadataGate.countDown();
        produceGate.countDown();
        for (ManagedChannel c : channels) {
            c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        pool.shutdownNow();
    }

    @Test
    void pipelinedProduceCallsOfOneConnectionAreHandledOneAtATime() throws Exception {
        ClientServiceGrpc.ClientServiceFutureStub stub = ClientServiceGrpc.newFutureStub(channel(start()));
        List<com.google.common.util.concurrent.ListenableFuture<ProduceResponse>> calls = new ArrayList<>();
        for (int i = 0; i < CALLS; i++) {
            calls.add(stub.produce(request(i)));
        }
        for (var call : calls) {
            call.get(30, TimeUnit.SECONDS);
        }
        assertEquals(IntStream.range(0, CALLS).boxed().toList(), handled.stream().sorted().toList(), "each handled once");
        assertEquals(1, maxInProduce.get(), "one Produce handler of the connection at a time");
    }

    @Test
    void anotherCallWaitingInItsHandlerDoesNotHoldProduceBack() throws Exception {
        int port = start();
        metadataGate = new CountDownLatch(1);
        ClientServiceGrpc.ClientServiceFutureStub stub = ClientServiceGrpc.newFutureStub(channel(port));
        var blocked = stub.metadata(MetadataRequest.getDefaultInstance());
        stub.produce(request(0)).get(30, TimeUnit.SECONDS);
        assertTrue(!blocked.isDone(), "the Metadata call still waits in its handler, on the pool");
        metadataGate.countDown();
        blocked.get(30, TimeUnit.SECONDS);
    }

    @Test
    void aProduceWaitingInItsHandlerHoldsBackItsOwnConnectionOnly() throws Exception {
        int port = start();
        produceGate = new CountDownLatch(1);
        ClientServiceGrpc.ClientServiceFutureStub first = ClientServiceGrpc.newFutureStub(channel(port));
        ClientServiceGrpc.ClientServiceFutureStub second = ClientServiceGrpc.newFutureStub(channel(port));
        var blocked = first.produce(request(GATED));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> handled.contains(GATED));
        var behind = first.produce(request(1));
        second.produce(request(2)).get(30, TimeUnit.SECONDS);
        assertTrue(!blocked.isDone() && !behind.isDone(), "the first connection's second call waits for its first");
        assertEquals(List.of(GATED, 2), handled, "the second connection's call ran beside the waiting one");
        produceGate.countDown();
        behind.get(30, TimeUnit.SECONDS);
        assertEquals(List.of(GATED, 2, 1), handled);
    }

    private int start() throws Exception {
        ProduceOrdering ordering = new ProduceOrdering(ClientServiceGrpc.getProduceMethod(), pool);
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .directExecutor()
                .callExecutor(ordering)
                .addTransportFilter(ordering)
                .addService(new ClientServiceGrpc.ClientServiceImplBase() {
                    @Override
                    public void produce(ProduceRequest request, StreamObserver<ProduceResponse> observer) {
                        int id = request.getTimeoutMs();
                        maxInProduce.accumulateAndGet(inProduce.incrementAndGet(), Math::max);
                        handled.add(id);
                        if (id == GATED) {
                            await(produceGate);
                        } else {
                            // A little work, so that two handlers of the connection would overlap if they could.
                            long until = System.nanoTime() + 20_000;
                            while (System.nanoTime() < until) {
                                Thread.onSpinWait();
                            }
                        }
                        inProduce.decrementAndGet();
                        observer.onNext(ProduceResponse.getDefaultInstance());
                        observer.onCompleted();
                    }

                    @Override
                    public void metadata(MetadataRequest request, StreamObserver<MetadataResponse> observer) {
                        await(metadataGate);
                        observer.onNext(MetadataResponse.getDefaultInstance());
                        observer.onCompleted();
                    }
                }).build().start();
        return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    }

    private static void await(CountDownLatch gate) {
        try {
            gate.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private ManagedChannel channel(int port) {
        ManagedChannel c = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        channels.add(c);
        return c;
    }

    private static ProduceRequest request(int id) {
        return ProduceRequest.newBuilder().setTimeoutMs(id).setAcks(-1).addPartitions(ProducePartition.newBuilder()
                .setTopic("t").setRecords(ByteString.copyFrom(new byte[1024]))).build();
    }
}
