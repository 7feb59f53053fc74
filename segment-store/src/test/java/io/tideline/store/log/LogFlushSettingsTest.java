package io.tideline.store.log;

import static io.tideline.store.log.LogTestSupport.batch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.store.config.LogConfig;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.manager.LogManager;
import io.tideline.store.segment.PowerLossFileLayer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * flush.messages fsyncs on the append path and flush.ms from the log flusher (docs/behaviours.md
 * B170-B172); the recovery point moves only after the fsync returned. The clock and the scheduler are
 * mocks: nothing runs until a test ticks them.
 */
class LogFlushSettingsTest {
    private static final String FLUSHER = "kafka-log-flusher";
    private static final TopicPartition TP = new TopicPartition("events", 0);

    @TempDir
    Path tmp;

    private LogTestSupport env;
    private final PowerLossFileLayer disk = new PowerLossFileLayer();
    private LogManager manager;

    @BeforeEach
    void setUp() {
        env = new LogTestSupport(tmp);
    }

    @AfterEach
    void tearDown() {
        if (manager != null) {
            manager.close();
        }
        env.close();
    }

    private Log open(Map<String, ?> config) throws IOException {
        return env.track(Log.open(tmp.resolve("events-0"), LogConfig.fromMap(config), env.time, env.scheduler,
                new Random(1), env.deleter, 0L, 0L, -1L, true, disk));
    }

    private LogManager startManager(Map<String, Object> storeProps) throws IOException {
        Map<String, Object> props = new HashMap<>(storeProps);
        props.put("log.dirs", tmp.resolve("logs").toString());
        props.put("log.flush.offset.checkpoint.interval.ms", 0);
        props.put("log.flush.start.offset.checkpoint.interval.ms", 0);
        manager = new LogManager(StoreConfig.fromMap(props), "cluster-a", 1, env.time, env.scheduler,
                new MetricRegistry(), new Random(5), disk);
        manager.startup();
        return manager;
    }

    @Test
    void theAppendThatReachesFlushMessagesFsyncsTheLogBeforeItReturns() throws IOException {
        Log log = open(Map.of("flush.messages", 3L));
        log.appendAsLeader(batch(env.now(), 1), 0);
        log.appendAsLeader(batch(env.now(), 1), 0);
        assertEquals(0L, log.recoveryPoint());
        assertEquals(0L, disk.segmentFsyncs());

        env.time.sleep(250);
        log.appendAsLeader(batch(env.now(), 1), 0);

        assertEquals(3L, log.recoveryPoint());
        assertEquals(1L, disk.segmentFsyncs());
        assertEquals(env.now(), log.lastFlushTimeMs());
        assertEquals(log.activeSegment().size(), disk.syncedContents(log.activeSegment().log().file()).length);
    }

    @Test
    void flushMessagesCountsRecordsNotBatches() throws IOException {
        Log log = open(Map.of("flush.messages", 5L));
        log.appendAsLeader(batch(env.now(), 4), 0);
        assertEquals(0L, log.recoveryPoint());
        log.appendAsLeader(batch(env.now(), 4), 0);
        assertEquals(8L, log.recoveryPoint());
    }

    @Test
    void followerAppendsFlushByTheSameCount() throws IOException {
        Log log = open(Map.of("flush.messages", 2L));
        log.appendAsFollower(LogTestSupport.followerBatch(0, 0, env.now(), 1));
        assertEquals(0L, log.recoveryPoint());
        log.appendAsFollower(LogTestSupport.followerBatch(1, 0, env.now(), 1));
        assertEquals(2L, log.recoveryPoint());
    }

    @Test
    void theDefaultNeverFsyncsOnTheAppendPath() throws IOException {
        Log log = open(Map.of());
        for (int i = 0; i < 50; i++) {
            log.appendAsLeader(batch(env.now(), 10), 0);
        }
        assertEquals(0L, log.recoveryPoint());
        assertEquals(0L, disk.segmentFsyncs());
    }

    @Test
    void aFailedFsyncFailsTheAppendAndEveryLaterWriteWithKafkaStorageError() throws IOException {
        Log log = open(Map.of("flush.messages", 1L));
        log.appendAsLeader(batch(env.now(), 1), 0);
        disk.failFsyncs(true);

        TidelineException e = assertThrows(TidelineException.class, () -> log.appendAsLeader(batch(env.now(), 1), 0));
        assertEquals(Errors.KAFKA_STORAGE_ERROR, e.error());
        assertEquals(1L, log.recoveryPoint(), "the recovery point stays below the unsynced record");

        disk.failFsyncs(false);
        TidelineException later = assertThrows(TidelineException.class, () -> log.appendAsLeader(batch(env.now(), 1), 0));
        assertEquals(Errors.KAFKA_STORAGE_ERROR, later.error());
        assertEquals(2L, log.logEndOffset(), "the later append wrote nothing");
        assertEquals(1L, log.recoveryPoint());
        log.abandon(); // its dir would go offline; a clean close cannot flush it
    }

