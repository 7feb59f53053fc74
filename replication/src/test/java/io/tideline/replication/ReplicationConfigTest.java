package io.tideline.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.config.ConfigException;
import io.tideline.replication.follower.OutOfRangePolicy;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplicationConfigTest {

    @Test
    void defaultsAreKafkas() {
        ReplicationConfig c = ReplicationConfig.defaults();
        assertEquals(30_000L, c.replicaLagTimeMaxMs());
        assertEquals(1, c.fetchMinBytes());
        assertEquals(500, c.fetchWaitMaxMs());
        assertEquals(1024 * 1024, c.fetchMaxBytes());
        assertEquals(10 * 1024 * 1024, c.fetchResponseMaxBytes());
        assertEquals(1000, c.fetchBackoffMs());
        assertEquals(1, c.numReplicaFetchers());
        assertEquals(Long.MAX_VALUE, c.leaderThrottledRate());
        assertEquals(Long.MAX_VALUE, c.followerThrottledRate());
        assertEquals(OutOfRangePolicy.HALT, c.outOfRangePolicy());
        assertEquals(1, c.minInsyncReplicas());
    }

    @Test
    void badValuesNameTheKey() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ReplicationConfig.fromMap(Map.of("replica.fetch.out.of.range.policy", "truncate")));
        assertEquals("replica.fetch.out.of.range.policy", e.key());
        assertTrue(e.getMessage().contains("halt, rebuild"), e.getMessage());
        assertEquals("num.replica.fetchers",
                assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(Map.of("num.replica.fetchers", "0"))).key());
        assertEquals("replica.lag.time.max.ms",
                assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(Map.of("replica.lag.time.max.ms", "x"))).key());
    }

    @Test
    void stringsFromAPropertiesFileParse() {
        ReplicationConfig c = ReplicationConfig.fromMap(Map.of("replica.lag.time.max.ms", "10000",
                "replica.fetch.out.of.range.policy", "rebuild", "follower.replication.throttled.rate", "1048576"));
        assertEquals(10_000L, c.replicaLagTimeMaxMs());
        assertEquals(OutOfRangePolicy.REBUILD, c.outOfRangePolicy());
        assertEquals(1_048_576L, c.followerThrottledRate());
    }
}
