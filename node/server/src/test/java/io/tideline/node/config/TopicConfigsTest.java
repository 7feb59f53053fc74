package io.tideline.node.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.config.ConfigException;
import io.tideline.store.config.LogConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopicConfigsTest {

    private static ConfigException invalid(Map<String, String> configs) {
        return assertThrows(ConfigException.class, () -> TopicConfigs.validate(configs));
    }

    @Test
    void acceptsLogConfigAndReplicationKeys() {
        TopicConfigs.validate(Map.of());
        TopicConfigs.validate(Map.of("retention.ms", "-1", "segment.bytes", "1048576",
                "message.timestamp.type", "LogAppendTime", "min.insync.replicas", "2",
                "unclean.leader.election.enable", "true", "replica.fetch.out.of.range.policy", "rebuild"));
        TopicConfigs.validate(Map.of("replica.fetch.out.of.range.policy", "halt"));
    }

    @Test
    void refusesAnUnknownKeyBeforeLookingAtValues() {
        ConfigException e = invalid(Map.of("retention.hours", "1"));
        assertEquals("Unknown topic config key retention.hours", e.getMessage());
        assertEquals("retention.hours", e.key());
        // a broker-level key is not a topic key
        assertEquals("log.retention.ms", invalid(Map.of("log.retention.ms", "1", "segment.bytes", "x")).key());
    }

    @Test
    void refusesBadValuesNamingTheKey() {
        ConfigException policy = invalid(Map.of("replica.fetch.out.of.range.policy", "truncate"));
        assertEquals("replica.fetch.out.of.range.policy", policy.key());
        assertTrue(policy.getMessage().contains("halt, rebuild"), policy.getMessage());
        assertEquals("replica.fetch.out.of.range.policy",
                invalid(Map.of("replica.fetch.out.of.range.policy", "Halt")).key());
        assertEquals("min.insync.replicas", invalid(Map.of("min.insync.replicas", "0")).key());
        assertEquals("min.insync.replicas", invalid(Map.of("min.insync.replicas", "two")).key());
        assertEquals("unclean.leader.election.enable", invalid(Map.of("unclean.leader.election.enable", "1")).key());
        assertEquals("segment.bytes", invalid(Map.of("segment.bytes", "1")).key());
        assertEquals("message.timestamp.type", invalid(Map.of("message.timestamp.type", "Now")).key());
        assertEquals("leader.replication.throttled.replicas",
                invalid(Map.of("leader.replication.throttled.replicas", "0:1,x")).key());
        assertEquals("follower.replication.throttled.replicas",
                invalid(Map.of("follower.replication.throttled.replicas", "0:-1")).key());
        TopicConfigs.validate(Map.of("leader.replication.throttled.replicas", "*",
                "follower.replication.throttled.replicas", "0:101, 1:102"));
    }

    @Test
    void definitionReusesLogConfigKeysAndAddsTheReplicationKeys() {
        List<String> all = List.copyOf(TopicConfigs.configDef().names());
        List<String> log = List.copyOf(LogConfig.configDef().names());
        assertEquals(log, all.subList(0, log.size()));
        List<String> added = List.of("min.insync.replicas", "unclean.leader.election.enable",
                "replica.fetch.out.of.range.policy", "leader.replication.throttled.replicas",
                "follower.replication.throttled.replicas");
        assertEquals(added, all.subList(log.size(), all.size()));
        assertEquals(added, List.copyOf(TopicConfigs.nodeKeysConfigDef().names()));
        assertEquals("halt", TopicConfigs.configDef().configKeys().get("replica.fetch.out.of.range.policy")
                .defaultValue());
    }
}
