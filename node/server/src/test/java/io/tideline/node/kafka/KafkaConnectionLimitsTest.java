package io.tideline.node.kafka;

import static io.tideline.node.kafka.KafkaWire.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.testutil.LogCapture;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's max.connections.per.ip and max.connections on the Kafka listener (docs/kafka-protocol.md, "Connection
 * limits"): one connection too many from an address is closed at once; at the listener's limit a new connection
 * waits, unanswered, until another closes, and is then served.
 */
class KafkaConnectionLimitsTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;
    private NodeTestCluster cluster;
    private final List<KafkaWire> wires = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        cluster = new NodeTestCluster(dir, 1, Map.of("max.connections", 3, "max.connections.per.ip", 2,
                "max.connections.per.ip.overrides", "127.0.0.5:1,127.0.0.6:0")).startAll();
    }

    @AfterEach
    void stop() throws IOException {
        for (KafkaWire w : wires) {
            w.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private KafkaWire connect(String from) throws IOException {
        KafkaWire w = new KafkaWire(cluster.kafkaPort(1), from);
        wires.add(w);
        return w;
    }

    private static final ApiVersionsRequest API_VERSIONS =
            new ApiVersionsRequest(new ApiVersionsRequestData(), (short) 0);

    private static void assertServed(KafkaWire w, int correlationId) throws IOException {
        w.send(frame(KafkaWire.request(API_VERSIONS, correlationId)));
        assertEquals(Errors.NONE.code(), ((ApiVersionsResponse) w.read(KafkaWire.headerOf(API_VERSIONS, correlationId)))
                .data().errorCode());
    }

    /** The listener's open connections, Kafka's connection-count. */
    @SuppressWarnings("unchecked")
    private int open() {
        return ((Gauge<Integer>) cluster.node(1).metrics().getGauges().get(
                "kafka.server:type=socket-server-metrics,listener=PLAINTEXT,name=connection-count")).getValue();
    }

    @Test
    void aConnectionBeyondMaxConnectionsPerIpIsClosedAndOtherAddressesAreNotCounted() throws Exception {
        KafkaWire first = connect("127.0.0.1");
        assertServed(first, 1);
        assertServed(connect("127.0.0.1"), 2);
        try (LogCapture logs = new LogCapture()) {
            connect("127.0.0.1").assertClosedByNode();
            assertTrue(logs.messagesOf(KafkaConnectionQuotas.class).stream().anyMatch(m -> m.startsWith(
                    "Rejected connection from 127.0.0.1 on listener") && m.contains("maximum of 2 connections")),
                    String.valueOf(logs.messagesOf(KafkaConnectionQuotas.class)));
        }
        assertServed(connect("127.0.0.2"), 3);

        first.close();
        Awaitility.await("the node sees the first connection closed").atMost(WAIT).until(() -> open() == 2);
        assertServed(connect("127.0.0.1"), 4);
    }

    @Test
    void atMaxConnectionsANewConnectionWaitsUnansweredUntilOneClosesAndIsThenServed() throws Exception {
        KafkaWire a = connect("127.0.0.1");
        assertServed(a, 1);
        assertServed(connect("127.0.0.2"), 2);
        assertServed(connect("127.0.0.3"), 3);
        assertEquals(3, open());

        // The kernel completes the handshake (the accept backlog), but the node does not take the connection.
        KafkaWire waiting = connect("127.0.0.4");
        waiting.send(frame(KafkaWire.request(API_VERSIONS, 4)));
        waiting.readTimeout(1_000);
        assertThrows(SocketTimeoutException.class, () -> waiting.read(KafkaWire.headerOf(API_VERSIONS, 4)),
                "no answer while the listener is at max.connections");
        assertEquals(3, open(), "the fourth connection is not accepted");

        a.close();
        waiting.readTimeout(KafkaWire.READ_TIMEOUT_MS);
        assertEquals(Errors.NONE.code(), ((ApiVersionsResponse) waiting.read(KafkaWire.headerOf(API_VERSIONS, 4)))
                .data().errorCode(), "accepted and answered once a connection closed");
        Awaitility.await("three open again").atMost(WAIT).until(() -> open() == 3);
        Meter blocked = cluster.node(1).metrics().meter(
                "kafka.network:type=Acceptor,name=AcceptorBlockedPercent,listener=PLAINTEXT");
        assertTrue(blocked.getCount() >= 1_000_000_000L,
                "at least the second the test waited is counted as blocked, in nanoseconds: " + blocked.getCount());
    }

    @Test
    void anAddressNamedInTheOverridesHasItsOwnBoundAndTheOthersKeepTheDefault() throws Exception {
        try (LogCapture logs = new LogCapture()) {
            assertServed(connect("127.0.0.5"), 1);
            connect("127.0.0.5").assertClosedByNode();
            connect("127.0.0.6").assertClosedByNode();
            assertTrue(logs.messagesOf(KafkaConnectionQuotas.class).stream().anyMatch(m -> m.startsWith(
                    "Rejected connection from 127.0.0.6 on listener") && m.contains("maximum of 0 connections "
                    + "(max.connections.per.ip.overrides)")), String.valueOf(logs.messagesOf(KafkaConnectionQuotas.class)));
        }
        // The default of 2 still holds for an address not named.
        assertServed(connect("127.0.0.1"), 2);
        assertServed(connect("127.0.0.1"), 3);
        assertEquals(3, open());
    }
}