    @Test
    void theFlusherFsyncsALogOnceItsLastFlushIsFlushMsOld() throws IOException {
        LogManager manager = startManager(Map.of("log.flush.scheduler.interval.ms", 1_000L));
        Log log = manager.getOrCreateLog(TP, Map.of("flush.ms", 3_000L));
        log.appendAsLeader(batch(env.now(), 5), 0);
        assertTrue(env.scheduler.pendingTaskNames().contains(FLUSHER));

        env.time.sleep(2_000);
        env.scheduler.tick();
        assertEquals(0L, log.recoveryPoint(), "2 s after the open, flush.ms=3000 is not due");

        env.time.sleep(1_000);
        env.scheduler.tick();
        assertEquals(5L, log.recoveryPoint());
        assertEquals(env.now(), log.lastFlushTimeMs());

        log.appendAsLeader(batch(env.now(), 2), 0);
        env.time.sleep(2_000);
        env.scheduler.tick();
        assertEquals(5L, log.recoveryPoint(), "measured from the last flush, not from the open");
        env.time.sleep(1_000);
        env.scheduler.tick();
        assertEquals(7L, log.recoveryPoint());
    }

    @Test
    void theFlusherLeavesLogsWithTheDefaultFlushMsAlone() throws IOException {
        LogManager manager = startManager(Map.of("log.flush.scheduler.interval.ms", 1_000L,
                "log.flush.interval.ms", Long.MAX_VALUE));
        Log log = manager.getOrCreateLog(TP, Map.of());
        log.appendAsLeader(batch(env.now(), 5), 0);
        env.time.sleep(LogTestSupport.DAY_MS);
        env.scheduler.tick();
        assertEquals(0L, log.recoveryPoint());
        assertEquals(0, manager.flushDirtyLogs());
    }

    @Test
    void withoutLogFlushIntervalMsTheFlusherPeriodIsTheDefaultFlushMs() throws IOException {
        LogManager manager = startManager(Map.of("log.flush.scheduler.interval.ms", 1_000L));
        Log log = manager.getOrCreateLog(TP, Map.of());
        assertEquals(1_000L, log.config().flushMs());
        log.appendAsLeader(batch(env.now(), 5), 0);
        env.time.sleep(1_000);
        env.scheduler.tick();
        assertEquals(5L, log.recoveryPoint());
    }

    @Test
    void theFlusherIsNotScheduledAtKafkasDefaultInterval() throws IOException {
        LogManager manager = startManager(Map.of());
        Log log = manager.getOrCreateLog(TP, Map.of("flush.ms", 0L));
        log.appendAsLeader(batch(env.now(), 5), 0);
        assertFalse(env.scheduler.pendingTaskNames().contains(FLUSHER));
        env.time.sleep(LogTestSupport.DAY_MS);
        env.scheduler.tick();
        assertEquals(0L, log.recoveryPoint());
    }

    @Test
    void aFailedFlushByTheFlusherFailsEachLogsWritesAndNeverMovesItsRecoveryPoint() throws IOException {
        LogManager manager = startManager(Map.of("log.flush.scheduler.interval.ms", 1_000L));
        Log first = manager.getOrCreateLog(TP, Map.of("flush.ms", 0L));
        Log second = manager.getOrCreateLog(new TopicPartition("events", 1), Map.of("flush.ms", 0L));
        first.appendAsLeader(batch(env.now(), 1), 0);
        second.appendAsLeader(batch(env.now(), 1), 0);
        disk.failFsyncs(true);
        env.time.sleep(1_000);
        env.scheduler.tick();
        // The disk answers again, but pages a failed fsync dropped are not rewritten: nothing may count as synced.
        disk.failFsyncs(false);
        env.time.sleep(1_000);
        env.scheduler.tick();

        assertTrue(env.scheduler.failures().isEmpty(), env.scheduler.failures().toString());
        for (Log log : new Log[] {first, second}) {
            assertEquals(0L, log.recoveryPoint(), log.toString());
            TidelineException e = assertThrows(TidelineException.class, () -> log.appendAsLeader(batch(env.now(), 1), 0));
            assertEquals(Errors.KAFKA_STORAGE_ERROR, e.error());
            log.abandon(); // its dir would go offline; a clean close cannot flush it
        }
    }
}
