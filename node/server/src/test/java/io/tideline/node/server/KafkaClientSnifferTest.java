package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.tideline.node.testutil.LogCapture;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The gRPC listener's first-byte look ({@link KafkaClientSniffer}, {@link TcpRelay}) on a real gRPC server: gRPC
 * calls are served unchanged, a connection that opens with a Kafka size field is relayed byte for byte to the
 * Kafka listener's address, and without one it is closed (docs/behaviours.md B231).
 */
class KafkaClientSnifferTest {
    private static final byte[] KAFKA_REQUEST = {0, 0, 0, 6, 0, 18, 0, 3, 0, 7};

    private final AtomicReference<KafkaClientSniffer.Target> target = new AtomicReference<>();
    private ServerSocket kafkaListener;
    private Server grpc;

    @BeforeEach
    void start() throws IOException {
        kafkaListener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        HealthStatusManager health = new HealthStatusManager();
        grpc = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .protocolNegotiator(new KafkaClientSniffer(target::get, () -> "127.0.0.1:9392"))
                .addService(health.getHealthService())
                .build().start();
    }

    @AfterEach
    void stop() throws Exception {
        grpc.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        kafkaListener.close();
    }

    @Test
    void grpcCallsAreServedAsWithoutTheLook() throws Exception {
        target.set(relayTarget());
        ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", grpcPort(),
                InsecureChannelCredentials.create()).build();
        try {
            for (int i = 0; i < 3; i++) {
                assertEquals(ServingStatus.SERVING, HealthGrpc.newBlockingStub(channel)
                        .withDeadlineAfter(10, TimeUnit.SECONDS).check(HealthCheckRequest.getDefaultInstance())
                        .getStatus());
            }
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aKafkaClientIsRelayedToTheKafkaListenerBothWaysAndLoggedOncePerHost() throws Exception {
        target.set(relayTarget());
        try (LogCapture logs = new LogCapture()) {
            for (int round = 0; round < 2; round++) {
                try (Socket client = connect()) {
                    client.getOutputStream().write(KAFKA_REQUEST);
                    try (Socket relayed = kafkaListener.accept()) {
                        relayed.setSoTimeout(10_000);
                        assertArrayEquals(KAFKA_REQUEST, relayed.getInputStream().readNBytes(KAFKA_REQUEST.length));
                        byte[] answer = {0, 0, 0, 4, 0, 0, 0, 7};
                        relayed.getOutputStream().write(answer);
                        assertArrayEquals(answer, client.getInputStream().readNBytes(answer.length));
                        // The listener closing ends the client's connection too.
                    }
                    assertEquals(-1, client.getInputStream().read());
                }
            }
            List<String> warnings = logs.messagesOf(KafkaClientSniffer.class);
            assertEquals(1, warnings.size(), warnings.toString());
            assertTrue(warnings.get(0).contains("sent a Kafka request to the gRPC API's port 127.0.0.1:9392")
                    && warnings.get(0).contains("Kafka clients belong on 127.0.0.1:9092"), warnings.get(0));
        }
    }

    @Test
    void aLargeRelayedExchangeArrivesWhole() throws Exception {
        target.set(relayTarget());
        byte[] big = new byte[3 << 20];
        for (int i = 4; i < big.length; i++) {
            big[i] = (byte) (i * 31);
        }
        try (Socket client = connect()) {
            Thread writer = new Thread(() -> {
                try {
                    client.getOutputStream().write(big);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            writer.start();
            try (Socket relayed = kafkaListener.accept()) {
                relayed.setSoTimeout(10_000);
                assertArrayEquals(big, relayed.getInputStream().readNBytes(big.length));
            }
            writer.join(10_000);
        }
    }

    @Test
    void withoutAKafkaListenerTheConnectionIsClosed() throws Exception {
        try (Socket client = connect()) {
            client.getOutputStream().write(KAFKA_REQUEST);
            assertEquals(-1, readToEnd(client.getInputStream()));
        }
    }

    private KafkaClientSniffer.Target relayTarget() {
        return new KafkaClientSniffer.Target(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                kafkaListener.getLocalPort()), "127.0.0.1:9092");
    }

    private int grpcPort() {
        return ((InetSocketAddress) grpc.getListenSockets().get(0)).getPort();
    }

    private Socket connect() throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), grpcPort());
        s.setSoTimeout(10_000);
        return s;
    }

    /** -1 once the server closed, having sent nothing. */
    private static int readToEnd(InputStream in) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1) {
            got.write(b);
        }
        return got.size() == 0 ? -1 : got.size();
    }
}
