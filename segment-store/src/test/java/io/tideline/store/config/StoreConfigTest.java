package io.tideline.store.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.config.ConfigException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StoreConfigTest {

    private static StoreConfig config(String... kv) {
        Map<String, String> props = new HashMap<>();
        props.put("log.dirs", "/data/a");
        for (int i = 0; i < kv.length; i += 2) {
            props.put(kv[i], kv[i + 1]);
        }
        return StoreConfig.fromMap(props);
    }

    private static ConfigException refused(String key, String value) {
        ConfigException e = assertThrows(ConfigException.class, () -> config(key, value));
        assertEquals(key, e.key());
        assertTrue(e.getMessage().contains(key), e.getMessage());
        return e;
    }

    @Test
    void defaultsEqualKafkas() {
        StoreConfig c = config();
        assertEquals(List.of(Path.of("/data/a")), c.logDirs());
        assertEquals(300000L, c.retentionCheckIntervalMs());
        assertEquals(60000L, c.offsetCheckpointIntervalMs());
        assertEquals(60000L, c.startOffsetCheckpointIntervalMs());
        // Kafka's broker defaults resolve to exactly its topic defaults.
        assertEquals(LogConfig.DEFAULT, c.logConfigDefaults());
    }

    @Test
    void cleanerBrokerKeysTakeKafkasDefaultsAndSynonyms() {
        assertEquals(CleanerConfig.DEFAULT, config().cleanerConfig());
        assertEquals(new CleanerConfig(2, 4L << 20, 1024, 0.5, 1e6, 100),
                config("log.cleaner.threads", "2", "log.cleaner.dedupe.buffer.size", String.valueOf(4L << 20),
                        "log.cleaner.io.buffer.size", "1024", "log.cleaner.io.buffer.load.factor", "0.5",
                        "log.cleaner.io.max.bytes.per.second", "1000000", "log.cleaner.backoff.ms", "100")
                        .cleanerConfig());
        LogConfig defaults = config("log.cleanup.policy", "compact,delete", "log.cleaner.min.cleanable.ratio", "0.1",
                "log.cleaner.min.compaction.lag.ms", "7", "log.cleaner.max.compaction.lag.ms", "8",
                "log.cleaner.delete.retention.ms", "9", "compression.type", "lz4").logConfigDefaults();
        assertTrue(defaults.compact() && defaults.delete());
        assertEquals(0.1, defaults.minCleanableDirtyRatio());
        assertEquals(7L, defaults.minCompactionLagMs());
        assertEquals(8L, defaults.maxCompactionLagMs());
        assertEquals(9L, defaults.deleteRetentionMs());
        assertEquals("lz4", defaults.compressionType());
        // Kafka's floor: 1 MiB of dedupe buffer per cleaner thread.
        ConfigException e = assertThrows(ConfigException.class,
                () -> config("log.cleaner.threads", "4", "log.cleaner.dedupe.buffer.size", String.valueOf(3L << 20)));
        assertEquals("log.cleaner.dedupe.buffer.size", e.key());
        refused("log.cleaner.threads", "-1");
        refused("log.cleanup.policy", "purge");
        refused("compression.type", "none");
        assertEquals(0, config("log.cleaner.threads", "0", "log.cleaner.dedupe.buffer.size", "0")
                .cleanerConfig().threads());
    }

    @Test
    void flushBrokerDefaultsFollowKafkasSynonyms() {
        StoreConfig defaults = config();
        assertEquals(Long.MAX_VALUE, defaults.flushSchedulerIntervalMs());
        assertEquals(Long.MAX_VALUE, defaults.logConfigDefaults().flushMessages());
        assertEquals(Long.MAX_VALUE, defaults.logConfigDefaults().flushMs());

        StoreConfig set = config("log.flush.interval.messages", "500", "log.flush.interval.ms", "2000",
                "log.flush.scheduler.interval.ms", "1000");
        assertEquals(500L, set.logConfigDefaults().flushMessages());
        assertEquals(2000L, set.logConfigDefaults().flushMs());
        assertEquals(1000L, set.flushSchedulerIntervalMs());

        // Kafka: without log.flush.interval.ms, the flusher's own period is the default flush.ms.
        assertEquals(1000L, config("log.flush.scheduler.interval.ms", "1000").logConfigDefaults().flushMs());

        refused("log.flush.interval.messages", "0");
        refused("log.flush.interval.ms", "-1");
        refused("log.flush.scheduler.interval.ms", "0");
    }

    @Test
    void logDirsIsRequired() {
        ConfigException e = assertThrows(ConfigException.class, () -> StoreConfig.fromMap(Map.of()));
        assertEquals("log.dirs", e.key());
        assertTrue(e.getMessage().contains("log.dirs"), e.getMessage());
    }

    @Test
    void logDirsParsesAListOfPaths() {
        StoreConfig c = StoreConfig.fromMap(Map.of("log.dirs", " /data/a , /data/b "));
        assertEquals(List.of(Path.of("/data/a"), Path.of("/data/b")), c.logDirs());
        assertEquals(List.of(Path.of("/x")), StoreConfig.fromMap(Map.of("log.dirs", List.of("/x"))).logDirs());
    }

    @Test
    void emptyOrBlankLogDirsAreRefused() {
        refused("log.dirs", "");
        refused("log.dirs", "/a,,/b");
    }

    @Test
    void duplicateLogDirsAreRefused() {
        ConfigException e = refused("log.dirs", "/data/a,/data/./a");
        assertTrue(e.getMessage().contains("Duplicate log directory"), e.getMessage());
    }

    @Test
    void logDirIsTheFallbackWhenLogDirsIsAbsent() {
        StoreConfig c = StoreConfig.fromMap(Map.of("log.dir", "/data/single"));
        assertEquals(List.of(Path.of("/data/single")), c.logDirs());
        assertFalse(c.isDefault("log.dirs"));
    }

    @Test
    void logDirsWinsOverLogDir() {
        StoreConfig c = StoreConfig.fromMap(Map.of("log.dirs", "/data/a,/data/b", "log.dir", "/data/single"));
        assertEquals(List.of(Path.of("/data/a"), Path.of("/data/b")), c.logDirs());
    }

    @Test
    void intervalsParseAndValidate() {
        StoreConfig c = config("log.retention.check.interval.ms", "1000",
                "log.flush.offset.checkpoint.interval.ms", "0",
                "log.flush.start.offset.checkpoint.interval.ms", "5");
        assertEquals(1000L, c.retentionCheckIntervalMs());
        assertEquals(0L, c.offsetCheckpointIntervalMs());
        assertEquals(5L, c.startOffsetCheckpointIntervalMs());
        refused("log.retention.check.interval.ms", "0");
        refused("log.flush.offset.checkpoint.interval.ms", "-1");
        refused("log.flush.start.offset.checkpoint.interval.ms", "-1");
    }

    @Test
    void retentionHoursMapToRetentionMs() {
        assertEquals(3_600_000L, config("log.retention.hours", "1").logConfigDefaults().retentionMs());
    }

    @Test
    void retentionPrecedenceIsMsThenMinutesThenHours() {
        assertEquals(5000L, config("log.retention.ms", "5000", "log.retention.minutes", "2",
                "log.retention.hours", "1").logConfigDefaults().retentionMs());
        assertEquals(120_000L, config("log.retention.minutes", "2", "log.retention.hours", "1")
                .logConfigDefaults().retentionMs());
        assertEquals(5000L, config("log.retention.ms", "5000", "log.retention.hours", "1")
                .logConfigDefaults().retentionMs());
    }

    @Test
    void negativeRetentionInAnyUnitMeansUnlimited() {
        assertEquals(-1L, config("log.retention.ms", "-1").logConfigDefaults().retentionMs());
        assertEquals(-1L, config("log.retention.minutes", "-1").logConfigDefaults().retentionMs());
        assertEquals(-1L, config("log.retention.hours", "-1").logConfigDefaults().retentionMs());
        refused("log.retention.ms", "-2");
        refused("log.retention.hours", "-2");
    }

    @Test
    void rollHoursAndRollMs() {
        assertEquals(7_200_000L, config("log.roll.hours", "2").logConfigDefaults().segmentMs());
        assertEquals(1234L, config("log.roll.ms", "1234", "log.roll.hours", "2").logConfigDefaults().segmentMs());
        assertEquals(3_600_000L, config("log.roll.jitter.hours", "1").logConfigDefaults().segmentJitterMs());
        assertEquals(99L, config("log.roll.jitter.ms", "99", "log.roll.jitter.hours", "1")
                .logConfigDefaults().segmentJitterMs());
        refused("log.roll.hours", "0");
        refused("log.roll.ms", "0");
    }

    @Test
    void otherBrokerSynonymsMapToTopicKeys() {
        LogConfig d = config(
                "log.segment.bytes", "4096",
                "log.index.size.max.bytes", "8192",
                "log.index.interval.bytes", "128",
                "log.retention.bytes", "1000000",
                "log.segment.delete.delay.ms", "10",
                "message.max.bytes", "2000",
                "log.message.timestamp.type", "LogAppendTime",
                "log.message.timestamp.before.max.ms", "5000",
                "log.message.timestamp.after.max.ms", "6000").logConfigDefaults();
        assertEquals(4096, d.segmentBytes());
        assertEquals(8192, d.segmentIndexBytes());
        assertEquals(128, d.indexIntervalBytes());
        assertEquals(1_000_000L, d.retentionBytes());
        assertEquals(10L, d.fileDeleteDelayMs());
        assertEquals(2000, d.maxMessageBytes());
        assertTrue(d.logAppendTime());
        assertEquals(5000L, d.messageTimestampBeforeMaxMs());
        assertEquals(6000L, d.messageTimestampAfterMaxMs());
    }

    @Test
    void brokerSynonymsAreValidatedUnderTheirOwnNames() {
        assertEquals("Invalid value 5 for configuration log.segment.bytes: Value must be at least 14",
                refused("log.segment.bytes", "5").getMessage());
        refused("log.index.size.max.bytes", "3");
        refused("message.max.bytes", "-1");
        refused("log.message.timestamp.type", "Foo");
        refused("log.message.timestamp.before.max.ms", "-1");
        refused("log.message.timestamp.after.max.ms", "-1");
        refused("log.retention.bytes", "abc");
    }

    @Test
    void topicOverridesApplyOnTopOfBrokerDefaults() {
        LogConfig topic = config("log.retention.hours", "1", "log.segment.bytes", "4096")
                .logConfigDefaults().withOverrides(Map.of("retention.ms", "1000"));
        assertEquals(1000L, topic.retentionMs());
        assertEquals(4096, topic.segmentBytes());
    }

    @Test
    void describeValuesMarksDefaultAndCustom() {
        StoreConfig c = config("log.retention.hours", "1");
        List<String> lines = c.describeValues();
        assertTrue(lines.contains("log.dirs = /data/a (custom)"), lines.toString());
        assertTrue(lines.contains("log.retention.hours = 1 (custom)"), lines.toString());
        assertTrue(lines.contains("log.segment.bytes = 1073741824 (default)"), lines.toString());
        assertTrue(lines.contains("log.retention.ms = null (default)"), lines.toString());
        assertEquals(StoreConfig.configDef().names().size(), lines.size());
    }

    @Test
    void unknownKeysAreReportedNotRefused() {
        StoreConfig c = config("log.retension.hours", "1", "broker.id", "3");
        assertEquals(Set.of("log.retension.hours", "broker.id"), c.unknownKeys());
        assertEquals(LogConfig.DEFAULT, c.logConfigDefaults());
    }

    @Test
    void markdownTableContainsEveryKey() {
        String table = StoreConfig.configDef().toMarkdownTable();
        for (String key : StoreConfig.configDef().names()) {
            assertTrue(table.contains("| `" + key + "` |"), key);
        }
        assertTrue(table.contains("| `log.dirs` | list | (required) | non-empty list |"), table);
    }
}
