package io.tideline.node.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.TidelineNode;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Kafka listener's life with its node: metrics while serving, connections cut at once by a crash. */
class KafkaListenerLifecycleTest {
    @TempDir
    Path dir;
    private NodeTestCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static void assertAnswered(KafkaWire wire, int correlationId) throws IOException {
        ApiVersionsRequest request = new ApiVersionsRequest(new ApiVersionsRequestData(), (short) 0);
        wire.send(KafkaWire.frame(KafkaWire.request(request, correlationId)));
        assertEquals(Errors.NONE.code(),
                ((ApiVersionsResponse) wire.read(KafkaWire.headerOf(request, correlationId))).data().errorCode());
    }

    @Test
    void aCrashCutsEveryKafkaConnectionAtOnce() throws Exception {
        cluster = new NodeTestCluster(dir, 1, Map.of()).startAll();
        TidelineNode node = cluster.node(1);
        try (KafkaWire wire = new KafkaWire(cluster.kafkaPort(1))) {
            assertAnswered(wire, 1);
            @SuppressWarnings("unchecked")
            Gauge<Integer> connections = (Gauge<Integer>) node.metrics().getGauges().get(
                    "kafka.server:type=socket-server-metrics,listener=PLAINTEXT,name=connection-count");
            assertEquals(1, connections.getValue());
            Meter apiVersions = node.metrics().getMeters().get(KafkaListenerMetrics.REQUESTS_PER_SEC + "ApiVersions");
            assertEquals(1, apiVersions.getCount());

            cluster.kill(1);
            wire.assertClosedByNode();
        }
        assertThrows(ConnectException.class, () -> new KafkaWire(cluster.kafkaPort(1)).close(),
                "nothing listens on the Kafka port of a crashed node");
    }

    @Test
    void aRestartedNodeServesOnTheSameKafkaPort() throws Exception {
        cluster = new NodeTestCluster(dir, 1, Map.of()).startAll();
        cluster.stop(1);
        cluster.restart(1);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> cluster.node(1).kafkaPort().isPresent());
        assertEquals(cluster.kafkaPort(1), cluster.node(1).kafkaPort().orElseThrow());
        try (KafkaWire wire = new KafkaWire(cluster.kafkaPort(1))) {
            assertAnswered(wire, 2);
        }
    }
}
