package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.proto.client.BrokerMetadata;
import io.tideline.proto.client.MetadataRequest;
import io.tideline.proto.metadata.Endpoint;
import io.tideline.testsupport.ports.Ports;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** B76: the registered endpoint is advertised.listeners' host and port, not the bound port. */
class AdvertisedListenerTest {
    @TempDir
    Path dir;

    @Test
    void registersAndAnswersTheAdvertisedPortNotTheBoundOne() throws Exception {
        int advertised = Ports.one();
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 1, Map.of())
                .withNodeOverride(1, "advertised.listeners", "PLAINTEXT://127.0.0.1:" + advertised).startAll()) {
            TidelineNode node = cluster.node(1);
            assertEquals(cluster.clientPort(1), node.boundPort());
            Endpoint registered = node.image().broker(1).orElseThrow().getEndpoints(0);
            assertEquals("127.0.0.1", registered.getHost());
            assertEquals(advertised, registered.getPort());
            BrokerMetadata answered = cluster.client(1).metadata(MetadataRequest.getDefaultInstance()).getBrokers(0);
            assertEquals(advertised, answered.getPort(), answered.toString());
        }
    }

    @Test
    void withoutAdvertisedListenersAListenerOnPortZeroRegistersThePortItBound() throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 1, Map.of())
                .withNodeOverride(1, "listeners", "PLAINTEXT://127.0.0.1:0").startAll()) {
            TidelineNode node = cluster.node(1);
            assertTrue(node.boundPort() > 0);
            assertEquals(node.boundPort(), node.image().broker(1).orElseThrow().getEndpoints(0).getPort());
        }
    }
}
