package io.tideline.cluster.proxy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LinkProxyTest {
    private static final int READ_TIMEOUT_MS = 5_000;
    /** How long a read waits to show that nothing arrives through a cut link. */
    private static final int SILENCE_MS = 300;

    private EchoServer echo;
    private LinkProxy proxy;

    @BeforeEach
    void start() throws IOException {
        echo = new EchoServer();
        proxy = LinkProxy.start("client->1", echo.address());
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        echo.close();
    }

    private Socket connect() throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
        s.setSoTimeout(READ_TIMEOUT_MS);
        return s;
    }

    private static void send(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
        s.getOutputStream().flush();
    }

    private static String receive(Socket s, int length) throws IOException {
        return new String(s.getInputStream().readNBytes(length), StandardCharsets.UTF_8);
    }

    private static void assertRoundTrip(Socket s, String text) throws IOException {
        send(s, text);
        assertEquals(text, receive(s, text.length()));
    }

    private static void assertSilent(Socket s) throws IOException {
        s.setSoTimeout(SILENCE_MS);
        assertThrows(SocketTimeoutException.class, () -> s.getInputStream().read(),
                "a cut link delivered a byte or closed the connection");
        s.setSoTimeout(READ_TIMEOUT_MS);
    }

    /** A reset or an end of stream, never data and never a timeout. */
    private static void assertClosedByProxy(Socket s) {
        try {
            int b = s.getInputStream().read();
            assertEquals(-1, b, "expected a reset or end of stream, got a byte");
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the connection was left open", e);
        } catch (IOException e) {
            assertTrue(e instanceof SocketException, "expected a reset, got " + e);
        }
    }

    @Test
    void forwardsBothWaysAndCountsTheBytes() throws IOException {
        byte[] payload = new byte[200_000];
        new Random(11).nextBytes(payload);
        try (Socket s = connect()) {
            s.getOutputStream().write(payload);
            s.getOutputStream().flush();
            byte[] back = s.getInputStream().readNBytes(payload.length);
            assertArrayEquals(payload, back);
        }
        assertEquals(1, proxy.connectionsAccepted());
        assertEquals(payload.length, proxy.bytesForwarded(Direction.TO_TARGET));
        assertEquals(payload.length, proxy.bytesForwarded(Direction.FROM_TARGET));
        assertTrue(proxy.toString().contains("forwarding"), proxy.toString());
    }

    @Test
    void endOfStreamIsForwardedAndTheConnectionCloses() throws IOException {
        try (Socket s = connect()) {
            assertRoundTrip(s, "hello");
            s.shutdownOutput();
            // The echo server sees the FIN, closes, and its FIN comes back through the proxy.
            assertEquals(-1, s.getInputStream().read());
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> proxy.openConnections() == 0);
        assertEquals(0, proxy.connectionsReset());
    }

    @Test
    void cutHoldsConnectionsOpenAndForwardsNothing() throws IOException {
        try (Socket before = connect()) {
            assertRoundTrip(before, "before the cut");
            proxy.cut();
            send(before, "lost");
            assertSilent(before);
            try (Socket during = connect()) {
                send(during, "nowhere");
                assertSilent(during);
            }
            assertEquals(1, echo.accepted(), "a connection accepted during the cut reached the target");
            assertTrue(proxy.bytesDropped() >= "lost".length());
            assertTrue(proxy.toString().contains("cut"), proxy.toString());
        }
    }

    @Test
    void healResetsConnectionsThatLostBytesAndKeepsIdleOnes() throws IOException {
        try (Socket idle = connect(); Socket lossy = connect()) {
            assertRoundTrip(idle, "idle");
            assertRoundTrip(lossy, "lossy");
            proxy.cut();
            send(lossy, "lost");
            assertSilent(lossy);
            try (Socket acceptedDuringCut = connect()) {
                assertSilent(acceptedDuringCut);
                proxy.heal();
                // Its connect never reached the target, so it has nowhere to go after the heal either.
                assertClosedByProxy(acceptedDuringCut);
            }
            assertClosedByProxy(lossy);
            // Nothing was lost on these: the stream is whole, so they carry on as a TCP connection would.
            assertRoundTrip(idle, "after the heal");
        }
        try (Socket fresh = connect()) {
            assertRoundTrip(fresh, "a new connection");
        }
    }

    @Test
    void refuseResetsNewConnectionsAndKeepsExistingOnes() throws IOException {
        try (Socket existing = connect()) {
            assertRoundTrip(existing, "before");
            proxy.refuse();
            try (Socket refused = connect()) {
                assertClosedByProxy(refused);
            }
            assertEquals(1, proxy.connectionsRefused());
            assertEquals(1, echo.accepted(), "a refused connection reached the target");
            assertRoundTrip(existing, "still works");
            proxy.heal();
            try (Socket fresh = connect()) {
                assertRoundTrip(fresh, "after the heal");
            }
        }
    }

    @Test
    void delayHoldsEveryChunkBackAndKeepsTheOrder() throws IOException {
        Duration delay = Duration.ofMillis(200);
        try (Socket s = connect()) {
            assertRoundTrip(s, "warm");
            proxy.delay(delay);
            long start = System.nanoTime();
            StringBuilder sent = new StringBuilder();
            for (int i = 0; i < 20; i++) {
                String part = "chunk-" + i + ";";
                send(s, part);
                sent.append(part);
            }
            assertEquals(sent.toString(), receive(s, sent.length()));
            long elapsed = System.nanoTime() - start;
            // Delayed on the way to the echo server and again on the way back; a lower bound only.
            assertTrue(elapsed >= 2 * delay.toNanos(), "round trip took only " + Duration.ofNanos(elapsed));
            proxy.heal();
            assertRoundTrip(s, "undelayed");
        }
    }

    @Test
    void holdKeepsEveryByteUntilReleaseThenDeliversThemInOrder() throws IOException {
        try (Socket before = connect()) {
            assertRoundTrip(before, "warm");
            proxy.hold();
            assertTrue(proxy.toString().contains("held"), proxy.toString());
            send(before, "first,");
            try (Socket during = connect()) {
                send(during, "new-connection");
                send(before, "second");
                assertSilent(before);
                assertSilent(during);
                proxy.release();
                // Nothing was lost: what was sent while held arrives, in order, on connections the hold kept open.
                assertEquals("first,second", receive(before, "first,second".length()));
                assertEquals("new-connection", receive(during, "new-connection".length()));
                assertEquals(0, proxy.bytesDropped());
                assertEquals(0, proxy.connectionsReset());
                assertRoundTrip(before, "after");
            }
        }
    }

    @Test
    void healEndsAHoldToo() throws IOException {
        try (Socket s = connect()) {
            proxy.hold();
            send(s, "held");
            assertSilent(s);
            proxy.heal();
            assertEquals("held", receive(s, 4));
            assertEquals(0, proxy.connectionsReset());
        }
    }

    @Test
    void dropConnectionsResetsConnectionsInFlightAndNewOnesWork() throws IOException {
        try (Socket a = connect(); Socket b = connect()) {
            assertRoundTrip(a, "a");
            assertRoundTrip(b, "b");
            proxy.dropConnections();
            assertClosedByProxy(a);
            assertClosedByProxy(b);
            assertEquals(2, proxy.connectionsReset());
        }
        try (Socket fresh = connect()) {
            assertRoundTrip(fresh, "fresh");
        }
    }

    @Test
    void closeStopsEveryThreadAndFreesThePort() throws IOException {
        try (Socket s = connect()) {
            assertRoundTrip(s, "busy");
            int port = proxy.port();
            String prefix = "link-proxy[" + proxy.name() + "]";
            assertTrue(threadsNamed(prefix) > 0);
            proxy.close();
            assertEquals(0, threadsNamed(prefix), "threads left after close");
            assertClosedByProxy(s);
            assertThrows(ConnectException.class, () -> new Socket(InetAddress.getLoopbackAddress(), port).close());
            try (ServerSocket again = new ServerSocket(port, 50, InetAddress.getLoopbackAddress())) {
                assertEquals(port, again.getLocalPort());
            }
        }
    }

    private static long threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith(prefix)).count();
    }
}
