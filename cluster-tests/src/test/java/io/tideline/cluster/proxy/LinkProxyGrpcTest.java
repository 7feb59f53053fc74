package io.tideline.cluster.proxy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy under a real gRPC channel: what a cut and a heal look like to a caller with a deadline. */
class LinkProxyGrpcTest {
    private final HealthStatusManager health = new HealthStatusManager();
    private Server server;
    private LinkProxy proxy;
    private ManagedChannel channel;

    @BeforeEach
    void start() throws IOException {
        server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .addService(health.getHealthService()).build().start();
        health.setStatus("", ServingStatus.SERVING);
        proxy = LinkProxy.start("client->1", new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getPort()));
        channel = NettyChannelBuilder.forAddress("127.0.0.1", proxy.port()).usePlaintext().build();
    }

    @AfterEach
    void stop() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        proxy.close();
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    private ServingStatus check(long deadlineMs) {
        return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(deadlineMs, TimeUnit.MILLISECONDS)
                // Waits for the channel to reconnect (within the deadline) instead of failing fast.
                .withWaitForReady()
                .check(HealthCheckRequest.getDefaultInstance()).getStatus();
    }

    @Test
    void aCutLinkTimesCallsOutAndTheNextCallAfterHealSucceeds() {
        assertEquals(ServingStatus.SERVING, check(5_000));
        proxy.cut();
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> check(500));
        assertEquals(Status.Code.DEADLINE_EXCEEDED, e.getStatus().getCode(), e.toString());
        proxy.heal();
        // The connection lost the request to the cut, so the heal reset it. A call made before the channel has
        // read that reset goes out on the dead connection and fails UNAVAILABLE; once the channel has seen it,
        // the next call reconnects and succeeds.
        await().atMost(Duration.ofSeconds(5)).until(() -> channel.getState(false) != ConnectivityState.READY);
        assertEquals(ServingStatus.SERVING, check(10_000));
        assertEquals(2, proxy.connectionsAccepted());
    }
}
