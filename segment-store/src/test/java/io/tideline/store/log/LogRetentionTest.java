package io.tideline.store.log;

import static io.tideline.store.log.LogTestSupport.DAY_MS;
import static io.tideline.store.log.LogTestSupport.HOUR_MS;
import static io.tideline.store.log.LogTestSupport.baseOffsets;
import static io.tideline.store.log.LogTestSupport.batch;
import static io.tideline.store.log.LogTestSupport.batchWithTimestamps;
import static io.tideline.store.log.LogTestSupport.fileNames;
import static io.tideline.store.log.LogTestSupport.readAll;
import static io.tideline.store.log.LogTestSupport.segmentFiles;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.store.config.LogConfig;
import io.tideline.store.index.TxnIndex;
import io.tideline.store.manager.LogManager;
import io.tideline.store.segment.LogFileNames;
import io.tideline.store.segment.LogSegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention and deletion (docs/behaviours.md B8-B21): which segments a pass deletes, which it
 * never touches, and how their files leave the disk.
 */
class LogRetentionTest {
    private static final String[] SEGMENT_SUFFIXES = {LogFileNames.LOG_SUFFIX, LogFileNames.INDEX_SUFFIX,
        LogFileNames.TIME_INDEX_SUFFIX};

    @TempDir
    Path tmp;

    private LogTestSupport env;

    @BeforeEach
    void setUp() {
        env = new LogTestSupport(tmp);
    }

    @AfterEach
    void tearDown() {
        env.close();
    }

    /**
     * A log with one closed segment of 10 records per timestamp given (segment i holds offsets
     * [10 i, 10 i + 10), all records with that timestamp) and an active segment holding one fresh batch.
     */
    private Log logWithClosedSegments(Map<String, ?> config, long... timestamps) throws Exception {
        Log log = env.open(config);
        for (long ts : timestamps) {
            log.appendAsLeader(batch(ts, 10), 0);
            log.roll(log.logEndOffset());
        }
        log.appendAsLeader(batch(env.now(), 10), 0);
        return log;
    }

