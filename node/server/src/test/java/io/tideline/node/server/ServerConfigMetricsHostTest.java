package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerConfigMetricsHostTest {
    @TempDir
    Path dir;

    private ServerConfig config(Map<String, String> extra) {
        Map<String, Object> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("process.roles", "broker,controller");
        props.put("controller.quorum.voters", "1@127.0.0.1:9193");
        props.put("log.dirs", dir.resolve("logs").toString());
        props.put("metadata.log.dir", dir.resolve("metadata").toString());
        props.putAll(extra);
        return ServerConfig.fromMap(props);
    }

    /** A node started by hand with the default listener (127.0.0.1) bound its metrics on 0.0.0.0. */
    @Test
    void theMetricsEndpointBindsTheListenersHostUnlessMetricsHttpHostIsSet() {
        assertEquals("127.0.0.1", config(Map.of()).metricsHttpHost());
        assertEquals("127.0.0.2", config(Map.of("listeners", "PLAINTEXT://127.0.0.2:9092")).metricsHttpHost());
        assertEquals("0.0.0.0", config(Map.of("listeners", "PLAINTEXT://:9092",
                "advertised.listeners", "PLAINTEXT://node-1:9092")).metricsHttpHost());
        assertEquals("0.0.0.0", config(Map.of("metrics.http.host", "0.0.0.0")).metricsHttpHost());
    }
}
