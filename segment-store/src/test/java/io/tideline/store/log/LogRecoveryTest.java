package io.tideline.store.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.OffsetOutOfRangeException;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.store.checkpoint.OffsetCheckpointFile;
import io.tideline.store.config.LogConfig;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.index.OffsetIndex;
import io.tideline.store.index.OffsetIndex.OffsetPosition;
import io.tideline.store.index.TimeIndex;
import io.tideline.store.index.TimeIndex.TimestampOffset;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.retention.SegmentDeleter;
import io.tideline.store.segment.LogFileNames;
import io.tideline.store.segment.LogSegment;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery on open (docs/behaviours.md B20, B45-B52): torn and garbage tails, corrupt batches, missing and
 * damaged indexes, orphan files, the clean-shutdown marker, and the log start offset across restarts.
 * Crashes are simulated with {@link Log#abandon()} / {@link LogManager#closeWithoutShutdown()}, after
 * which the test damages the files the way a lost write or a bad disk would.
 */
class LogRecoveryTest {
    private static final int RECORDS_PER_BATCH = 3;
    private static final LogConfig CONFIG = LogConfig.fromMap(Map.of(
            "segment.bytes", 1024,
            "index.interval.bytes", 150,
            "segment.index.bytes", 4096,
            "retention.ms", -1));
    private static final TopicPartition TP = new TopicPartition("orders", 0);

    @TempDir
    Path root;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final SegmentDeleter deleter = new SegmentDeleter(scheduler);
    private final List<Log> openLogs = new ArrayList<>();
    private final List<LogManager> managers = new ArrayList<>();

    @AfterEach
    void tearDown() {
        for (Log log : openLogs) {
            log.abandon();
        }
        for (LogManager manager : managers) {
            manager.closeWithoutShutdown();
        }
    }

    // ------------------------------------------------------------------ helpers

    private Path dir() {
        return root.resolve(TP.directoryName());
    }

    private Log open(long logStartOffsetCheckpoint, long recoveryPoint, boolean cleanShutdown) throws IOException {
        Log log = Log.open(dir(), CONFIG, time, scheduler, new Random(7), deleter, logStartOffsetCheckpoint, recoveryPoint, -1,
                cleanShutdown);
        openLogs.add(log);
        return log;
    }

    private Log create() throws IOException {
        return open(0, 0, true);
    }

    private static String value(long offset) {
        return "value-" + offset;
    }

    /** Appends {@code batches} batches of RECORDS_PER_BATCH records whose values name their offsets. */
    private void appendBatches(Log log, int batches) {
        for (int b = 0; b < batches; b++) {
            long first = log.logEndOffset();
            RecordBatchBuilder builder = new RecordBatchBuilder(0);
            for (int r = 0; r < RECORDS_PER_BATCH; r++) {
                builder.append(time.milliseconds() + first + r, "key-" + (first + r), value(first + r));
            }
            LogAppendInfo info = log.appendAsLeader(builder.buildRecords(), 1);
            assertEquals(first, info.firstOffset());
        }
    }

    /** Every record from the log start offset to the log end, read through the public read path. */
    private static List<Record> readAll(Log log) throws IOException {
        List<Record> out = new ArrayList<>();
        long next = log.logStartOffset();
        while (next < log.logEndOffset()) {
            try (FetchDataInfo fetch = log.read(next, 100_000, log.logEndOffset(), true)) {
                List<Record> records = fetch.records().toMemoryRecords().records();
                assertFalse(records.isEmpty(), "read at " + next + " returned nothing");
                for (Record r : records) {
                    if (r.offset() >= next) {
                        out.add(r);
                    }
                }
                next = records.get(records.size() - 1).offset() + 1;
            }
        }
        return out;
    }

    /** Asserts the records are exactly start..end-1, each with the value its offset was written with. */
    private static void assertContiguous(List<Record> records, long start, long end) {
        assertEquals(end - start, records.size(), "records " + start + ".." + end);
        for (int i = 0; i < records.size(); i++) {
            Record r = records.get(i);
            assertEquals(start + i, r.offset());
            assertEquals(value(r.offset()), new String(r.value(), StandardCharsets.UTF_8));
        }
    }

    private record BatchAt(int position, int size, long baseOffset, long lastOffset) {
    }

    /** The batches of a .log file as they lie on disk. */
    private static List<BatchAt> batchesOf(Path logFile) throws IOException {
        MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.wrap(Files.readAllBytes(logFile)));
        List<BatchAt> out = new ArrayList<>();
        int position = 0;
        for (RecordBatch batch : records.batches()) {
            out.add(new BatchAt(position, batch.sizeInBytes(), batch.baseOffset(), batch.lastOffset()));
            position += batch.sizeInBytes();
        }
        return out;
    }

    private static void truncateFile(Path file, long size) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(size);
        }
    }

    private static void flipByte(Path file, long position) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(position);
            int b = raf.read();
            raf.seek(position);
            raf.write(b ^ 0x5A);
        }
    }

    private static List<OffsetPosition> offsetEntries(OffsetIndex index) {
        List<OffsetPosition> entries = new ArrayList<>();
        for (int i = 0; i < index.entries(); i++) {
            entries.add(index.entry(i));
        }
        return entries;
    }

    private static List<TimestampOffset> timeEntries(TimeIndex index) {
        List<TimestampOffset> entries = new ArrayList<>();
        for (int i = 0; i < index.entries(); i++) {
            entries.add(index.entry(i));
        }
        return entries;
    }

    /** Segment files of the partition directory (its leader-epoch-checkpoint left out), sorted. */
    private List<String> filesInDir() throws IOException {
        try (Stream<Path> files = Files.list(dir())) {
            return files.map(p -> p.getFileName().toString())
                    .filter(name -> !name.equals(LogFileNames.LEADER_EPOCH_CHECKPOINT)).sorted().toList();
        }
    }

    // ------------------------------------------------------------------ torn and garbage tails

    @Test
    void tornTailIsTruncatedToTheLastWholeBatchAndAppendsContinueThere() throws IOException {
        Log log = create();
        appendBatches(log, 20);
        assertTrue(log.numberOfSegments() > 2, "the test needs closed segments too: " + log);
        scheduler.tick(); // the flushes the rolls scheduled move the recovery point
        long recoveryPoint = log.recoveryPoint();
        long activeBase = log.activeSegment().baseOffset();
        log.abandon();

        Path activeLog = LogFileNames.logFile(dir(), activeBase);
        List<BatchAt> batches = batchesOf(activeLog);
        BatchAt last = batches.get(batches.size() - 1);
        truncateFile(activeLog, last.position() + last.size() / 2); // the write of the last batch was torn

        Log reopened = open(0, recoveryPoint, false);
        assertEquals(last.baseOffset(), reopened.logEndOffset());
        assertEquals(last.position(), Files.size(activeLog), "the partial batch is cut off the file");
        assertEquals(1, reopened.recoveredSegmentsOnLoad(), "only the segment past the recovery point is scanned");
        assertEquals(reopened.logEndOffset(), reopened.highWatermark());

        appendBatches(reopened, 2);
        assertEquals(last.baseOffset() + 2 * RECORDS_PER_BATCH, reopened.logEndOffset());
        assertContiguous(readAll(reopened), 0, reopened.logEndOffset());
    }

    @Test
    void tornBatchHeaderIsTruncatedToo() throws IOException {
        Log log = create();
        appendBatches(log, 4);
        long activeBase = log.activeSegment().baseOffset();
        log.abandon();
        Path activeLog = LogFileNames.logFile(dir(), activeBase);
        List<BatchAt> batches = batchesOf(activeLog);
        BatchAt last = batches.get(batches.size() - 1);
        truncateFile(activeLog, last.position() + 10); // not even the length field survived

        Log reopened = open(0, 0, false);
        assertEquals(last.baseOffset(), reopened.logEndOffset());
        assertContiguous(readAll(reopened), 0, last.baseOffset());
    }

    @Test
    void randomGarbageAfterTheLastBatchIsTruncated() throws IOException {
        Log log = create();
        appendBatches(log, 12);
        long end = log.logEndOffset();
        long activeBase = log.activeSegment().baseOffset();
        scheduler.tick();
        long recoveryPoint = log.recoveryPoint();
        log.abandon();

        Path activeLog = LogFileNames.logFile(dir(), activeBase);
        long validSize = Files.size(activeLog);
        Random random = new Random(42);
        for (int attempt = 0; attempt < 20; attempt++) {
            byte[] garbage = new byte[1 + random.nextInt(300)];
            random.nextBytes(garbage);
            Files.write(activeLog, garbage, StandardOpenOption.APPEND);

            Log reopened = open(0, recoveryPoint, false);
            assertEquals(end, reopened.logEndOffset(), "garbage #" + attempt);
            assertEquals(validSize, Files.size(activeLog), "garbage #" + attempt);
            reopened.abandon();
        }
        Log reopened = open(0, recoveryPoint, false);
        appendBatches(reopened, 1);
        assertContiguous(readAll(reopened), 0, end + RECORDS_PER_BATCH);
    }

    @Test
    void zeroFilledTailIsTruncated() throws IOException {
        Log log = create();
        appendBatches(log, 3);
        long end = log.logEndOffset();
        long activeBase = log.activeSegment().baseOffset();
        log.abandon();

        Path activeLog = LogFileNames.logFile(dir(), activeBase);
        long validSize = Files.size(activeLog);
        // A file system that extended the file but never wrote the data leaves zeros.
        truncateFile(activeLog, validSize + 4096);

        Log reopened = open(0, 0, false);
        assertEquals(end, reopened.logEndOffset());
        assertEquals(validSize, Files.size(activeLog));
    }

    @Test
    void corruptBatchInTheMiddleOfTheActiveSegmentTruncatesFromThereOn() throws IOException {
        Log log = create();
        appendBatches(log, 3);
        assertEquals(1, log.numberOfSegments());
        long recoveryPoint = log.recoveryPoint();
        log.abandon();

        Path activeLog = LogFileNames.logFile(dir(), 0);
        List<BatchAt> batches = batchesOf(activeLog);
        BatchAt victim = batches.get(1);
        flipByte(activeLog, victim.position() + RecordBatch.RECORDS_OFFSET + 3); // inside the CRC-covered records

        Log reopened = open(0, recoveryPoint, false);
        assertEquals(victim.baseOffset(), reopened.logEndOffset(), "the good batch after the bad one goes too");
        assertEquals(victim.position(), Files.size(activeLog));
        appendBatches(reopened, 1);
        assertContiguous(readAll(reopened), 0, victim.baseOffset() + RECORDS_PER_BATCH);
    }

    @Test
    void batchWithAnOffsetBelowItsPredecessorEndsTheValidData() throws IOException {
        Log log = create();
        appendBatches(log, 3);
        log.abandon();
        Path activeLog = LogFileNames.logFile(dir(), 0);
        List<BatchAt> batches = batchesOf(activeLog);
        // baseOffset is outside the CRC: a batch that repeats offsets is only caught by the offset check.
        try (RandomAccessFile raf = new RandomAccessFile(activeLog.toFile(), "rw")) {
            raf.seek(batches.get(2).position());
            raf.writeLong(0L);
        }
        Log reopened = open(0, 0, false);
        assertEquals(batches.get(2).baseOffset(), reopened.logEndOffset());
    }

    @Test
    void segmentsAfterATruncatedSegmentAreDeleted() throws IOException {
        Log log = create();
        appendBatches(log, 30);
        List<LogSegment> segments = log.segments();
        assertTrue(segments.size() >= 4, "segments: " + segments.size());
        long victimSegment = segments.get(1).baseOffset();
        List<Long> laterSegments = segments.subList(2, segments.size()).stream().map(LogSegment::baseOffset).toList();
        log.abandon();

        Path victimLog = LogFileNames.logFile(dir(), victimSegment);
        List<BatchAt> batches = batchesOf(victimLog);
        assertTrue(batches.size() >= 3);
        BatchAt victim = batches.get(batches.size() / 2);
        flipByte(victimLog, victim.position() + RecordBatch.ATTRIBUTES_OFFSET + 5);

        // No recovery point checkpoint: every segment is scanned.
        Log reopened = open(0, 0, false);
        assertEquals(victim.baseOffset(), reopened.logEndOffset());
        assertEquals(2, reopened.numberOfSegments());
        assertEquals(victimSegment, reopened.activeSegment().baseOffset(), "the truncated segment is active again");
        for (long base : laterSegments) {
            assertFalse(Files.exists(LogFileNames.logFile(dir(), base)), "segment " + base + " must be gone");
            assertFalse(Files.exists(LogFileNames.offsetIndexFile(dir(), base)));
            assertFalse(Files.exists(LogFileNames.timeIndexFile(dir(), base)));
        }
        appendBatches(reopened, 2);
        assertContiguous(readAll(reopened), 0, victim.baseOffset() + 2 * RECORDS_PER_BATCH);
    }

    @Test
    void unflushedSegmentsAreScannedButFlushedOnesAreTrusted() throws IOException {
        Log log = create();
        appendBatches(log, 20);
        int segments = log.numberOfSegments();
        assertEquals(0, log.recoveryPoint(), "a roll leaves the fsync to the scheduler");
        scheduler.tick();
        long recoveryPoint = log.recoveryPoint();
        assertEquals(log.activeSegment().baseOffset(), recoveryPoint, "the flush after the roll moved the recovery point");
        long end = log.logEndOffset();
        log.abandon();

        Log fromRecoveryPoint = open(0, recoveryPoint, false);
        assertEquals(1, fromRecoveryPoint.recoveredSegmentsOnLoad());
        assertEquals(end, fromRecoveryPoint.logEndOffset());
        fromRecoveryPoint.abandon();

        Log fromZero = open(0, 0, false);
        assertEquals(segments, fromZero.recoveredSegmentsOnLoad());
        assertEquals(end, fromZero.logEndOffset());
        assertEquals(end, fromZero.recoveryPoint(), "after recovery everything on disk is valid");
        fromZero.close();

        Log clean = open(0, end, true);
        assertEquals(0, clean.recoveredSegmentsOnLoad());
        assertContiguous(readAll(clean), 0, end);
    }

    // ------------------------------------------------------------------ indexes

    @Test
    void missingIndexesOfAClosedSegmentAreRebuiltEvenAfterACleanShutdown() throws IOException {
        Log log = create();
        appendBatches(log, 20);
        LogSegment first = log.segments().get(0);
        List<OffsetPosition> offsetEntries = offsetEntries(first.offsetIndex());
        List<TimestampOffset> timeEntries = timeEntries(first.timeIndex());
        assertTrue(offsetEntries.size() >= 2, "the test needs index entries: " + offsetEntries);
        long end = log.logEndOffset();
        long firstBase = first.baseOffset();
        long secondBase = log.segments().get(1).baseOffset();
        long tsOfOffset5 = log.read(5, 10_000, end, true).records().toMemoryRecords().records().stream()
                .filter(r -> r.offset() == 5).findFirst().orElseThrow().timestamp();
        log.close();

        Files.delete(LogFileNames.offsetIndexFile(dir(), firstBase));
        Files.delete(LogFileNames.timeIndexFile(dir(), firstBase));

        Log reopened = open(0, end, true);
        assertEquals(1, reopened.recoveredSegmentsOnLoad());
        LogSegment rebuilt = reopened.segments().get(0);
        assertTrue(Files.exists(LogFileNames.offsetIndexFile(dir(), firstBase)));
        assertTrue(Files.exists(LogFileNames.timeIndexFile(dir(), firstBase)));
        assertEquals(offsetEntries, offsetEntries(rebuilt.offsetIndex()));
        assertEquals(timeEntries, timeEntries(rebuilt.timeIndex()));
        assertEquals((long) offsetEntries.size() * OffsetIndex.ENTRY_SIZE,
                Files.size(LogFileNames.offsetIndexFile(dir(), firstBase)),
                "a rebuilt index of a closed segment is trimmed like any closed segment's");
        assertEquals((long) timeEntries.size() * TimeIndex.ENTRY_SIZE,
                Files.size(LogFileNames.timeIndexFile(dir(), firstBase)));

        for (long offset = firstBase; offset < secondBase; offset++) {
            try (FetchDataInfo fetch = reopened.read(offset, 1, end, true)) {
                List<Record> records = fetch.records().toMemoryRecords().records();
                long target = offset;
                assertTrue(records.stream().anyMatch(r -> r.offset() == target), "offset " + offset);
            }
        }
        assertEquals(5, reopened.fetchOffsetByTimestamp(tsOfOffset5).orElseThrow().offset());
        assertContiguous(readAll(reopened), 0, end);
    }

    @Test
    void missingIndexesOfTheActiveSegmentAreRebuilt() throws IOException {
        Log log = create();
        appendBatches(log, 20);
        long activeBase = log.activeSegment().baseOffset();
        List<OffsetPosition> entries = offsetEntries(log.activeSegment().offsetIndex());
        long end = log.logEndOffset();
        log.close();
        Files.delete(LogFileNames.offsetIndexFile(dir(), activeBase));

        Log reopened = open(0, end, true);
        assertEquals(end, reopened.logEndOffset());
        assertEquals(entries, offsetEntries(reopened.activeSegment().offsetIndex()));
        appendBatches(reopened, 1);
        assertContiguous(readAll(reopened), 0, end + RECORDS_PER_BATCH);
    }

    /** Closes a log of several segments, damages the first segment's index, reopens after a clean stop. */
    private void assertDamagedOffsetIndexIsRebuilt(IndexDamage damage) throws IOException {
        Log log = create();
        appendBatches(log, 20);
        LogSegment first = log.segments().get(0);
        List<OffsetPosition> entries = offsetEntries(first.offsetIndex());
        assertTrue(entries.size() >= 2, "entries: " + entries);
        long end = log.logEndOffset();
        log.close();

        Path index = LogFileNames.offsetIndexFile(dir(), 0);
        damage.apply(index, entries);

        Log reopened = open(0, end, true);
        assertEquals(1, reopened.recoveredSegmentsOnLoad(), "the damaged index must be rebuilt");
        assertEquals(entries, offsetEntries(reopened.segments().get(0).offsetIndex()));
        assertEquals(end, reopened.logEndOffset());
        assertContiguous(readAll(reopened), 0, end);
        for (long offset = 0; offset < reopened.segments().get(1).baseOffset(); offset++) {
            try (FetchDataInfo fetch = reopened.read(offset, 1, end, true)) {
                long target = offset;
                assertTrue(fetch.records().toMemoryRecords().records().stream().anyMatch(r -> r.offset() == target));
            }
        }
    }

    private interface IndexDamage {
        void apply(Path index, List<OffsetPosition> entries) throws IOException;
    }

    private static void writeEntries(Path index, int[][] relativeAndPosition) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(relativeAndPosition.length * OffsetIndex.ENTRY_SIZE);
        for (int[] entry : relativeAndPosition) {
            buffer.putInt(entry[0]).putInt(entry[1]);
        }
        Files.write(index, buffer.array());
    }

    @Test
    void offsetIndexOverwrittenWithGarbageIsRebuilt() throws IOException {
        assertDamagedOffsetIndexIsRebuilt((index, entries) -> {
            byte[] garbage = new byte[(int) Files.size(index)];
            Arrays.fill(garbage, (byte) 0x7F);
            Files.write(index, garbage);
        });
    }

    @Test
    void offsetIndexWithRandomBytesIsRebuilt() throws IOException {
        assertDamagedOffsetIndexIsRebuilt((index, entries) -> {
            byte[] garbage = new byte[(int) Files.size(index)];
            new Random(3).nextBytes(garbage);
            Files.write(index, garbage);
        });
    }

    @Test
    void offsetIndexWithNonIncreasingOffsetsIsRebuilt() throws IOException {
        assertDamagedOffsetIndexIsRebuilt((index, entries) -> {
            int[][] reversed = new int[entries.size()][];
            for (int i = 0; i < entries.size(); i++) {
                OffsetPosition e = entries.get(entries.size() - 1 - i);
                reversed[i] = new int[] {(int) e.offset(), e.position()};
            }
            writeEntries(index, reversed);
        });
    }

    @Test
    void offsetIndexWhoseLastEntryPointsMidBatchIsRebuilt() throws IOException {
        assertDamagedOffsetIndexIsRebuilt((index, entries) -> {
            int[][] moved = new int[entries.size()][];
            for (int i = 0; i < entries.size(); i++) {
                OffsetPosition e = entries.get(i);
                int shift = i == entries.size() - 1 ? 7 : 0;
                moved[i] = new int[] {(int) e.offset(), e.position() + shift};
            }
            writeEntries(index, moved);
        });
    }

    @Test
    void offsetIndexWithAnEntryPastTheEndOfTheLogIsRebuilt() throws IOException {
        assertDamagedOffsetIndexIsRebuilt((index, entries) -> {
            int[][] beyond = new int[entries.size() + 1][];
            for (int i = 0; i < entries.size(); i++) {
                beyond[i] = new int[] {(int) entries.get(i).offset(), entries.get(i).position()};
            }
            beyond[entries.size()] = new int[] {1_000_000, 1_000_000};
            writeEntries(index, beyond);
        });
    }

    @Test
    void offsetIndexWithATruncatedLastEntryIsRebuilt() throws IOException {
        assertDamagedOffsetIndexIsRebuilt((index, entries) -> truncateFile(index, Files.size(index) - 3));
    }

    @Test
    void timeIndexWithDecreasingTimestampsIsRebuilt() throws IOException {
        Log log = create();
        appendBatches(log, 20);
        List<TimestampOffset> entries = timeEntries(log.segments().get(0).timeIndex());
        assertTrue(entries.size() >= 2, "entries: " + entries);
        long end = log.logEndOffset();
        log.close();

        Path index = LogFileNames.timeIndexFile(dir(), 0);
        ByteBuffer damaged = ByteBuffer.allocate(entries.size() * TimeIndex.ENTRY_SIZE);
        for (int i = 0; i < entries.size(); i++) {
            damaged.putLong(entries.get(entries.size() - 1 - i).timestamp()).putInt((int) entries.get(i).offset());
        }
        Files.write(index, damaged.array());

        Log reopened = open(0, end, true);
        assertEquals(1, reopened.recoveredSegmentsOnLoad());
        assertEquals(entries, timeEntries(reopened.segments().get(0).timeIndex()));
    }

    @Test
    void indexFilesWithoutALogFileAreRemovedOnOpen() throws IOException {
        Log log = create();
        appendBatches(log, 2);
        log.close();
        List<String> before = filesInDir();
        for (String orphan : List.of("00000000000000000777.index", "00000000000000000777.timeindex",
                "00000000000000000777.txnindex", "00000000000000000999.index")) {
            Files.write(dir().resolve(orphan), new byte[24]);
        }
        Log reopened = open(0, log.logEndOffset(), true);
        assertEquals(before, filesInDir());
        assertEquals(1, reopened.numberOfSegments());
        assertEquals(0, reopened.recoveredSegmentsOnLoad());
    }

    @Test
    void leftoverDeletedAndTmpFilesAreRemovedOnOpen() throws IOException {
        Log log = create();
        appendBatches(log, 2);
        log.close();
        List<String> before = filesInDir();
        Files.write(dir().resolve("00000000000000000100.log.deleted"), new byte[100]);
        Files.write(dir().resolve("00000000000000000100.index.deleted"), new byte[16]);
        Files.write(dir().resolve("leader-epoch-checkpoint.tmp"), new byte[3]);
        open(0, log.logEndOffset(), true);
        assertEquals(before, filesInDir());
    }

    // ------------------------------------------------------------------ log start offset on load

    @Test
    void logStartOffsetIsTheLargerOfTheCheckpointAndTheFirstSegmentBase() throws IOException {
        Log log = create();
        appendBatches(log, 20);
        long thirdBase = log.segments().get(2).baseOffset();
        log.deleteRecords(thirdBase); // the two oldest segments go
        assertEquals(thirdBase, log.segments().get(0).baseOffset());
        long end = log.logEndOffset();
        log.close();

        Log noCheckpoint = open(0, end, true);
        assertEquals(thirdBase, noCheckpoint.logStartOffset(), "a checkpoint below the first segment is raised");
        noCheckpoint.close();

        Log insideSegment = open(thirdBase + 2, end, true);
        assertEquals(thirdBase + 2, insideSegment.logStartOffset(), "a checkpoint inside a segment is kept");
        assertThrows(OffsetOutOfRangeException.class, () -> insideSegment.read(thirdBase + 1, 1000, end, true));
        assertContiguous(readAll(insideSegment), thirdBase + 2, end);
    }

    @Test
    void logEndBelowTheCheckpointedStartOffsetRestartsTheLogEmptyAtTheStartOffset() throws IOException {
        Log log = create();
        appendBatches(log, 10);
        long end = log.logEndOffset();
        assertEquals(end, log.deleteRecords(end).lowWatermark(), "DeleteRecords up to the high watermark");
        long activeBase = log.activeSegment().baseOffset();
        log.abandon();

        // The crash lost the tail of the active segment, which the start offset had already passed.
        Path activeLog = LogFileNames.logFile(dir(), activeBase);
        List<BatchAt> batches = batchesOf(activeLog);
        truncateFile(activeLog, batches.get(batches.size() - 2).position());

        Log reopened = open(end, 0, false);
        assertEquals(end, reopened.logStartOffset());
        assertEquals(end, reopened.logEndOffset());
        assertEquals(end, reopened.highWatermark());
        assertEquals(1, reopened.numberOfSegments());
        assertEquals(end, reopened.activeSegment().baseOffset());
        assertEquals(List.of(LogFileNames.filenamePrefixFromOffset(end) + ".index",
                LogFileNames.filenamePrefixFromOffset(end) + ".log",
                LogFileNames.filenamePrefixFromOffset(end) + ".timeindex"), filesInDir());
        assertThrows(OffsetOutOfRangeException.class, () -> reopened.read(end - 1, 1000, end, true));

        appendBatches(reopened, 1);
        assertContiguous(readAll(reopened), end, end + RECORDS_PER_BATCH);
    }

    // ------------------------------------------------------------------ through the LogManager

    private LogManager startManager() throws IOException {
        Map<String, Object> props = new HashMap<>();
        props.put("log.dirs", root.toString());
        props.put("log.segment.bytes", 1024);
        props.put("log.index.interval.bytes", 150);
        props.put("log.index.size.max.bytes", 4096);
        props.put("log.retention.ms", -1);
        LogManager manager = new LogManager(StoreConfig.fromMap(props), "cluster-1", 1, time, scheduler,
                new MetricRegistry(), new Random(11));
        managers.add(manager);
        manager.startup();
        return manager;
    }

    private void close(LogManager manager) {
        manager.close();
        managers.remove(manager);
    }

    private void crash(LogManager manager) {
        manager.closeWithoutShutdown();
        managers.remove(manager);
    }

    private Map<TopicPartition, Long> checkpoint(String name) throws IOException {
        return new OffsetCheckpointFile(root.resolve(name)).read();
    }

    @Test
    void cleanShutdownSkipsRecovery() throws IOException {
        LogManager manager = startManager();
        Log log = manager.getOrCreateLog(TP, Map.of());
        appendBatches(log, 20);
        long end = log.logEndOffset();
        close(manager);
        assertTrue(Files.exists(root.resolve(LogFileNames.CLEAN_SHUTDOWN_MARKER)));

        LogManager restarted = startManager();
        Log reopened = restarted.getLog(TP).orElseThrow();
        assertEquals(0, reopened.recoveredSegmentsOnLoad());
        assertEquals(end, reopened.logEndOffset());
        assertFalse(Files.exists(root.resolve(LogFileNames.CLEAN_SHUTDOWN_MARKER)),
                "the marker is removed on startup, so a crash from now on is seen as one");
        assertContiguous(readAll(reopened), 0, end);
    }

    @Test
    void crashRecoversTheSegmentsFromTheCheckpointedRecoveryPointOn() throws IOException {
        LogManager manager = startManager();
        Log log = manager.getOrCreateLog(TP, Map.of());
        appendBatches(log, 20);
        int segments = log.numberOfSegments();
        scheduler.tick(); // the flushes the rolls scheduled
        manager.checkpointAll(); // recovery point = base of the active segment (the last roll's flush ran)
        assertEquals(Map.of(TP, log.activeSegment().baseOffset()),
                checkpoint(LogFileNames.RECOVERY_POINT_CHECKPOINT));
        appendBatches(log, 1);
        long end = log.logEndOffset();
        assertEquals(segments, log.numberOfSegments());
        crash(manager);
        assertFalse(Files.exists(root.resolve(LogFileNames.CLEAN_SHUTDOWN_MARKER)));

        LogManager restarted = startManager();
        Log reopened = restarted.getLog(TP).orElseThrow();
        assertEquals(1, reopened.recoveredSegmentsOnLoad());
        assertEquals(end, reopened.logEndOffset());
        assertContiguous(readAll(reopened), 0, end);
    }

    @Test
    void crashWithoutAnyCheckpointRecoversEverySegment() throws IOException {
        LogManager manager = startManager();
        Log log = manager.getOrCreateLog(TP, Map.of());
        appendBatches(log, 20);
        int segments = log.numberOfSegments();
        long end = log.logEndOffset();
        crash(manager);

        LogManager restarted = startManager();
        Log reopened = restarted.getLog(TP).orElseThrow();
        assertEquals(segments, reopened.recoveredSegmentsOnLoad());
        assertEquals(end, reopened.logEndOffset());
    }

    @Test
    void crashWithATornTailThroughTheManagerTruncatesIt() throws IOException {
        LogManager manager = startManager();
        Log log = manager.getOrCreateLog(TP, Map.of());
        appendBatches(log, 8);
        long activeBase = log.activeSegment().baseOffset();
        crash(manager);
        Path activeLog = LogFileNames.logFile(dir(), activeBase);
        List<BatchAt> batches = batchesOf(activeLog);
        BatchAt last = batches.get(batches.size() - 1);
        truncateFile(activeLog, last.position() + last.size() - 1);

        LogManager restarted = startManager();
        Log reopened = restarted.getLog(TP).orElseThrow();
        assertEquals(last.baseOffset(), reopened.logEndOffset());
        appendBatches(reopened, 1);
        assertContiguous(readAll(reopened), 0, last.baseOffset() + RECORDS_PER_BATCH);
    }

    @Test
    void logStartOffsetInsideASegmentSurvivesACleanRestart() throws IOException {
        LogManager manager = startManager();
        Log log = manager.getOrCreateLog(TP, Map.of());
        appendBatches(log, 20);
        long end = log.logEndOffset();
        long secondBase = log.segments().get(1).baseOffset();
        long target = secondBase + 4; // inside the second segment, inside a batch
        assertEquals(target, manager.deleteRecords(TP, target).lowWatermark());
        close(manager);

        assertEquals(Map.of(TP, target), checkpoint(LogFileNames.LOG_START_OFFSET_CHECKPOINT));
        assertEquals("0\n1\norders 0 " + target + "\n",
                Files.readString(root.resolve(LogFileNames.LOG_START_OFFSET_CHECKPOINT), StandardCharsets.UTF_8),
                "Kafka's text format: version, count, 'topic partition offset'");
        assertEquals(Map.of(TP, end), checkpoint(LogFileNames.RECOVERY_POINT_CHECKPOINT));
        assertEquals(Map.of(TP, end), checkpoint(LogFileNames.REPLICATION_OFFSET_CHECKPOINT));

        LogManager restarted = startManager();
        Log reopened = restarted.getLog(TP).orElseThrow();
        assertEquals(target, reopened.logStartOffset());
        assertEquals(secondBase, reopened.segments().get(0).baseOffset(), "the straddling segment stays whole");
        OffsetOutOfRangeException e = assertThrows(OffsetOutOfRangeException.class,
                () -> reopened.read(target - 1, 1000, end, true));
        assertTrue(e.getMessage().contains(Long.toString(target)), e.getMessage());
        assertContiguous(readAll(reopened), target, end);
    }

    @Test
    void logStartOffsetSurvivesACrashAfterItsCheckpointWasWritten() throws IOException {
        LogManager manager = startManager();
        Log log = manager.getOrCreateLog(TP, Map.of());
        appendBatches(log, 20);
        long end = log.logEndOffset();
        long target = log.segments().get(2).baseOffset() + 1;
        manager.deleteRecords(TP, target);

        // log.flush.start.offset.checkpoint.interval.ms (60 s): the scheduled task writes the checkpoint.
        time.advance(60_000);
        assertEquals(Map.of(TP, target), checkpoint(LogFileNames.LOG_START_OFFSET_CHECKPOINT));
        crash(manager);

        LogManager restarted = startManager();
        Log reopened = restarted.getLog(TP).orElseThrow();
        assertEquals(target, reopened.logStartOffset());
        assertEquals(end, reopened.logEndOffset());
        assertThrows(OffsetOutOfRangeException.class, () -> reopened.read(target - 1, 1000, end, true));
    }

    @Test
    void logStartOffsetNeverGoesBackAcrossRepeatedRestarts() throws IOException {
        LogManager manager = startManager();
        Log log = manager.getOrCreateLog(TP, Map.of());
        appendBatches(log, 10);
        manager.deleteRecords(TP, 7);
        close(manager);
        for (int i = 0; i < 3; i++) {
            LogManager again = startManager();
            assertEquals(7, again.getLog(TP).orElseThrow().logStartOffset(), "restart #" + i);
            close(again);
        }
    }
}
