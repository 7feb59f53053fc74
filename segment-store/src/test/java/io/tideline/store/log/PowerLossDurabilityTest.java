package io.tideline.store.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.segment.PowerLossFileLayer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each flush setting keeps when every replica of a partition loses power at once (docs/storage.md,
 * Durability; docs/behaviours.md B170-B173). Three replicas, each a {@link LogManager} over its own log dir,
 * share one mock clock and scheduler and one {@link PowerLossFileLayer}. A produce is acknowledged as
 * acks=all is: the leader appended it and both followers appended what they fetched from the leader. Then
 * every replica crashes (recovery points checkpointed just before, the worst case for the store's own
 * bookkeeping), the layer drops every byte not fsynced, and the replicas restart from what is left.
 */
class PowerLossDurabilityTest {
    private static final TopicPartition TP = new TopicPartition("events", 0);
    private static final int REPLICAS = 3;
    private static final long FLUSH_INTERVAL_MS = 1_000L;

    @TempDir
    Path root;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final PowerLossFileLayer disk = new PowerLossFileLayer();
    private final List<LogManager> managers = new ArrayList<>();
    private int batchSize;

    @BeforeEach
    void setUp() {
        batchSize = record(0).sizeInBytes();
    }

    @AfterEach
    void tearDown() {
        for (LogManager manager : managers) {
            manager.close();
        }
    }

    /** Four one-record batches per segment, so a run of 30 records rolls several times. */
    private Map<String, Object> topicConfig(Map<String, Object> flushSettings) {
        Map<String, Object> config = new HashMap<>(flushSettings);
        config.putIfAbsent("segment.bytes", 4 * batchSize);
        config.put("segment.index.bytes", 4096);
        return config;
    }

    @Test
    void defaultsKeepOnlyWhatTheRollFlushesSyncedAndLoseTheAcknowledgedTail() throws IOException {
        List<Log> logs = startReplicas(Map.of(), Map.of());
        produce(logs, 0, 30);
        List<Long> recoveryPoints = logs.stream().map(Log::recoveryPoint).toList();
        // The roll flushes ran: every closed segment is on disk; the active segment's 2 records are not.
        assertEquals(List.of(28L, 28L, 28L), recoveryPoints);

        List<Log> recovered = powerLossAndRestart(Map.of(), Map.of());

        for (Log log : recovered) {
            assertEquals(28L, log.logEndOffset(), "acknowledged records 28 and 29 are lost on every replica");
            assertIntactPrefix(log, 28);
        }
    }

    @Test
    void flushMessagesOfOneKeepsEveryAcknowledgedRecord() throws IOException {
        Map<String, Object> flush = Map.of("flush.messages", 1L);
        List<Log> logs = startReplicas(flush, Map.of());
        produce(logs, 0, 30);

        List<Log> recovered = powerLossAndRestart(flush, Map.of());

        for (Log log : recovered) {
            assertEquals(30L, log.logEndOffset());
            assertIntactPrefix(log, 30);
        }
    }

    @Test
    void flushMessagesOfTenKeepsRecordsUpToTheLastMultipleOfTen() throws IOException {
        // One segment: the append of record 9 synced 0-9, that of record 19 synced 10-19.
        Map<String, Object> flush = Map.of("flush.messages", 10L, "segment.bytes", 40 * batchSize);
        List<Log> logs = startReplicas(flush, Map.of());
        produce(logs, 0, 27);
        logs.forEach(log -> assertEquals(20L, log.recoveryPoint()));

        List<Log> recovered = powerLossAndRestart(flush, Map.of());

        for (Log log : recovered) {
            assertEquals(20L, log.logEndOffset());
            assertIntactPrefix(log, 20);
        }
    }

    @Test
    void flushMsKeepsWhatTheFlusherSyncedBeforeThePowerLoss() throws IOException {
        Map<String, Object> flush = Map.of("flush.ms", 5_000L, "segment.bytes", 100 * batchSize);
        Map<String, Object> store = Map.of("log.flush.scheduler.interval.ms", FLUSH_INTERVAL_MS);
        List<Log> logs = startReplicas(flush, store);
        produce(logs, 0, 10);
        // The flusher runs every second but syncs a log only once its last flush is 5 s old.
        advance(4_000L);
        logs.forEach(log -> assertEquals(0L, log.recoveryPoint()));
        advance(1_000L);
        logs.forEach(log -> assertEquals(10L, log.recoveryPoint()));
        produce(logs, 10, 7); // acknowledged, but the clock does not reach the next due flush

        List<Log> recovered = powerLossAndRestart(flush, store);

        for (Log log : recovered) {
            assertEquals(10L, log.logEndOffset());
            assertIntactPrefix(log, 10);
        }
    }

