package io.tideline.store.log;

import static io.tideline.store.log.LogTestSupport.baseOffsets;
import static io.tideline.store.log.LogTestSupport.batch;
import static io.tideline.store.log.LogTestSupport.followerBatch;
import static io.tideline.store.log.LogTestSupport.readAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.common.io.FileUtils;
import io.tideline.store.checkpoint.OffsetCheckpointFile;
import io.tideline.store.config.LogConfig;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.segment.LogFileNames;
import io.tideline.store.segment.LogSegment;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A roll fsyncs the closed segment on the scheduler, not on the append path (Kafka's "flush-log"
 * task), and the recovery point moves only once that flush completed. Every test drives the
 * {@code MockScheduler} by hand: {@code scheduler.tick()} runs the flushes the rolls scheduled.
 */
class LogRollFlushTest {
    private static final String FLUSH_TASK = "flush-log";

    @TempDir
    Path tmp;

    private LogTestSupport env;
    private int batchSize;
    private Map<String, Object> config;

    @BeforeEach
    void setUp() {
        env = new LogTestSupport(tmp);
        batchSize = batch(env.now(), 1).sizeInBytes();
        // Three one-record batches per segment.
        config = Map.of("segment.bytes", 3 * batchSize, "retention.ms", -1L, "file.delete.delay.ms", 0L);
    }

    @AfterEach
    void tearDown() {
        env.close();
    }

    private void append(Log log, int batches) {
        for (int i = 0; i < batches; i++) {
            log.appendAsLeader(batch(env.now(), 1), 0);
        }
    }

    private long pendingFlushes() {
        return env.scheduler.pendingTaskNames().stream().filter(FLUSH_TASK::equals).count();
    }

    /** Opens {@code log}'s directory as a restart after a crash would: no clean-shutdown marker. */
    private Log reopenAfterCrash(Path dir, long checkpointedRecoveryPoint) throws IOException {
        return Log.open(dir, LogConfig.fromMap(config), env.time, env.scheduler, new Random(3), env.deleter, 0L,
                checkpointedRecoveryPoint, -1L, false);
    }

    @Test
    void recoveryPointMovesOnlyOnceTheFlushScheduledByTheRollRan() throws Exception {
        Log log = env.open(config);
        append(log, 3);
        assertEquals(0, pendingFlushes(), "no roll, no flush");

        append(log, 1); // rolls at offset 3

        assertEquals(List.of(0L, 3L), baseOffsets(log));
        assertEquals(1, pendingFlushes(), "the roll left the fsync of segment 0 to the scheduler");
        assertEquals(0, log.recoveryPoint(), "nothing is known to be on disk before the flush ran");

        env.scheduler.tick();

        assertEquals(3, log.recoveryPoint(), "flushed below the new segment's base");
        assertEquals(0, pendingFlushes());
        assertEquals(List.of(), env.scheduler.failures());
    }

    @Test
    void recoveryPointCheckpointNeverClaimsASegmentWhoseFlushHasNotRun() throws Exception {
        LogManager manager = env.startManager(Map.of("log.segment.bytes", 3 * batchSize));
        TopicPartition tp = new TopicPartition("orders", 0);
        Log log = manager.getOrCreateLog(tp, Map.of());
        Path checkpoint = tmp.resolve("logs").resolve(LogFileNames.RECOVERY_POINT_CHECKPOINT);
        append(log, 7); // rolls at 3 and 6

        manager.checkpointRecoveryPointsAndHighWatermarks();
        assertEquals(Map.of(tp, 0L), new OffsetCheckpointFile(checkpoint).read(), "both flushes are still pending");

        env.scheduler.tick();
        manager.checkpointRecoveryPointsAndHighWatermarks();
        assertEquals(Map.of(tp, 6L), new OffsetCheckpointFile(checkpoint).read());
    }

    @Test
    void crashBeforeTheFlushRecoversTheClosedSegmentBatchByBatchFromTheOldRecoveryPoint() throws Exception {
        Log log = env.open(config);
        append(log, 7); // segments 0, 3, 6; both flushes pending
        long checkpointed = log.recoveryPoint();
        assertEquals(0, checkpointed);
        Path dir = log.dir();
        log.abandon(); // the crash: the scheduled flushes never ran

        // The page cache lost the end of segment 3, which was never fsynced: half its last batch is gone.
        Path torn = LogFileNames.logFile(dir, 3);
        try (FileChannel channel = FileChannel.open(torn, StandardOpenOption.WRITE)) {
            channel.truncate(2L * batchSize + batchSize / 2);
        }
        env.scheduler.tick(); // the old process's tasks run against an abandoned log: nothing happens

        Log recovered = reopenAfterCrash(dir, checkpointed);

        assertEquals(2, recovered.recoveredSegmentsOnLoad(), "segments 0 and 3 validated; 6 followed a truncation");
        assertEquals(5, recovered.logEndOffset(), "the torn batch (offset 5) and everything after it are gone");
        assertEquals(List.of(0L, 3L), baseOffsets(recovered));
        List<Record> records = readAll(recovered, 0);
        assertEquals(5, records.size());
        assertEquals(List.of(), env.scheduler.failures());
        recovered.close();
    }

