package io.tideline.node.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricsHttpConfigTest {
    private final ConfigDef def = MetricsHttpConfig.define(new ConfigDef());

    @Test
    void theHostIsUnsetByDefaultAndThePortIsStrimzis() {
        Map<String, Object> parsed = def.parse(Map.of());
        assertEquals(null, parsed.get(MetricsHttpConfig.METRICS_HTTP_HOST_CONFIG));
        assertEquals(9404, parsed.get(MetricsHttpConfig.METRICS_HTTP_PORT_CONFIG));
        assertTrue(MetricsHttpConfig.enabled(9404));
    }

    @Test
    void anUnsetHostBindsTheListenersHostAndAnExplicitOneWins() {
        assertEquals("127.0.0.1", MetricsHttpConfig.bindHost(null, "127.0.0.1"));
        assertEquals("10.0.0.5", MetricsHttpConfig.bindHost(null, "10.0.0.5"));
        // A listener without a host binds every interface; so does the endpoint.
        assertEquals("0.0.0.0", MetricsHttpConfig.bindHost(null, ""));
        assertEquals("0.0.0.0", MetricsHttpConfig.bindHost("0.0.0.0", "127.0.0.1"));
        assertEquals("127.0.0.1", MetricsHttpConfig.bindHost("127.0.0.1", ""));
    }

    @Test
    void minusOneDisablesAndZeroIsAnEphemeralPort() {
        int disabled = (Integer) def.parse(Map.of("metrics.http.port", "-1")).get("metrics.http.port");
        assertFalse(MetricsHttpConfig.enabled(disabled));
        assertTrue(MetricsHttpConfig.enabled((Integer) def.parse(Map.of("metrics.http.port", "0"))
                .get("metrics.http.port")));
    }

    @Test
    void badValuesAreRefusedNamingTheKey() {
        ConfigException port = assertThrows(ConfigException.class,
                () -> def.parse(Map.of("metrics.http.port", "70000")));
        assertTrue(port.getMessage().contains("metrics.http.port"), port.getMessage());
        assertThrows(ConfigException.class, () -> def.parse(Map.of("metrics.http.port", "-2")));
        ConfigException host = assertThrows(ConfigException.class,
                () -> def.parse(Map.of("metrics.http.host", " ")));
        assertTrue(host.getMessage().contains("metrics.http.host"), host.getMessage());
    }
}
