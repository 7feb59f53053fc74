package io.tideline.store.log;

import static io.tideline.store.log.LogTestSupport.baseOffsets;
import static io.tideline.store.log.LogTestSupport.batch;
import static io.tideline.store.log.LogTestSupport.fileNames;
import static io.tideline.store.log.LogTestSupport.readAll;
import static io.tideline.store.log.LogTestSupport.segmentFiles;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.OffsetOutOfRangeException;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.Record;
import io.tideline.store.segment.LogFileNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DeleteRecords on a log, as the beforeOffset table of docs/behaviours.md B23 (measured on Kafka 4.4 with
 * 1000 records, HW 1000), and what it does to segments and reads (B27, B28).
 */
class DeleteRecordsTest {
    private static final Map<String, Object> CONFIG = Map.of("file.delete.delay.ms", 60_000);
    private static final String[] SUFFIXES = {LogFileNames.LOG_SUFFIX, LogFileNames.INDEX_SUFFIX,
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

    /** 1000 records in batches of 10, a segment per 100 offsets: [0, 100), ..., active [900, 1000). */
    private Log thousandRecordsInTenSegments() throws Exception {
        Log log = env.open(CONFIG);
        for (int segment = 0; segment < 10; segment++) {
            if (segment > 0) {
                log.roll(log.logEndOffset());
            }
            LogTestSupport.appendBatches(log, 10, 10, env.now());
        }
        assertEquals(1000L, log.logEndOffset());
        assertEquals(1000L, log.highWatermark());
        assertEquals(10, log.numberOfSegments());
        return log;
    }

    /** 1000 records in batches of 10, all in the active segment. */
    private Log thousandRecordsInTheActiveSegment() throws Exception {
        Log log = env.open(CONFIG);
        LogTestSupport.appendBatches(log, 100, 10, env.now());
        assertEquals(1, log.numberOfSegments());
        return log;
    }

    private static List<String> deletedFiles(Path dir) {
        return fileNames(dir).stream().filter(n -> n.endsWith(LogFileNames.DELETED_SUFFIX)).toList();
    }

    // ---------------------------------------------------------------- the beforeOffset table (docs/behaviours.md B23)

    @Test
    void positiveOffsetBecomesTheNewLowWatermark() throws Exception {
        Log log = thousandRecordsInTenSegments();

        DeleteRecordsResult result = log.deleteRecords(500);

        assertEquals(new DeleteRecordsResult(Errors.NONE, 500L), result);
        assertEquals(500L, log.logStartOffset());
        assertEquals(500, readAll(log, 500).size());
        assertEquals(List.of(500L, 600L, 700L, 800L, 900L), baseOffsets(log));
    }

    @Test
    void minusOneDeletesUpToTheHighWatermark() throws Exception {
        Log log = thousandRecordsInTenSegments();

        DeleteRecordsResult result = log.deleteRecords(-1);

        assertEquals(new DeleteRecordsResult(Errors.NONE, 1000L), result);
        assertEquals(1000L, log.logStartOffset());
        assertEquals(List.of(900L), baseOffsets(log), "every closed segment goes, the active one stays");
        try (FetchDataInfo fetch = log.read(1000, 10_000, log.highWatermark(), true)) {
            assertEquals(0, fetch.records().sizeInBytes());
        }
    }

    @Test
    void minusOneMeansTheHighWatermarkNotTheLogEnd() throws Exception {
        Log log = thousandRecordsInTenSegments();
        log.updateHighWatermark(800);

        assertEquals(new DeleteRecordsResult(Errors.NONE, 800L), log.deleteRecords(-1));
        assertEquals(800L, log.logStartOffset());
        assertEquals(new DeleteRecordsResult(Errors.OFFSET_OUT_OF_RANGE, -1L), log.deleteRecords(900),
                "above the high watermark even though below the log end");
    }

    @Test
    void zeroIsASuccessfulNoOpReturningTheCurrentLowWatermark() throws Exception {
        Log log = thousandRecordsInTenSegments();
        assertEquals(new DeleteRecordsResult(Errors.NONE, 0L), log.deleteRecords(0));
        assertEquals(10, log.numberOfSegments());

        log.deleteRecords(300);
        assertEquals(new DeleteRecordsResult(Errors.NONE, 300L), log.deleteRecords(0));
        assertEquals(300L, log.logStartOffset());
        assertEquals(List.of(), deletedFiles(log.dir()).stream()
                .filter(n -> n.startsWith(LogFileNames.filenamePrefixFromOffset(300))).toList());
    }

    @Test
    void otherNegativeOffsetsAreOutOfRangeWithLowWatermarkMinusOne() throws Exception {
        Log log = thousandRecordsInTenSegments();

        for (long offset : new long[] {-2, -3, Long.MIN_VALUE}) {
            assertEquals(new DeleteRecordsResult(Errors.OFFSET_OUT_OF_RANGE, -1L), log.deleteRecords(offset),
                    "offset " + offset);
        }
        assertEquals(0L, log.logStartOffset());
        assertEquals(10, log.numberOfSegments());
    }

    @Test
    void offsetAboveTheHighWatermarkIsOutOfRange() throws Exception {
        Log log = thousandRecordsInTenSegments();

        assertEquals(new DeleteRecordsResult(Errors.OFFSET_OUT_OF_RANGE, -1L), log.deleteRecords(1010));
        assertEquals(new DeleteRecordsResult(Errors.OFFSET_OUT_OF_RANGE, -1L), log.deleteRecords(1001));
        assertEquals(0L, log.logStartOffset());
        assertEquals(new DeleteRecordsResult(Errors.NONE, 1000L), log.deleteRecords(1000), "the HW itself is allowed");
    }

    @Test
    void offsetBelowTheCurrentLowWatermarkLeavesItUnchanged() throws Exception {
        Log log = thousandRecordsInTenSegments();
        log.deleteRecords(500);

        assertEquals(new DeleteRecordsResult(Errors.NONE, 500L), log.deleteRecords(200));
        assertEquals(new DeleteRecordsResult(Errors.NONE, 500L), log.deleteRecords(500));

        assertEquals(500L, log.logStartOffset());
    }

    @Test
    void unknownPartitionThroughTheLogManagerIsUnknownTopicOrPartition() throws Exception {
        LogManager manager = env.startManager(Map.of());
        TopicPartition tp = new TopicPartition("orders", 0);
        Log log = manager.getOrCreateLog(tp, CONFIG);
        LogTestSupport.appendBatches(log, 100, 10, env.now());

        assertEquals(new DeleteRecordsResult(Errors.UNKNOWN_TOPIC_OR_PARTITION, -1L),
                manager.deleteRecords(new TopicPartition("missing", 0), 500));
        assertEquals(new DeleteRecordsResult(Errors.UNKNOWN_TOPIC_OR_PARTITION, -1L),
                manager.deleteRecords(new TopicPartition("orders", 1), 500));
        assertEquals(new DeleteRecordsResult(Errors.NONE, 500L), manager.deleteRecords(tp, 500));
        assertEquals(500L, log.logStartOffset());
    }

    // ------------------------------------------------ inside the active segment (docs/behaviours.md B27, B28)

    @Test
    void deleteRecordsInsideTheActiveSegmentHidesOffsetsAtOnceAndDeletesNoFile() throws Exception {
        Log log = thousandRecordsInTheActiveSegment();
        Path dir = log.dir();
        List<String> filesBefore = fileNames(dir);
        long sizeBefore = Files.size(LogFileNames.logFile(dir, 0));

        assertEquals(new DeleteRecordsResult(Errors.NONE, 500L), log.deleteRecords(500));

        OffsetOutOfRangeException e = assertThrows(OffsetOutOfRangeException.class,
                () -> log.read(499, 10_000, log.highWatermark(), true));
        assertEquals(Errors.OFFSET_OUT_OF_RANGE, e.error());
        assertEquals(500L, e.logStartOffset());
        assertEquals(1000L, e.logEndOffset());
        assertThrows(OffsetOutOfRangeException.class, () -> log.read(0, 10_000, log.highWatermark(), true));
        List<Record> readable = readAll(log, 500);
        assertEquals(500L, readable.get(0).offset());
        assertEquals(500, readable.size());
        // Nothing left the disk: same files, same bytes; a retention pass cannot take the active segment.
        assertEquals(0, log.deleteOldSegments());
        assertEquals(filesBefore, fileNames(dir));
        assertEquals(sizeBefore, Files.size(LogFileNames.logFile(dir, 0)));
        assertEquals(1, log.numberOfSegments());
    }

    @Test
    void spaceComesBackOnlyOnceTheSegmentHasRolledAndLiesWhollyBelowTheStartOffset() throws Exception {
        Log log = thousandRecordsInTheActiveSegment();
        Path dir = log.dir();
        log.deleteRecords(500);

        // The segment rolls, but it still holds readable offsets 500..999: it stays whole.
        log.roll(log.logEndOffset());
        LogTestSupport.appendBatches(log, 1, 10, env.now());
        assertEquals(0, log.deleteOldSegments());
        assertEquals(List.of(0L, 1000L), baseOffsets(log));
        assertTrue(Files.exists(LogFileNames.logFile(dir, 0)));

        // Once the start offset passes its end, it goes: renamed at once, unlinked after the delay.
        assertEquals(new DeleteRecordsResult(Errors.NONE, 1000L), log.deleteRecords(1000));
        assertEquals(List.of(1000L), baseOffsets(log));
        assertEquals(segmentFiles(0, LogFileNames.DELETED_SUFFIX, SUFFIXES).stream().sorted().toList(),
                deletedFiles(dir));
        env.time.advance(60_000);
        assertEquals(List.of(), deletedFiles(dir));
        assertFalse(Files.exists(LogFileNames.logFile(dir, 0)));
    }

    @Test
    void activeSegmentBelowTheStartOffsetGoesOnTheRetentionPassAfterItRolls() throws Exception {
        Log log = thousandRecordsInTheActiveSegment();
        Path dir = log.dir();
        assertEquals(new DeleteRecordsResult(Errors.NONE, 1000L), log.deleteRecords(1000));
        assertEquals(1, log.numberOfSegments(), "the active segment is never deleted");
        assertTrue(Files.exists(LogFileNames.logFile(dir, 0)));

        log.roll(log.logEndOffset());
        LogTestSupport.appendBatches(log, 1, 10, env.now());

        assertEquals(1, log.deleteOldSegments(), "wholly below the start offset, with time and size limits unmet");
        assertEquals(List.of(1000L), baseOffsets(log));
        assertEquals(1000L, log.logStartOffset());
        assertEquals(3, deletedFiles(dir).size());
    }

    // ---------------------------------------------------------------- segments and the start offset

    @Test
    void straddlingClosedSegmentStaysWhole() throws Exception {
        Log log = thousandRecordsInTenSegments();
        Path dir = log.dir();
        long straddlingSize = Files.size(LogFileNames.logFile(dir, 500));

        assertEquals(new DeleteRecordsResult(Errors.NONE, 550L), log.deleteRecords(550));

        assertEquals(List.of(500L, 600L, 700L, 800L, 900L), baseOffsets(log));
        assertEquals(straddlingSize, Files.size(LogFileNames.logFile(dir, 500)));
        assertEquals(550L, log.logStartOffset(), "not moved back to the straddling segment's base");
        assertThrows(OffsetOutOfRangeException.class, () -> log.read(540, 10_000, log.highWatermark(), true));
        assertEquals(450, readAll(log, 550).size());
    }

    @Test
    void closedSegmentsWhollyBelowAreRenamedAtOnceAndUnlinkedAfterTheDelay() throws Exception {
        Log log = thousandRecordsInTenSegments();
        Path dir = log.dir();

        log.deleteRecords(300); // no retention pass: the deletion is immediate

        assertEquals(9, deletedFiles(dir).size());
        for (long base : new long[] {0, 100, 200}) {
            assertTrue(deletedFiles(dir).containsAll(segmentFiles(base, LogFileNames.DELETED_SUFFIX, SUFFIXES)));
            assertFalse(Files.exists(LogFileNames.logFile(dir, base)));
        }
        assertTrue(Files.exists(LogFileNames.logFile(dir, 300)));

        env.time.advance(59_999);
        assertEquals(9, deletedFiles(dir).size());
        env.time.advance(1);
        assertEquals(List.of(), deletedFiles(dir));
    }

    @Test
    void startOffsetNeverGoesBack() throws Exception {
        Log log = thousandRecordsInTenSegments();
        log.deleteRecords(550);

        assertEquals(550L, log.deleteRecords(100).lowWatermark());
        assertFalse(log.maybeIncrementLogStartOffset(300, "test"));
        assertEquals(0, log.deleteOldSegments());
        assertEquals(550L, log.logStartOffset());

        Log reopened = env.reopen(log, CONFIG);
        assertEquals(550L, reopened.logStartOffset(), "after a restart too, although the first segment starts at 500");
        assertEquals(500L, reopened.segments().get(0).baseOffset());
        assertEquals(550L, reopened.deleteRecords(0).lowWatermark());
    }
}
