package io.tideline.store.cleaner;

import static io.tideline.store.cleaner.CleanerFixture.readRecords;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.log.Log;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatchBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cleaner as the store runs it: scheduled on the store's scheduler, driven by the mock clock. */
class LogCleanerIntegrationTest {
    @TempDir
    Path root;
    final MockTime time = new MockTime();
    final MockScheduler scheduler = new MockScheduler(time);
    final MetricRegistry metrics = new MetricRegistry();
    LogManager manager;

    @AfterEach
    void tearDown() {
        if (manager != null) {
            manager.close();
        }
    }

    private LogManager start(Map<String, Object> extra) throws Exception {
        Map<String, Object> props = new HashMap<>(extra);
        props.put("log.dirs", root.resolve("logs").toString());
        props.put("log.flush.offset.checkpoint.interval.ms", 0);
        props.put("log.flush.start.offset.checkpoint.interval.ms", 0);
        props.put("log.cleaner.dedupe.buffer.size", 1 << 20);
        props.put("log.cleaner.backoff.ms", 1000L);
        props.putIfAbsent("log.retention.check.interval.ms", 60_000L);
        manager = new LogManager(StoreConfig.fromMap(props), "cluster-a", 1, time, scheduler, metrics, new Random(5));
        manager.startup();
        return manager;
    }

    private static Map<String, Object> topic(String policy) {
        Map<String, Object> config = new HashMap<>();
        config.put("cleanup.policy", policy);
        config.put("segment.bytes", 500);
        config.put("min.cleanable.dirty.ratio", 0.5);
        return config;
    }

    private void writeKeys(Log log, int count, int keys) {
        for (int i = 0; i < count; i++) {
            log.appendAsLeader(new RecordBatchBuilder(0).append(time.milliseconds(), "k" + (i % keys), "v" + i)
                    .buildRecords(), 0);
        }
        log.roll(log.logEndOffset());
    }

    @SuppressWarnings("unchecked")
    private int gauge(String name) {
        return ((Gauge<Integer>) metrics.getGauges().get(name)).getValue();
    }

    @Test
    void theScheduledCleanerCompactsTheDirtiestLogAndCheckpointsItsFirstDirtyOffset() throws Exception {
        start(Map.of());
        TopicPartition tp = new TopicPartition("orders", 0);
        Log log = manager.getOrCreateLog(tp, topic("compact"));
        writeKeys(log, 60, 3);
        CleanerLogState before = manager.describeCleaning(tp).orElseThrow();
        assertTrue(before.cleanable());
        assertTrue(before.segments().stream().limit(before.segments().size() - 1)
                .allMatch(v -> v.verdict().startsWith("dirty")), before.segments().toString());
        assertTrue(before.segments().get(before.segments().size() - 1).verdict().contains("active segment"));
        assertEquals(0, before.firstDirtyOffset());
        assertEquals(1.0, before.dirtyRatio());

        time.advance(1000L);
        List<Record> records = readRecords(log);
        assertEquals(List.of(57L, 58L, 59L), records.stream().map(Record::offset).toList());
        Path checkpoint = root.resolve("logs").resolve("cleaner-offset-checkpoint");
        assertEquals(List.of("0", "1", "orders 0 60"), Files.readAllLines(checkpoint));
        CleanerLogState after = manager.describeCleaning(tp).orElseThrow();
        assertEquals(60, after.firstDirtyOffset());
        assertEquals(0.0, after.dirtyRatio());
        assertFalse(after.cleanable());
        assertTrue(after.segments().get(0).verdict().startsWith("clean"), after.segments().toString());
        assertEquals(time.milliseconds(), after.lastCleaningMs());
        assertEquals(0, gauge("kafka.log:type=LogCleanerManager,name=max-dirty-percent"), "the next look found it clean");
        assertTrue(metrics.getGauges().keySet().containsAll(List.of("kafka.log:type=LogCleaner,name=max-clean-time-secs",
                "kafka.log:type=LogCleaner,name=max-buffer-utilization-percent")));
        assertTrue(gauge("kafka.log:type=LogCleaner,name=cleaner-recopy-percent") < 20);
        assertEquals(0, gauge("kafka.log:type=LogCleaner,name=max-compaction-delay-secs"));
    }

    @Test
    void aLogBelowItsDirtyRatioWaitsUntilMaxCompactionLag() throws Exception {
        start(Map.of());
        TopicPartition tp = new TopicPartition("orders", 0);
        Map<String, Object> config = topic("compact");
        config.put("min.cleanable.dirty.ratio", 0.99);
        config.put("max.compaction.lag.ms", 60_000L);
        Log log = manager.getOrCreateLog(tp, config);
        writeKeys(log, 30, 30);
        time.advance(1000L);
        assertEquals(30, manager.describeCleaning(tp).orElseThrow().firstDirtyOffset(), "a new log is all dirty");
        writeKeys(log, 3, 3);
        time.advance(30_000L);
        CleanerLogState waiting = manager.describeCleaning(tp).orElseThrow();
        assertEquals(30, waiting.firstDirtyOffset(), "below the ratio and younger than max.compaction.lag.ms");
        assertFalse(waiting.cleanable());
        time.advance(31_000L);
        assertEquals(33, manager.describeCleaning(tp).orElseThrow().firstDirtyOffset(),
                "past max.compaction.lag.ms the log is cleaned whatever its ratio (B180)");
    }

    @Test
    void aPausedLogIsNotCleanedUntilResumed() throws Exception {
        start(Map.of());
        TopicPartition tp = new TopicPartition("orders", 0);
        Log log = manager.getOrCreateLog(tp, topic("compact"));
        writeKeys(log, 60, 3);
        LogCleanerManager cleanerManager = manager.cleaner().orElseThrow().manager();
        cleanerManager.abortAndPauseCleaning(tp);
        time.advance(5000L);
        assertEquals("PAUSED", manager.describeCleaning(tp).orElseThrow().state());
        assertEquals(60, readRecords(log).size());
        cleanerManager.resumeCleaning(tp);
        time.advance(1000L);
        assertEquals(3, readRecords(log).size());
    }

    @Test
    void timeRetentionAppliesToCompactDeleteLogsButNotToCompactOnlyLogs() throws Exception {
        start(Map.of("log.cleaner.threads", 0));
        Map<String, Object> compactOnly = topic("compact");
        compactOnly.put("retention.ms", 1000L);
        Map<String, Object> compactDelete = topic("compact,delete");
        compactDelete.put("retention.ms", 1000L);
        Log a = manager.getOrCreateLog(new TopicPartition("a", 0), compactOnly);
        Log b = manager.getOrCreateLog(new TopicPartition("b", 0), compactDelete);
        writeKeys(a, 30, 30);
        writeKeys(b, 30, 30);
        time.advance(120_000L);
        assertEquals(0, a.logStartOffset(), "compact only: no time retention (B191)");
        assertEquals(30, b.logStartOffset(), "compact,delete: retention as before (B191)");
        assertTrue(manager.cleaner().isEmpty());
    }

    @Test
    void theThrottlerHoldsReadsAndWritesToTheConfiguredRate() {
        Throttler throttler = new Throttler(1000.0, 100, time);
        long start = time.milliseconds();
        for (int i = 0; i < 30; i++) {
            throttler.maybeThrottle(100);
        }
        long elapsed = time.milliseconds() - start;
        assertTrue(elapsed >= 2900 && elapsed <= 3000, "3,000 bytes at 1,000 B/s took " + elapsed + " ms");
    }
}