    @Test
    void retentionDeletingSegmentsWhoseFlushIsPendingLeavesTheFlushQuiet() throws Exception {
        Map<String, Object> sized = new java.util.HashMap<>(config);
        sized.put("retention.bytes", (long) 3 * batchSize); // keep about one segment
        Log log = env.open(sized);
        append(log, 10); // segments 0, 3, 6, 9; three flushes pending
        assertEquals(3, pendingFlushes());

        int deleted = log.deleteOldSegments();
        env.deleter.unlinkAllNow(); // the deleted segments' files are unmapped, closed and unlinked first

        assertEquals(2, deleted);
        assertEquals(List.of(6L, 9L), baseOffsets(log));
        env.scheduler.tick();
        assertEquals(List.of(), env.scheduler.failures(), "no exception from flushing deleted segments");
        assertEquals(9, log.recoveryPoint(), "the surviving closed segment was flushed");
        append(log, 1);
        assertEquals(11, log.logEndOffset(), "the log goes on taking appends");
    }

    @Test
    void flushOfASegmentDeletedAndClosedUnderItIsSkipped() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("segment-0"));
        LogSegment segment = LogSegment.open(dir, 0L, 4096, 4096, 0L, true, env.time);
        MemoryRecords records = batch(env.now(), 1);
        segment.append(records, records.batches());
        assertTrue(segment.flush());

        segment.closeAndDeleteFiles(); // what the deleter does once file.delete.delay.ms has passed

        assertFalse(segment.flush(), "a released segment has nothing left to flush and does not throw");
    }

    @Test
    void truncationVoidsAFlushScheduledBeforeIt() throws Exception {
        int followerBatchSize = followerBatch(0, 0, env.now(), 1).sizeInBytes();
        Log log = env.open(Map.of("segment.bytes", 3 * followerBatchSize, "retention.ms", -1L));
        log.stopFollowingLogEndWithHighWatermark();
        for (int offset = 0; offset < 4; offset++) {
            log.appendAsFollower(followerBatch(offset, 0, env.now(), 1)); // rolls at 3
        }
        assertEquals(1, pendingFlushes());

        log.truncateTo(1); // a divergent tail: offsets 1.. go, segment 3 with them
        for (int offset = 1; offset < 3; offset++) {
            log.appendAsFollower(followerBatch(offset, 1, env.now(), 1)); // new data at 1 and 2, not fsynced
        }
        env.scheduler.tick();

        assertEquals(List.of(0L), baseOffsets(log));
        assertEquals(0, log.recoveryPoint(),
                "offsets 1 and 2 now hold data written after the flush was scheduled: it must not claim them");
        assertEquals(List.of(), env.scheduler.failures());
    }

    @Test
    void closeWithAPendingFlushFlushesEverythingItselfAndTheLateTaskDoesNothing() throws Exception {
        Log log = env.open(config);
        append(log, 5);
        assertEquals(1, pendingFlushes());

        log.close();

        assertEquals(5, log.recoveryPoint(), "close flushes up to the log end");
        env.scheduler.tick();
        assertEquals(5, log.recoveryPoint());
        assertEquals(List.of(), env.scheduler.failures());
    }

    @Test
    void logDeletedWithAPendingFlushLeavesTheFlushQuiet() throws Exception {
        LogManager manager = env.startManager(Map.of("log.segment.bytes", 3 * batchSize));
        TopicPartition tp = new TopicPartition("orders", 0);
        Log log = manager.getOrCreateLog(tp, Map.of());
        append(log, 5);
        assertEquals(1, pendingFlushes());

        manager.deleteLog(tp); // closes the log, removes its directory

        assertFalse(Files.exists(log.dir()));
        env.scheduler.tick();
        assertEquals(List.of(), env.scheduler.failures());
    }

    @Test
    void failedFlushFailsTheNextAppendWithAStorageErrorAndNeverMovesTheRecoveryPoint() throws Exception {
        Log log = env.open(config);
        append(log, 4);
        // The partition directory disappears under the open log (a failing or unmounted disk): the
        // flush cannot make the new segment's directory entry durable.
        FileUtils.deleteRecursively(log.dir());

        env.scheduler.tick();

        assertEquals(0, log.recoveryPoint());
        TidelineException error = assertThrows(TidelineException.class, () -> append(log, 1));
        assertEquals(Errors.KAFKA_STORAGE_ERROR, error.error());
        assertTrue(error.getMessage().contains("flush"), error.getMessage());
        log.abandon();
    }

    @Test
    void flushesOfConsecutiveRollsAdvanceTheRecoveryPointInOrder() throws Exception {
        Log log = env.open(config);
        append(log, 10); // rolls at 3, 6, 9

        env.scheduler.tick();

        assertEquals(9, log.recoveryPoint());
        MemoryRecords one = batch(env.now(), 1);
        log.appendAsLeader(one, 0);
        log.flush();
        assertEquals(11, log.recoveryPoint(), "an explicit flush takes it to the log end");
    }
}
