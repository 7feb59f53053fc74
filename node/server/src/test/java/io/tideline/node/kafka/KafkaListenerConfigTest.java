package io.tideline.node.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.config.ConfigException;
import io.tideline.node.server.KafkaListeners;
import io.tideline.node.server.Listener;
import io.tideline.node.server.ServerConfig;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaListenerConfigTest {
    @TempDir
    Path dir;

    private Map<String, Object> props(Map<String, String> extra) {
        Map<String, Object> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("process.roles", "broker,controller");
        props.put("controller.quorum.voters", "1@127.0.0.1:9193");
        props.put("log.dirs", dir.resolve("logs").toString());
        props.put("metadata.log.dir", dir.resolve("metadata").toString());
        props.putAll(extra);
        return props;
    }

    @Test
    void noKafkaListenerUnlessOneIsConfigured() {
        ServerConfig config = ServerConfig.fromMap(props(Map.of()));
        assertEquals(Optional.empty(), config.kafkaListener());
        assertEquals(3, config.numNetworkThreads());
        assertEquals(104857600, config.socketRequestMaxBytes());
    }

    @Test
    void theAdvertisedListenerDefaultsToTheBoundOne() {
        ServerConfig config = ServerConfig.fromMap(props(Map.of("kafka.listeners", "PLAINTEXT://127.0.0.1:9392")));
        Listener bind = new Listener("PLAINTEXT", "127.0.0.1", 9392);
        assertEquals(Optional.of(new KafkaListeners(bind, bind)), config.kafkaListener());
    }

    @Test
    void anAdvertisedListenerOfItsOwnIsRegistered() {
        ServerConfig config = ServerConfig.fromMap(props(Map.of("kafka.listeners", "PLAINTEXT://:9392",
                "kafka.advertised.listeners", "PLAINTEXT://node-1:19392")));
        assertEquals(new Listener("PLAINTEXT", "node-1", 19392), config.kafkaListener().orElseThrow().advertised());
        assertEquals("0.0.0.0", config.kafkaListener().orElseThrow().bind().bindHost());
    }

    @Test
    void badKafkaListenerSettingsAreReportedByKey() {
        List<Map<String, String>> bad = List.of(
                Map.of("kafka.listeners", "127.0.0.1:9392"),
                Map.of("kafka.listeners", "PLAINTEXT://127.0.0.1:9392,OTHER://127.0.0.1:9393"),
                Map.of("kafka.listeners", "PLAINTEXT://:9392"),
                Map.of("kafka.advertised.listeners", "PLAINTEXT://node-1:9392"),
                Map.of("kafka.listeners", "PLAINTEXT://:9392", "kafka.advertised.listeners", "OTHER://node-1:9392"),
                Map.of("num.network.threads", "0"),
                Map.of("max.connections.per.ip.overrides", "127.0.0.1"),
                Map.of("max.connections.per.ip.overrides", "127.0.0.1:many"),
                Map.of("max.connections.per.ip.overrides", "127.0.0.1:-1"),
                Map.of("max.connections.per.ip.overrides", "127.0.0.1:3,127.0.0.1:4"),
                Map.of("max.connections.per.ip.overrides", ":3"),
                Map.of("max.connections.per.ip", "0"),
                Map.of("max.connections.per.ip", "-1"));
        for (Map<String, String> settings : bad) {
            List<String> problems = ServerConfig.validate(props(settings));
            assertEquals(1, problems.size(), settings + ": " + problems);
            String key = problems.get(0).split(":", 2)[0];
            assertTrue(settings.containsKey(key), settings + " reported under " + key);
            assertThrows(ConfigException.class, () -> ServerConfig.fromMap(props(settings)));
        }
    }

    @Test
    void perIpOverridesNameAddressesAndNamesWithTheirOwnBound() throws Exception {
        ServerConfig config = ServerConfig.fromMap(props(Map.of("max.connections.per.ip", "0",
                "max.connections.per.ip.overrides", " 127.0.0.2:5, localhost:0,[::1]:7 , 127.0.0.3:2")));
        KafkaServer.ConnectionLimits limits = config.kafkaConnectionLimits();
        assertEquals(0, limits.maxConnectionsPerIp());
        assertEquals(Map.of(InetAddress.getByName("127.0.0.2"), 5, InetAddress.getByName("localhost"), 0,
                InetAddress.getByName("::1"), 7, InetAddress.getByName("127.0.0.3"), 2), limits.perIpOverrides());
        assertEquals(Map.of(), ServerConfig.fromMap(props(Map.of())).kafkaConnectionLimits().perIpOverrides());
    }
}
