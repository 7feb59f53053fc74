package io.tideline.store.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.store.checkpoint.OffsetCheckpointFile;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.log.Log;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.segment.LogFileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Logs know their topic (docs/behaviours.md B130-B132): each partition directory holds its topic id in
 * {@code partition.metadata}, and a log of another topic id is set aside for deletion, never served.
 */
class LogTopicIdTest {
    private static final TopicPartition TP = new TopicPartition("st", 0);
    private static final String OLD_ID = "Xb3nS4gHQ0y8mC1kqA7dPw";
    private static final String NEW_ID = "q9Zr0Lw2TmWc5V-hJ1u_Ag";
    private static final long DELETE_DELAY_MS = 60_000L;

    @TempDir
    Path root;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final List<LogManager> running = new ArrayList<>();

    @AfterEach
    void tearDown() {
        for (LogManager manager : running) {
            manager.closeWithoutShutdown();
        }
    }

    private Path logDir() {
        return root.resolve("data");
    }

    private LogManager start() throws IOException {
        LogManager manager = new LogManager(StoreConfig.fromMap(Map.of("log.dirs", logDir().toString(),
                "log.segment.bytes", 1024, "file.delete.delay.ms", DELETE_DELAY_MS)), "cluster-A", 1, time, scheduler,
                new MetricRegistry(), new Random(5));
        running.add(manager);
        manager.startup();
        return manager;
    }

    private void close(LogManager manager) {
        manager.close();
        running.remove(manager);
    }

    private static void append(Log log, int batches, String prefix) {
        for (int b = 0; b < batches; b++) {
            long first = log.logEndOffset();
            RecordBatchBuilder builder = new RecordBatchBuilder(0);
            for (int r = 0; r < 3; r++) {
                builder.append(0L, "k", prefix + "-" + (first + r));
            }
            log.appendAsLeader(builder.buildRecords(), 0);
        }
        log.updateHighWatermark(log.logEndOffset());
    }

    private Path metadataFile() {
        return logDir().resolve(TP.directoryName()).resolve(LogFileNames.PARTITION_METADATA);
    }

    private List<String> logDirEntries() throws IOException {
        try (Stream<Path> children = Files.list(logDir())) {
            return children.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aNewLogHoldsItsTopicIdInKafkasFormatBeforeAnyData() throws IOException {
        LogManager manager = start();
        Log log = manager.getOrCreateLog(TP, OLD_ID, Map.of());
        assertEquals(0, log.logEndOffset());
        assertEquals("version: 0\ntopic_id: " + OLD_ID, Files.readString(metadataFile()));
        assertEquals(Optional.of(OLD_ID), manager.topicId(TP));
        assertSame(log, manager.getOrCreateLog(TP, OLD_ID, Map.of()), "the same topic gets the same log");
    }

    @Test
    void aLogOfTheSameTopicIsServedAgainAfterARestart() throws IOException {
        LogManager manager = start();
        append(manager.getOrCreateLog(TP, OLD_ID, Map.of()), 4, "old");
        close(manager);

        LogManager restarted = start();
        assertEquals(Optional.of(OLD_ID), restarted.topicId(TP));
        assertEquals(12, restarted.getOrCreateLog(TP, OLD_ID, Map.of()).logEndOffset());
    }

    @Test
    void aLogOfAnotherTopicIdIsRenamedForDeletionAndThePartitionStartsEmpty() throws IOException {
        LogManager manager = start();
        append(manager.getOrCreateLog(TP, OLD_ID, Map.of()), 10, "old");
        close(manager);

        LogManager restarted = start();
        Log oldLog = restarted.getLog(TP).orElseThrow();
        assertEquals(30, oldLog.logEndOffset(), "loaded: the store alone cannot tell which topic is current");
        Log log = restarted.getOrCreateLog(TP, NEW_ID, Map.of());

        assertNotSame(oldLog, log);
        assertTrue(oldLog.isClosed(), "the old log is never served again");
        assertEquals(0, log.logEndOffset());
        assertEquals(0, log.logStartOffset());
        assertEquals(0, log.highWatermark());
        assertEquals(Optional.of(NEW_ID), restarted.topicId(TP));
        assertEquals("version: 0\ntopic_id: " + NEW_ID, Files.readString(metadataFile()));
        assertEquals(List.of("st-0", "st-0." + OLD_ID + ".deleted"), logDirEntries());
        assertEquals(Map.of(), new OffsetCheckpointFile(logDir().resolve(LogFileNames.REPLICATION_OFFSET_CHECKPOINT))
                .read(), "no offset of the old log is left to apply to the new one");
        assertEquals(Map.of(), new OffsetCheckpointFile(logDir().resolve(LogFileNames.LOG_START_OFFSET_CHECKPOINT))
                .read());

        time.advance(DELETE_DELAY_MS - 1);
        scheduler.tick();
        assertEquals(List.of("st-0", "st-0." + OLD_ID + ".deleted"), logDirEntries(), "kept for file.delete.delay.ms");
        time.advance(1);
        scheduler.tick();
        assertEquals(List.of("st-0"), logDirEntries());

        append(log, 2, "new");
        close(restarted);
        LogManager again = start();
        assertEquals(6, again.getOrCreateLog(TP, NEW_ID, Map.of()).logEndOffset());
    }

    @Test
    void aDirectoryLeftRenamedForDeletionIsRemovedAtStartAndNeverLoaded() throws IOException {
        LogManager manager = start();
        append(manager.getOrCreateLog(TP, OLD_ID, Map.of()), 3, "old");
        manager.getOrCreateLog(TP, NEW_ID, Map.of());
        // A crash before file.delete.delay.ms: the renamed directory is still there at the next start.
        manager.closeWithoutShutdown();
        running.remove(manager);
        assertTrue(logDirEntries().contains("st-0." + OLD_ID + ".deleted"));

        LogManager restarted = start();
        assertEquals(List.of("st-0"), logDirEntries());
        assertEquals(1, restarted.allLogs().size());
        assertEquals(Optional.of(NEW_ID), restarted.topicId(TP));
        assertEquals(0, restarted.getLog(TP).orElseThrow().logEndOffset());
    }

    @Test
    void aLogWithoutATopicIdTakesTheMetadatasIdAndKeepsItsRecords() throws IOException {
        LogManager manager = start();
        Log log = manager.getOrCreateLog(TP, Map.of());
        append(log, 3, "old");
        assertFalse(Files.exists(metadataFile()), "a log made without metadata has no id, as one from before ids");
        assertEquals(Optional.empty(), manager.topicId(TP));

        assertSame(log, manager.getOrCreateLog(TP, NEW_ID, Map.of()));
        assertEquals(9, log.logEndOffset());
        assertEquals("version: 0\ntopic_id: " + NEW_ID, Files.readString(metadataFile()));
        assertEquals(Optional.of(NEW_ID), manager.topicId(TP));
    }

    @Test
    void anUnreadablePartitionMetadataFileCountsAsNoIdAndIsRewritten() throws IOException {
        LogManager manager = start();
        append(manager.getOrCreateLog(TP, OLD_ID, Map.of()), 2, "old");
        close(manager);
        Files.writeString(metadataFile(), "version: 7\ntopic_id: " + OLD_ID);

        LogManager restarted = start();
        assertEquals(Optional.empty(), restarted.topicId(TP));
        assertEquals(6, restarted.getOrCreateLog(TP, NEW_ID, Map.of()).logEndOffset());
        assertEquals("version: 0\ntopic_id: " + NEW_ID, Files.readString(metadataFile()));
    }
}
