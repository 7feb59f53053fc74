package io.tideline.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.tideline.client.internals.BrokerAddress;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import io.tideline.testsupport.ports.Ports;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * bootstrap.servers over real loopback sockets: addresses that refuse connections (a port bound and
 * released again) or never accept one (a listener whose accept queue is full), with a live fake broker
 * among them. Until a broker has answered, every address is tried once, in order, and the call fails at
 * once with a {@link BootstrapException} naming each address and why, instead of retrying until
 * default.api.timeout.ms / max.block.ms (60 s here, the clients' defaults).
 */
class BootstrapTest {
    /**
     * Far above a refused connect (milliseconds), far below the clients' 60 s retry: a bootstrap that retries
     * fails.
     */
    private static final long HANG_GUARD_MS = 5_000;
    private static final TopicPartition TP0 = new TopicPartition("orders", 0);

    private final FakeCluster cluster = new FakeCluster("bootstrap-test-" + System.nanoTime(), 1);
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        cluster.close();
    }

    /** Loopback addresses over real Netty channels; the fake broker's address in-process. */
    private ChannelFactory channels() {
        ChannelFactory real = ChannelFactory.plaintext();
        ChannelFactory fake = cluster.channels();
        return new ChannelFactory() {
            @Override
            public ManagedChannel create(String host, int port) {
                return create(host, port, CommonClientConfigs.DEFAULT_SOCKET_CONNECTION_SETUP_TIMEOUT_MS);
            }

            @Override
            public ManagedChannel create(String host, int port, long connectTimeoutMs) {
                return host.equals("127.0.0.1") ? real.create(host, port, connectTimeoutMs) : fake.create(host, port);
            }
        };
    }

    private static Map<String, Object> props(String bootstrap, Object... keyValues) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", bootstrap);
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        return props;
    }

    private <T extends AutoCloseable> T closeLater(T c) {
        closeables.add(c);
        return c;
    }

    /** A loopback port that refuses connections: reserved for this JVM (test-support Ports), which binds nothing there. */
    private static String refusing() {
        return "127.0.0.1:" + Ports.one();
    }

    private static <T> T timed(String what, Supplier<T> call) {
        long start = System.nanoTime();
        try {
            return call.get();
        } finally {
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(ms < HANG_GUARD_MS, what + " took " + ms + " ms");
        }
    }

    private static void assertRefused(BootstrapException e, String... addresses) {
        Map<String, String> expected = new LinkedHashMap<>();
        for (String a : addresses) {
            expected.put(a, "Connection refused");
        }
        assertEquals(expected, e.failures());
        assertEquals(List.copyOf(expected.keySet()), List.copyOf(e.failures().keySet()), "in the order given");
        for (String a : addresses) {
            assertTrue(e.getMessage().contains(a + " (Connection refused)"), e.getMessage());
        }
        assertEquals(Errors.BROKER_NOT_AVAILABLE, e.error());
        assertFalse(Rpc.retriable(e));
    }

    @Test
    void adminWithOnlyRefusingAddressesFailsAtOnceNamingEveryAddress() throws IOException {
        String a = refusing();
        String b = refusing();
        TidelineAdmin admin = closeLater(new TidelineAdmin(props(a + "," + b), Time.SYSTEM, channels()));
        BootstrapException e = timed("listTopics", () -> assertThrows(BootstrapException.class, admin::listTopics));
        assertRefused(e, a, b);
        assertRefused(timed("describeCluster", () -> assertThrows(BootstrapException.class, admin::describeCluster)),
                a, b);
        assertRefused(timed("deleteRecords", () -> assertThrows(BootstrapException.class,
                () -> admin.deleteRecords(Map.of(TP0, 1L)))), a, b);
    }

    @Test
    void producerWithOnlyRefusingAddressesFailsTheRecordAtOnce() throws IOException {
        String a = refusing();
        String b = refusing();
        TidelineProducer producer = closeLater(new TidelineProducer(props(a + "," + b), Time.SYSTEM, channels()));
        CompletionException e = timed("send", () -> assertThrows(CompletionException.class, () -> producer.send(
                new ProducerRecord("orders", "v".getBytes(StandardCharsets.UTF_8))).join()));
        assertRefused(assertInstanceOf(BootstrapException.class, e.getCause()), a, b);
    }

    @Test
    void consumerWithOnlyRefusingAddressesFailsThePollAtOnce() throws IOException {
        String a = refusing();
        String b = refusing();
        TidelineConsumer consumer = closeLater(new TidelineConsumer(props(a + "," + b), Time.SYSTEM, channels()));
        consumer.assign(List.of(TP0));
        assertRefused(timed("poll", () -> assertThrows(BootstrapException.class,
                () -> consumer.poll(Duration.ofSeconds(30)))), a, b);

        consumer.seek(TP0, 0);
        assertRefused(timed("poll after seek", () -> assertThrows(BootstrapException.class,
                () -> consumer.poll(Duration.ofSeconds(30)))), a, b);
    }

    @Test
    void aLiveAddressAfterRefusingOnesIsUsed() throws IOException {
        cluster.createTopic("orders", 1);
        cluster.append(TP0, "old");
        String bootstrap = refusing() + "," + refusing() + "," + cluster.bootstrap();

        TidelineAdmin admin = closeLater(new TidelineAdmin(props(bootstrap), Time.SYSTEM, channels()));
        assertEquals(List.of("orders"), timed("listTopics", admin::listTopics));

        TidelineProducer producer = closeLater(new TidelineProducer(props(bootstrap, "linger.ms", "0"),
                Time.SYSTEM, channels()));
        assertEquals(1L, timed("send", () -> producer.send(new ProducerRecord("orders", 0, null,
                "new".getBytes(StandardCharsets.UTF_8))).join().offset()));

        TidelineConsumer consumer = closeLater(new TidelineConsumer(props(bootstrap, "auto.offset.reset", "earliest"),
                Time.SYSTEM, channels()));
        consumer.assign(List.of(TP0));
        List<ConsumerRecord> records = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (records.size() < 2 && System.nanoTime() < deadline) {
            records.addAll(consumer.poll(Duration.ofMillis(200)));
        }
        assertEquals(List.of(0L, 1L), records.stream().map(ConsumerRecord::offset).toList());
    }

    @Test
    void anAddressThatNeverAcceptsFailsAfterTheConnectTimeout() throws IOException {
        // A listener that never accepts, with its accept queue full: Linux drops the next SYN, so a connect
        // hangs as it would to a host that does not answer. Skipped where the kernel refuses instead.
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = listener.getLocalPort();
            List<Socket> queued = new ArrayList<>();
            try {
                boolean hangs = false;
                for (int i = 0; i < 4 && !hangs; i++) {
                    Socket s = new Socket();
                    try {
                        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                        queued.add(s);
                    } catch (SocketTimeoutException e) {
                        s.close();
                        hangs = true;
                    }
                }
                assumeTrue(hangs, "connects to a full accept queue do not hang here");
                String silent = "127.0.0.1:" + port;
                String refused = refusing();
                TidelineAdmin admin = closeLater(new TidelineAdmin(props(silent + "," + refused,
                        "socket.connection.setup.timeout.ms", "300"), Time.SYSTEM, channels()));
                // request.timeout.ms is 30 s: only the connect timeout ends the first attempt this soon.
                BootstrapException e = timed("listTopics", () -> assertThrows(BootstrapException.class,
                        admin::listTopics));
                assertEquals(List.of(silent, refused), List.copyOf(e.failures().keySet()));
                assertTrue(e.failures().get(silent).startsWith("connection timed out"), e.getMessage());
                assertEquals("Connection refused", e.failures().get(refused));
            } finally {
                for (Socket s : queued) {
                    s.close();
                }
            }
        }
    }

    @Test
    void aClientThatReachedTheClusterOnceRetriesInsteadOfGivingUp() {
        BrokerAddress address = new BrokerAddress("127.0.0.1", 1);
        MetadataManager metadata = new MetadataManager(List.of(address), null, 1_000);
        Map<BrokerAddress, TidelineClientException> refused = Map.of(address, new TransportException("Metadata to "
                + address, Status.UNAVAILABLE.withDescription("io exception").withCause(new ConnectException(
                "finishConnect(..) failed with error(-111): Connection refused")).asRuntimeException()));
        assertEquals(Map.of("127.0.0.1:1", "Connection refused"), metadata.bootstrapFailure(refused).failures());

        metadata.brokerAnswered();
        assertNull(metadata.bootstrapFailure(refused));
    }

    @Test
    void aFailureOtherThanConnectingIsRetriedAsBefore() {
        BrokerAddress address = new BrokerAddress("127.0.0.1", 1);
        MetadataManager metadata = new MetadataManager(List.of(address), null, 1_000);
        assertNull(metadata.bootstrapFailure(Map.of(address, new TransportException("Metadata to " + address,
                Status.DEADLINE_EXCEEDED.asRuntimeException()))));
        assertNull(metadata.bootstrapFailure(Map.of(address, new TransportException("Metadata to " + address,
                Status.UNAVAILABLE.withDescription("Could not find server").asRuntimeException()))));
    }
}
