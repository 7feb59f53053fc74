package io.tideline.store.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.ConfigException;
import io.tideline.common.errors.Errors;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;

class LogConfigTest {

    @Test
    void defaultsEqualKafkas() {
        LogConfig c = LogConfig.DEFAULT;
        assertEquals(1073741824, c.segmentBytes());
        assertEquals(604800000L, c.segmentMs());
        assertEquals(0L, c.segmentJitterMs());
        assertEquals(10485760, c.segmentIndexBytes());
        assertEquals(4096, c.indexIntervalBytes());
        assertEquals(604800000L, c.retentionMs());
        assertEquals(-1L, c.retentionBytes());
        assertEquals(60000L, c.fileDeleteDelayMs());
        assertEquals(1048588, c.maxMessageBytes());
        assertFalse(c.logAppendTime());
        assertEquals("CreateTime", c.values().get("message.timestamp.type"));
        assertEquals(Long.MAX_VALUE, c.messageTimestampBeforeMaxMs(), "Kafka 4.x: any past timestamp");
        assertEquals(3_600_000L, c.messageTimestampAfterMaxMs(), "Kafka 4.x: one hour ahead");
        assertEquals(Long.MAX_VALUE, c.flushMessages());
        assertEquals(Long.MAX_VALUE, c.flushMs());
        assertTrue(c.delete());
        assertFalse(c.compact());
        assertEquals(0.5, c.minCleanableDirtyRatio());
        assertEquals(0L, c.minCompactionLagMs());
        assertEquals(Long.MAX_VALUE, c.maxCompactionLagMs());
        assertEquals(86_400_000L, c.deleteRetentionMs());
        assertEquals("producer", c.compressionType());
        assertEquals(LogConfig.DEFAULT, LogConfig.fromMap(Map.of()));
    }

    @Test
    void keyNamesAreKafkasTopicConfigNames() {
        assertEquals(List.of(
                TopicConfig.SEGMENT_BYTES_CONFIG,
                TopicConfig.SEGMENT_MS_CONFIG,
                TopicConfig.SEGMENT_JITTER_MS_CONFIG,
                TopicConfig.SEGMENT_INDEX_BYTES_CONFIG,
                TopicConfig.INDEX_INTERVAL_BYTES_CONFIG,
                TopicConfig.RETENTION_MS_CONFIG,
                TopicConfig.RETENTION_BYTES_CONFIG,
                TopicConfig.FILE_DELETE_DELAY_MS_CONFIG,
                TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG,
                TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG,
                TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG,
                TopicConfig.FLUSH_MESSAGES_INTERVAL_CONFIG,
                TopicConfig.FLUSH_MS_CONFIG,
                TopicConfig.CLEANUP_POLICY_CONFIG,
                TopicConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG,
                TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG,
                TopicConfig.MAX_COMPACTION_LAG_MS_CONFIG,
                TopicConfig.DELETE_RETENTION_MS_CONFIG,
                TopicConfig.COMPRESSION_TYPE_CONFIG), List.copyOf(LogConfig.configDef().names()));
        assertEquals(LogConfig.configDef().names(), LogConfig.DEFAULT.values().keySet());
    }

    @Test
    void stringValuesParse() {
        Map<String, String> props = new HashMap<>();
        props.put("segment.bytes", " 1024 ");
        props.put("segment.ms", "1000");
        props.put("segment.jitter.ms", "10");
        props.put("segment.index.bytes", "4096");
        props.put("index.interval.bytes", "0");
        props.put("retention.ms", "-1");
        props.put("retention.bytes", "1099511627776");
        props.put("file.delete.delay.ms", "0");
        props.put("max.message.bytes", "100");
        props.put("message.timestamp.type", "LogAppendTime");
        LogConfig c = LogConfig.fromMap(props);
        assertEquals(1024, c.segmentBytes());
        assertEquals(1000L, c.segmentMs());
        assertEquals(10L, c.segmentJitterMs());
        assertEquals(4096, c.segmentIndexBytes());
        assertEquals(0, c.indexIntervalBytes());
        assertEquals(-1L, c.retentionMs());
        assertEquals(1L << 40, c.retentionBytes());
        assertEquals(0L, c.fileDeleteDelayMs());
        assertEquals(100, c.maxMessageBytes());
        assertTrue(c.logAppendTime());
    }