    private static Map<String, Object> config(Object... keyValues) {
        Map<String, Object> map = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put((String) keyValues[i], keyValues[i + 1]);
        }
        return map;
    }

    private static List<String> deletedFiles(Path dir) {
        return fileNames(dir).stream().filter(n -> n.endsWith(LogFileNames.DELETED_SUFFIX)).toList();
    }

    // ---------------------------------------------------------------- cleanup.policy (docs/behaviours.md B220, B221)

    @Test
    void aCompactOnlyLogIsNotDeletedByTimeOrSizeButCompactDeleteIs() throws Exception {
        long old = env.now() - 30 * DAY_MS;
        Log compact = logWithClosedSegments(config("cleanup.policy", "compact", "retention.ms", DAY_MS,
                "retention.bytes", 1L), old, old, old);
        long endBefore = compact.logEndOffset();
        assertEquals(0, compact.deleteOldSegments());
        assertEquals(4, compact.numberOfSegments());
        assertEquals(0L, compact.logStartOffset());
        assertEquals(-1L, compact.retentionView(env.now()).retentionMs(), "the limit retention applies");

        // The same history under compact,delete: retention applies as under delete.
        compact.updateConfig(compact.config().withOverrides(Map.of("cleanup.policy", "compact,delete")));
        assertEquals(3, compact.deleteOldSegments());
        assertEquals(30L, compact.logStartOffset());
        assertEquals(endBefore, compact.logEndOffset());
    }

    @Test
    void deleteRecordsOnACompactOnlyLogIsAPolicyViolationAndChangesNothing() throws Exception {
        Log log = logWithClosedSegments(config("cleanup.policy", "compact"), env.now(), env.now());
        log.updateHighWatermark(log.logEndOffset());
        assertEquals(new DeleteRecordsResult(Errors.POLICY_VIOLATION, -1L), log.deleteRecords(15));
        assertEquals(0L, log.logStartOffset());
        assertEquals(30, readAll(log, 0).size());
        log.updateConfig(log.config().withOverrides(Map.of("cleanup.policy", "delete,compact")));
        assertEquals(new DeleteRecordsResult(Errors.NONE, 15L), log.deleteRecords(15));
    }

    // ---------------------------------------------------------------- the active segment (docs/behaviours.md B9)

    @Test
    void activeSegmentIsNeverDeletedEvenWhenExpired() throws Exception {
        Log log = env.open(config("retention.ms", 7 * DAY_MS));
        long thirtyDaysAgo = env.now() - 30 * DAY_MS;
        log.appendAsLeader(batch(thirtyDaysAgo, 10), 0);
        long size = log.size();

        for (int i = 0; i < 12; i++) {
            assertEquals(0, log.deleteOldSegments());
            env.time.advance(30 * DAY_MS);
        }

        assertEquals(1, log.numberOfSegments());
        assertEquals(0L, log.logStartOffset());
        assertEquals(size, log.size());
        assertEquals(10, readAll(log, 0).size());
        assertEquals(List.of(), deletedFiles(log.dir()));
    }

    @Test
    void idleExpiredActiveSegmentSurvivesEveryRunOfTheRetentionTask() throws Exception {
        LogManager manager = env.startManager(config("log.retention.check.interval.ms", HOUR_MS));
        Log log = manager.getOrCreateLog(new TopicPartition("orders", 0), config("retention.ms", 7 * DAY_MS));
        log.appendAsLeader(batch(env.now() - 30 * DAY_MS, 10), 0);

        env.time.advance(60 * DAY_MS); // 1440 runs of the retention task

        assertEquals(1, log.numberOfSegments(), "neither deleted nor rolled by the clock alone");
        assertEquals(0L, log.logStartOffset());
        assertEquals(10, readAll(log, 0).size());
    }

    // ----------------------------------------------- record times, not file times (docs/behaviours.md B11)

    @Test
    void closedSegmentWithOneRecordInsideRetentionStaysWhole() throws Exception {
        // segment.ms long enough that the 29 days between the records do not roll the segment.
        Log log = env.open(config("retention.ms", 7 * DAY_MS, "segment.ms", 365 * DAY_MS));
        long old = env.now() - 30 * DAY_MS;
        long young = env.now() - DAY_MS;
        // The young record is neither the first nor the last of the segment: it is its largest timestamp.
        log.appendAsLeader(batch(old, 10), 0);
        log.appendAsLeader(batchWithTimestamps(old, young, old), 0);
        log.appendAsLeader(batch(old, 10), 0);
        log.roll(log.logEndOffset());
        log.appendAsLeader(batch(env.now(), 1), 0);
        LogSegment first = log.segments().get(0);
        int firstSize = first.size();

        assertEquals(0, log.deleteOldSegments());
        env.time.advance(6 * DAY_MS); // the young record is now exactly retention.ms old
        assertEquals(0, log.deleteOldSegments());

        assertEquals(List.of(0L, 23L), baseOffsets(log));
        assertEquals(firstSize, first.size(), "the segment stays whole, old records included");
        assertEquals(0L, log.logStartOffset());
        assertEquals(24, readAll(log, 0).size());

        env.time.advance(1);
        assertEquals(1, log.deleteOldSegments(), "deleted once its largest timestamp is past retention");
        assertEquals(23L, log.logStartOffset());
    }

    @Test
    void ancientFileTimesDoNotExpireYoungRecords() throws Exception {
        Log log = logWithClosedSegments(config("retention.ms", 7 * DAY_MS), env.now() - DAY_MS, env.now() - DAY_MS);
        FileTime longAgo = FileTime.fromMillis(env.now() - 3650 * DAY_MS);
        for (String name : fileNames(log.dir())) {
            Files.setLastModifiedTime(log.dir().resolve(name), longAgo);
        }

        assertEquals(0, log.deleteOldSegments());

        assertEquals(3, log.numberOfSegments());
        assertEquals(0L, log.logStartOffset());
    }

    @Test
    void freshFileTimesDoNotKeepOldRecords() throws Exception {
        Log log = logWithClosedSegments(config("retention.ms", 7 * DAY_MS), env.now() - 30 * DAY_MS,
                env.now() - 30 * DAY_MS);
        FileTime justNow = FileTime.fromMillis(env.now());
        for (String name : fileNames(log.dir())) {
            Files.setLastModifiedTime(log.dir().resolve(name), justNow);
        }

        assertEquals(2, log.deleteOldSegments());

        assertEquals(List.of(20L), baseOffsets(log));
        assertEquals(20L, log.logStartOffset());
    }

    // ---------------------------------------------------------------- only a prefix

    @Test
    void youngSegmentBlocksTheExpiredSegmentsAfterIt() throws Exception {
        long now = env.now();
        Log log = logWithClosedSegments(config("retention.ms", 7 * DAY_MS), now - DAY_MS, now - 30 * DAY_MS,
                now - 30 * DAY_MS);

        assertEquals(0, log.deleteOldSegments());

        assertEquals(List.of(0L, 10L, 20L, 30L), baseOffsets(log));
        assertEquals(0L, log.logStartOffset());
    }

    @Test
    void onlyThePrefixBeforeTheFirstSegmentToKeepIsDeleted() throws Exception {
        long now = env.now();
        Log log = logWithClosedSegments(config("retention.ms", 7 * DAY_MS), now - 30 * DAY_MS, now - 20 * DAY_MS,
                now - DAY_MS, now - 30 * DAY_MS);

        assertEquals(2, log.deleteOldSegments());

        assertEquals(List.of(20L, 30L, 40L), baseOffsets(log));
        assertEquals(20L, log.logStartOffset());
    }

    // ---------------------------------------------------------------- size

    @Test
    void sizeRetentionKeepsTheTotalAtOrAboveRetentionBytes() throws Exception {
        long now = env.now();
        Log log = logWithClosedSegments(config(), now, now, now, now, now);
        long segmentSize = log.activeSegment().size();
        assertEquals(6 * segmentSize, log.size());

        // 4.5 segments: deleting a second one would leave 4 < 4.5.
        log.updateConfig(LogConfig.fromMap(config("retention.bytes", 4 * segmentSize + segmentSize / 2)));
        assertEquals(1, log.deleteOldSegments());
        assertEquals(5 * segmentSize, log.size());

        // Exactly 4 segments: the total may end equal to retention.bytes.
        log.updateConfig(LogConfig.fromMap(config("retention.bytes", 4 * segmentSize)));
        assertEquals(1, log.deleteOldSegments());
        assertEquals(4 * segmentSize, log.size());
        assertEquals(List.of(20L, 30L, 40L, 50L), baseOffsets(log));
        assertEquals(20L, log.logStartOffset());
        assertEquals(0, log.deleteOldSegments());
    }

    @Test
    void sizeRetentionNeverDeletesTheActiveSegment() throws Exception {
        long now = env.now();
        Log log = logWithClosedSegments(config("retention.bytes", 1), now, now);

        assertEquals(2, log.deleteOldSegments());

        assertEquals(List.of(20L), baseOffsets(log));
        assertTrue(log.size() > 1, "the active segment alone is above retention.bytes and stays");
    }

    // ---------------------------------------------------------------- -1 disables

    @Test
    void minusOneDisablesTimeRetention() throws Exception {
        Log log = logWithClosedSegments(config("retention.ms", -1), 1_000L, 2_000L, 3_000L);

        assertEquals(0, log.deleteOldSegments());
        assertEquals(4, log.numberOfSegments());

        log.updateConfig(LogConfig.fromMap(config("retention.ms", 7 * DAY_MS)));
        assertEquals(3, log.deleteOldSegments(), "the same segments are expired under a time limit");
    }

    @Test
    void minusOneDisablesSizeRetention() throws Exception {
        long now = env.now();
        Log log = logWithClosedSegments(config("retention.bytes", -1), now, now, now, now);

        assertEquals(0, log.deleteOldSegments());
        assertEquals(5, log.numberOfSegments());

        log.updateConfig(LogConfig.fromMap(config("retention.bytes", log.activeSegment().size())));
        assertEquals(4, log.deleteOldSegments(), "the same log is over a size limit");
    }

    // ---------------------------------------------------------------- high watermark and start offset

    @Test
    void segmentsNotWhollyBelowTheHighWatermarkAreNotDeleted() throws Exception {
        long old = env.now() - 30 * DAY_MS;
        Log log = logWithClosedSegments(config("retention.ms", 7 * DAY_MS), old, old, old);
        log.updateHighWatermark(15); // inside [10, 20)

        assertEquals(1, log.deleteOldSegments());
        assertEquals(List.of(10L, 20L, 30L), baseOffsets(log));
        assertEquals(10L, log.logStartOffset());

        log.updateHighWatermark(20); // [10, 20) now lies wholly below it
        assertEquals(1, log.deleteOldSegments());
        assertEquals(List.of(20L, 30L), baseOffsets(log));
        assertEquals(20L, log.logStartOffset());
        assertTrue(log.logStartOffset() <= log.highWatermark());

        log.updateHighWatermark(0); // clamped: the high watermark never falls below the start offset
        assertEquals(20L, log.highWatermark());
        assertEquals(0, log.deleteOldSegments());
    }

    @Test
    void segmentsWhollyBelowTheLogStartOffsetAreDeletedWithBothLimitsOff() throws Exception {
        long now = env.now();
        Map<String, Object> noLimits = config("retention.ms", -1, "retention.bytes", -1);
        Log log = env.reopenWithStartOffset(logWithClosedSegments(noLimits, now, now, now), noLimits, 25);
        assertEquals(List.of(0L, 10L, 20L, 30L), baseOffsets(log), "loading deletes nothing");

        assertEquals(2, log.deleteOldSegments());

        assertEquals(List.of(20L, 30L), baseOffsets(log));
        assertEquals(25L, log.logStartOffset(), "the start offset does not go back to the first segment's base");
    }

    @Test
    void onePassAppliesStartOffsetThenSizeThenTime() throws Exception {
        long now = env.now();
        long old = now - 30 * DAY_MS;
        // Segment 1 is young: the time rule alone would stop at it. The size rule takes it first.
        Log log = logWithClosedSegments(config("retention.ms", 7 * DAY_MS), old, now, old, old, now);
        long segmentSize = log.activeSegment().size();
        Map<String, Object> limits = config("retention.ms", 7 * DAY_MS, "retention.bytes", 4 * segmentSize);
        log = env.reopenWithStartOffset(log, limits, 10);

        assertEquals(4, log.deleteOldSegments());

        assertEquals(List.of(40L, 50L), baseOffsets(log));
        assertEquals(40L, log.logStartOffset());
        assertEquals(0, log.deleteOldSegments(), "one pass already reached the final state");
    }

    @Test
    void logStartOffsetMovesToTheFirstRemainingSegment() throws Exception {
        long old = env.now() - 30 * DAY_MS;
        Log log = logWithClosedSegments(config("retention.ms", 7 * DAY_MS), old, old, env.now());

        assertEquals(2, log.deleteOldSegments());

        assertEquals(20L, log.logStartOffset());
        assertEquals(20L, log.segments().get(0).baseOffset());
        assertEquals(20, readAll(log, 20).size());
    }

    // ---------------------------------------------------------------- .deleted files

    @Test
    void deletedSegmentFilesAreRenamedAndUnlinkedAfterTheDelay() throws Exception {
        long old = env.now() - 30 * DAY_MS;
        Log log = logWithClosedSegments(config("retention.ms", 7 * DAY_MS, "file.delete.delay.ms", 60_000), old);
        log.segments().get(0).txnIndex().append(new TxnIndex.AbortedTxn(7L, 2L, 5L, 10L));
        Path dir = log.dir();
        assertTrue(Files.exists(LogFileNames.txnIndexFile(dir, 0)));

        assertEquals(1, log.deleteOldSegments());

        List<String> expected = new ArrayList<>(segmentFiles(0, LogFileNames.DELETED_SUFFIX, LogFileNames.LOG_SUFFIX,
                LogFileNames.INDEX_SUFFIX, LogFileNames.TIME_INDEX_SUFFIX, LogFileNames.TXN_INDEX_SUFFIX));
        expected.sort(null);
        assertEquals(expected, deletedFiles(dir), "every file of the set is renamed, the .txnindex too");
        for (String name : segmentFiles(0, "", SEGMENT_SUFFIXES)) {
            assertFalse(Files.exists(dir.resolve(name)), name);
        }
        assertFalse(Files.exists(LogFileNames.txnIndexFile(dir, 0)));
        assertEquals(1, env.deleter.pendingSegments());

        env.time.advance(59_999);
        assertEquals(expected, deletedFiles(dir), "still there during file.delete.delay.ms");

        env.time.advance(1);
        assertEquals(List.of(), deletedFiles(dir));
        assertEquals(0, env.deleter.pendingSegments());
        assertEquals(segmentFiles(10, "", SEGMENT_SUFFIXES).stream().sorted().toList(),
                fileNames(dir), "only the active segment's files are left");
    }

    @Test
    void staleDeletedFilesAreRemovedWhenTheLogIsOpened() throws Exception {
        long old = env.now() - 30 * DAY_MS;
        Map<String, Object> cfg = config("retention.ms", 7 * DAY_MS, "file.delete.delay.ms", 60_000);
        Log log = logWithClosedSegments(cfg, old, old);
        assertEquals(2, log.deleteOldSegments());
        // A stop before file.delete.delay.ms leaves the renamed files behind, and maybe strays as well.
        Files.write(log.dir().resolve("00000000000000000099.log.deleted"), new byte[10]);
        assertEquals(7, deletedFiles(log.dir()).size());

        Log reopened = env.reopen(log, cfg);

        assertEquals(List.of(), deletedFiles(reopened.dir()));
        assertEquals(List.of(20L), baseOffsets(reopened));
        assertEquals(20L, reopened.logStartOffset());
        assertEquals(10, readAll(reopened, 20).size());
        env.time.advance(60_000); // the first log's pending unlink finds nothing left to remove
        assertEquals(List.of(20L), baseOffsets(reopened));
    }

    // ---------------------------------------------------------------- the retention task

    @Test
    void retentionTaskRunsEveryCheckInterval() throws Exception {
        LogManager manager = env.startManager(config("log.retention.check.interval.ms", 60_000));
        Log log = manager.getOrCreateLog(new TopicPartition("orders", 0),
                config("retention.ms", HOUR_MS, "file.delete.delay.ms", 1_000));
        log.appendAsLeader(batch(env.now() - 2 * HOUR_MS, 10), 0);
        log.roll(log.logEndOffset());
        log.appendAsLeader(batch(env.now(), 10), 0);

        env.time.advance(59_999);
        assertEquals(2, log.numberOfSegments(), "no pass before the interval");

        env.time.advance(1);
        assertEquals(List.of(10L), baseOffsets(log), "the task ran without cleanupLogs being called");
        assertEquals(10L, log.logStartOffset());
        assertEquals(3, deletedFiles(log.dir()).size());

        // The next expired segment goes on the next run.
        log.roll(log.logEndOffset());
        log.appendAsLeader(batch(env.now(), 10), 0);
        // Segment [10, 20) passes retention.ms just after the run at start + 1 h; the next run takes it.
        env.time.advance(HOUR_MS - 60_000);
        assertEquals(List.of(10L, 20L), baseOffsets(log));
        env.time.advance(60_000);
        assertEquals(List.of(20L), baseOffsets(log));
        assertEquals(List.of(), deletedFiles(log.dir()).stream()
                .filter(n -> n.startsWith(LogFileNames.filenamePrefixFromOffset(0))).toList());
    }
}