    @Test
    void flushMsWithoutTheFlusherRunningKeepsNoMoreThanTheDefaults() throws IOException {
        // log.flush.scheduler.interval.ms keeps its default: the flusher never runs, as in Kafka.
        Map<String, Object> flush = Map.of("flush.ms", 0L, "segment.bytes", 100 * batchSize);
        List<Log> logs = startReplicas(flush, Map.of());
        produce(logs, 0, 10);
        advance(60_000L);

        List<Log> recovered = powerLossAndRestart(flush, Map.of());

        for (Log log : recovered) {
            assertEquals(0L, log.logEndOffset());
        }
    }

    // ---------------------------------------------------------------- the replicated setup

    private List<Log> startReplicas(Map<String, Object> flushSettings, Map<String, Object> storeProps) throws IOException {
        List<Log> logs = new ArrayList<>();
        for (int node = 1; node <= REPLICAS; node++) {
            LogManager manager = startManager(node, storeProps);
            logs.add(manager.getOrCreateLog(TP, topicConfig(flushSettings)));
        }
        return logs;
    }

    private LogManager startManager(int node, Map<String, Object> storeProps) throws IOException {
        Map<String, Object> props = new HashMap<>(storeProps);
        props.put("log.dirs", root.resolve("node-" + node).toString());
        // Checkpoints are written by hand right before the power loss.
        props.put("log.flush.offset.checkpoint.interval.ms", 0);
        props.put("log.flush.start.offset.checkpoint.interval.ms", 0);
        LogManager manager = new LogManager(StoreConfig.fromMap(props), "cluster-a", node, time, scheduler,
                new MetricRegistry(), new Random(node), disk);
        manager.startup();
        managers.add(manager);
        return manager;
    }

    /**
     * Produces records {@code from} to {@code from + count - 1}, one batch each, acks=all: the leader (the
     * first log) appends, each follower fetches from its end and appends what the leader returned. The
     * scheduler runs after each produce, as a broker's runs the roll's flush right after it.
     */
    private void produce(List<Log> logs, int from, int count) throws IOException {
        Log leader = logs.get(0);
        for (int i = from; i < from + count; i++) {
            assertEquals(i, leader.appendAsLeader(record(i), 0).firstOffset());
            for (Log follower : logs.subList(1, logs.size())) {
                try (FetchDataInfo fetch = leader.read(follower.logEndOffset(), Integer.MAX_VALUE,
                        leader.logEndOffset(), true)) {
                    follower.appendAsFollower(fetch.records().toMemoryRecords());
                }
                assertEquals(i + 1, follower.logEndOffset());
            }
            scheduler.tick();
        }
    }

    private void advance(long ms) {
        time.sleep(ms);
        scheduler.tick();
    }

    /** Every replica crashes at once after checkpointing, loses its unsynced bytes, and restarts. */
    private List<Log> powerLossAndRestart(Map<String, Object> flushSettings, Map<String, Object> storeProps)
            throws IOException {
        for (LogManager manager : managers) {
            manager.checkpointRecoveryPointsAndHighWatermarks();
            manager.closeWithoutShutdown();
        }
        managers.clear();
        disk.powerLoss(root);
        List<Log> logs = new ArrayList<>();
        for (int node = 1; node <= REPLICAS; node++) {
            LogManager manager = startManager(node, storeProps);
            manager.updateTopicConfig(TP.topic(), topicConfig(flushSettings));
            logs.add(manager.getLog(TP).orElseThrow());
        }
        return logs;
    }

    // ---------------------------------------------------------------- records

    private static MemoryRecords record(int i) {
        // Fixed-width values: every batch has the same size, so segment.bytes counts batches.
        return new RecordBatchBuilder(0).append(1_000L + i, String.format("k-%03d", i), value(i)).buildRecords();
    }

    private static String value(int i) {
        return String.format("v-%03d", i);
    }

    /**
     * The log holds exactly records 0 to {@code count - 1} as produced, each in a batch whose CRC checks,
     * and a read past them finds nothing: no torn or foreign bytes are served.
     */
    private static void assertIntactPrefix(Log log, int count) throws IOException {
        assertEquals(0L, log.logStartOffset());
        List<Record> records = new ArrayList<>();
        long next = 0;
        while (next < log.logEndOffset()) {
            try (FetchDataInfo fetch = log.read(next, Integer.MAX_VALUE, log.logEndOffset(), true)) {
                MemoryRecords read = fetch.records().toMemoryRecords();
                for (RecordBatch batch : read.batches()) {
                    batch.ensureValid();
                }
                List<Record> chunk = read.records();
                assertTrue(!chunk.isEmpty(), "a read at " + next + " below the end " + log.logEndOffset() + " is empty");
                records.addAll(chunk);
                next = chunk.get(chunk.size() - 1).offset() + 1;
            }
        }
        assertEquals(count, records.size());
        for (int i = 0; i < count; i++) {
            assertEquals(i, records.get(i).offset());
            assertArrayEquals(value(i).getBytes(StandardCharsets.UTF_8), records.get(i).value());
        }
    }
}