    @Test
    void typedValuesParse() {
        LogConfig c = LogConfig.fromMap(Map.of(
                "segment.bytes", 2048L,
                "segment.ms", 5,
                "retention.bytes", 10,
                "max.message.bytes", 512));
        assertEquals(2048, c.segmentBytes());
        assertEquals(5L, c.segmentMs());
        assertEquals(10L, c.retentionBytes());
        assertEquals(512, c.maxMessageBytes());
        assertEquals(Long.valueOf(5), c.values().get("segment.ms"));
    }

    @Test
    void unknownKeysAreIgnored() {
        assertEquals(LogConfig.DEFAULT, LogConfig.fromMap(Map.of("cleanup.policies", "compact")));
    }

    @Test
    void cleanupPolicyTakesDeleteCompactOrBoth() {
        LogConfig compact = LogConfig.fromMap(Map.of("cleanup.policy", "compact"));
        assertTrue(compact.compact());
        assertFalse(compact.delete());
        LogConfig both = LogConfig.fromMap(Map.of("cleanup.policy", "compact, delete"));
        assertTrue(both.compact() && both.delete());
        assertEquals(List.of("compact", "delete"), both.values().get("cleanup.policy"));
        assertEquals("Invalid value compact,purge for configuration cleanup.policy: Invalid value purge; each entry "
                + "must be one of delete, compact", refused("cleanup.policy", "compact,purge").getMessage());
        refused("cleanup.policy", "Compact");
        refused("cleanup.policy", "delete,");
    }

    @Test
    void compactionKeysAreBoundedAsKafkas() {
        LogConfig c = LogConfig.fromMap(Map.of("min.cleanable.dirty.ratio", "0.01", "min.compaction.lag.ms", "5",
                "max.compaction.lag.ms", "5", "delete.retention.ms", "0", "compression.type", "zstd"));
        assertEquals(0.01, c.minCleanableDirtyRatio());
        assertEquals(5L, c.maxCompactionLagMs());
        assertEquals("zstd", c.compressionType());
        refused("min.cleanable.dirty.ratio", "1.5");
        refused("min.cleanable.dirty.ratio", "NaN");
        refused("min.compaction.lag.ms", "-1");
        refused("max.compaction.lag.ms", "0");
        refused("delete.retention.ms", "-1");
        refused("compression.type", "brotli");
        // A record may not have to be cleaned before it may be cleaned.
        ConfigException e = assertThrows(ConfigException.class, () -> LogConfig.fromMap(
                Map.of("min.compaction.lag.ms", "10", "max.compaction.lag.ms", "9")));
        assertEquals("max.compaction.lag.ms", e.key());
    }

    private static ConfigException refused(String key, Object value) {
        ConfigException e = assertThrows(ConfigException.class, () -> LogConfig.fromMap(Map.of(key, value)));
        assertEquals(key, e.key());
        assertEquals(Errors.INVALID_CONFIG, e.error());
        assertTrue(e.getMessage().contains(key) && e.getMessage().contains(String.valueOf(value)), e.getMessage());
        return e;
    }

    @Test
    void everyValidatorRefusesABadValueNamingTheKey() {
        assertEquals("Invalid value 5 for configuration segment.bytes: Value must be at least 14",
                refused("segment.bytes", "5").getMessage());
        assertEquals("Invalid value -5 for configuration segment.bytes: Value must be at least 14",
                refused("segment.bytes", -5).getMessage());
        assertEquals("Invalid value -2 for configuration retention.ms: Value must be at least -1",
                refused("retention.ms", "-2").getMessage());
        assertEquals("Invalid value Foo for configuration message.timestamp.type: "
                + "String must be one of: CreateTime, LogAppendTime",
                refused("message.timestamp.type", "Foo").getMessage());
        assertEquals("Invalid value abc for configuration segment.bytes: Expected a 32-bit integer",
                refused("segment.bytes", "abc").getMessage());
        refused("segment.bytes", "4294967296");
        refused("segment.ms", "0");
        refused("segment.jitter.ms", "-1");
        refused("segment.index.bytes", "3");
        refused("index.interval.bytes", "-1");
        refused("retention.bytes", "-2");
        refused("file.delete.delay.ms", "-1");
        refused("max.message.bytes", "-1");
        refused("retention.ms", "7d");
        assertEquals("Invalid value 0 for configuration flush.messages: Value must be at least 1",
                refused("flush.messages", "0").getMessage());
        refused("flush.ms", "-1");
    }

    @Test
    void flushSettingsParseAndTakeTheirBoundaries() {
        LogConfig c = LogConfig.fromMap(Map.of("flush.messages", "1", "flush.ms", "0"));
        assertEquals(1L, c.flushMessages());
        assertEquals(0L, c.flushMs());
        assertEquals(9_223_372_036_854_775_807L,
                LogConfig.fromMap(Map.of("flush.messages", "9223372036854775807")).flushMessages());
    }

    @Test
    void boundaryValuesAreAccepted() {
        LogConfig c = LogConfig.fromMap(Map.of("segment.bytes", "14", "segment.ms", "1", "segment.index.bytes", "4",
                "retention.ms", "-1", "retention.bytes", "-1", "max.message.bytes", "0"));
        assertEquals(14, c.segmentBytes());
        assertEquals(4, c.segmentIndexBytes());
    }

    @Test
    void withOverridesKeepsBaseValuesAndAppliesOverrides() {
        LogConfig base = LogConfig.fromMap(Map.of("segment.bytes", "2048", "retention.ms", "1000"));
        LogConfig topic = base.withOverrides(Map.of("retention.ms", "5000", "message.timestamp.type", "LogAppendTime"));
        assertEquals(2048, topic.segmentBytes());
        assertEquals(5000L, topic.retentionMs());
        assertTrue(topic.logAppendTime());
        assertEquals(LogConfig.DEFAULT.segmentMs(), topic.segmentMs());
        // the base is unchanged
        assertEquals(1000L, base.retentionMs());
        assertFalse(base.logAppendTime());
        assertEquals(base, base.withOverrides(Map.of()));
    }

    @Test
    void withOverridesValidatesAndIgnoresNullOverrides() {
        LogConfig base = LogConfig.fromMap(Map.of("segment.bytes", "2048"));
        ConfigException e = assertThrows(ConfigException.class,
                () -> base.withOverrides(Map.of("segment.bytes", "5")));
        assertEquals("segment.bytes", e.key());
        Map<String, Object> overrides = new HashMap<>();
        overrides.put("segment.bytes", null);
        assertEquals(2048, base.withOverrides(overrides).segmentBytes());
    }

    @Test
    void equalsHashCodeAndToStringFollowValues() {
        LogConfig a = LogConfig.fromMap(Map.of("retention.ms", "1000"));
        LogConfig b = LogConfig.fromMap(Map.of("retention.ms", 1000L));
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, LogConfig.DEFAULT);
        assertTrue(a.toString().contains("retention.ms=1000"), a.toString());
        assertTrue(a.toString().startsWith("LogConfig"), a.toString());
    }

    @Test
    void valuesAreUnmodifiable() {
        assertThrows(UnsupportedOperationException.class, () -> LogConfig.DEFAULT.values().put("segment.bytes", 1));
    }

    @Test
    void configDefIsACopy() {
        ConfigDef def = LogConfig.configDef();
        def.define("x.extra", ConfigDef.Type.INT, 1, ConfigDef.Importance.LOW, "Extra.");
        assertFalse(LogConfig.configDef().names().contains("x.extra"));
    }

    @Test
    void markdownTableContainsEveryKey() {
        String table = LogConfig.configDef().toMarkdownTable();
        for (String key : LogConfig.configDef().names()) {
            assertTrue(table.contains("| `" + key + "` |"), key);
        }
        assertTrue(table.contains("| `segment.bytes` | int | `1073741824` | [14,...] |"), table);
        assertTrue(table.contains("| `message.timestamp.type` | string | `CreateTime` | CreateTime, LogAppendTime |"),
                table);
    }
}
