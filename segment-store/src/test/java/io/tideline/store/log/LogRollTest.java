package io.tideline.store.log;

import static io.tideline.store.log.LogTestSupport.DAY_MS;
import static io.tideline.store.log.LogTestSupport.baseOffsets;
import static io.tideline.store.log.LogTestSupport.batch;
import static io.tideline.store.log.LogTestSupport.batchWithTimestamps;
import static io.tideline.store.log.LogTestSupport.followerBatch;
import static io.tideline.store.log.LogTestSupport.readAll;
import static io.tideline.store.log.LogTestSupport.sparseFollowerBatch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.store.config.LogConfig;
import io.tideline.store.index.OffsetIndex;
import io.tideline.store.index.TimeIndex;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.segment.LogFileNames;
import io.tideline.store.segment.LogSegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** When the active segment rolls (docs/behaviours.md B2-B6) and what a roll leaves behind (B7). */
class LogRollTest {
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

    private static int sizeOf(MemoryRecords records) {
        return records.sizeInBytes();
    }

    // ---------------------------------------------------------------- segment.bytes

    @Test
    void anAppendOfSeveralBatchesLargerThanASegmentSpansSegmentsAsSeparateAppendsWould() throws Exception {
        long ts = env.now();
        int batchSize = sizeOf(batch(ts, 2));
        // A producer request of seven batches of one partition, three segments' worth at most each.
        Log log = env.open(Map.of("segment.bytes", 3 * batchSize));
        MemoryRecords request = MemoryRecords.of(java.util.stream.IntStream.range(0, 7)
                .mapToObj(i -> batch(ts, 2).batches().get(0)).toArray(RecordBatch[]::new));
        LogAppendInfo info = log.appendAsLeader(request, 0);

        assertEquals(0, info.firstOffset());
        assertEquals(13, info.lastOffset());
        assertEquals(List.of(0L, 6L, 12L), baseOffsets(log), "runs of whole batches, each fitting a segment");
        for (LogSegment segment : log.segments()) {
            assertTrue(segment.size() <= 3 * batchSize, segment + " passed segment.bytes");
        }
        log.updateHighWatermark(log.logEndOffset());
        assertEquals(14, readAll(log, 0).size());
        for (int i = 0; i < 14; i++) {
            assertEquals(i, readAll(log, 0).get(i).offset());
        }
    }

    @Test
    void aSingleBatchLargerThanASegmentIsRefused() throws Exception {
        long ts = env.now();
        Log log = env.open(Map.of("segment.bytes", sizeOf(batch(ts, 1))));
        io.tideline.common.errors.TidelineException e = org.junit.jupiter.api.Assertions.assertThrows(
                io.tideline.common.errors.TidelineException.class, () -> log.appendAsLeader(batch(ts, 3), 0));
        assertEquals(io.tideline.common.errors.Errors.MESSAGE_TOO_LARGE, e.error());
        assertEquals(0, log.logEndOffset());
    }

    @Test
    void appendThatWouldPassSegmentBytesGoesToANewSegment() throws Exception {
        long ts = env.now();
        int batchSize = sizeOf(batch(ts, 1));
        // Room for exactly three batches: the third fills the segment to segment.bytes, the fourth rolls.
        Log log = env.open(Map.of("segment.bytes", 3 * batchSize));
        for (int i = 0; i < 3; i++) {
            log.appendAsLeader(batch(ts, 1), 0);
        }
        assertEquals(1, log.numberOfSegments());
        assertEquals(3 * batchSize, log.activeSegment().size(), "a segment may be filled up to segment.bytes exactly");

        log.appendAsLeader(batch(ts, 1), 0);

        assertEquals(List.of(0L, 3L), baseOffsets(log));
        assertEquals(3 * batchSize, log.segments().get(0).size());
        assertEquals(batchSize, log.activeSegment().size());
        for (LogSegment segment : log.segments()) {
            assertTrue(segment.size() <= 3 * batchSize, segment + " passed segment.bytes");
        }
    }

    @Test
    void requestThatDoesNotFitMovesWholeToTheNewSegmentNeverSplit() throws Exception {
        long ts = env.now();
        int batchSize = sizeOf(batch(ts, 1));
        Log log = env.open(Map.of("segment.bytes", 3 * batchSize));
        log.appendAsLeader(batch(ts, 1), 0);
        log.appendAsLeader(batch(ts, 1), 0);
        // Two batches in one request: one would still fit, but the request goes whole to a new segment.
        MemoryRecords twoBatches = MemoryRecords.of(batch(ts, 1).batches().get(0), batch(ts, 1).batches().get(0));

        log.appendAsLeader(twoBatches, 0);

        assertEquals(List.of(0L, 2L), baseOffsets(log));
        assertEquals(2 * batchSize, log.segments().get(0).size());
        assertEquals(2 * batchSize, log.activeSegment().size());
        assertEquals(4, readAll(log, 0).size());
    }

    @Test
    void batchAsLargeAsSegmentBytesFillsAFreshSegmentAlone() throws Exception {
        long ts = env.now();
        MemoryRecords big = batch(ts, 20);
        Log log = env.open(Map.of("segment.bytes", sizeOf(big)));

        log.appendAsLeader(batch(ts, 1), 0);
        log.appendAsLeader(big, 0);
        log.appendAsLeader(batch(ts, 1), 0);

        assertEquals(List.of(0L, 1L, 21L), baseOffsets(log));
        assertEquals(sizeOf(big), log.segments().get(1).size(), "the batch is kept whole in its own segment");
        assertEquals(22, readAll(log, 0).size());
    }

    // ---------------------------------------------------------------- segment.ms

    @Test
    void timeRollComparesRecordTimestampsWithTheFirstBatchOfTheSegment() throws Exception {
        Log log = env.open(Map.of("segment.ms", 1000, "segment.jitter.ms", 0));
        long first = env.now();
        log.appendAsLeader(batch(first, 1), 0);
        log.appendAsLeader(batch(first + 1000, 1), 0);
        assertEquals(1, log.numberOfSegments(), "an age of exactly segment.ms does not roll");

        log.appendAsLeader(batch(first + 1001, 1), 0);

        assertEquals(List.of(0L, 2L), baseOffsets(log));
        // The new segment's age starts at its own first batch.
        log.appendAsLeader(batch(first + 2000, 1), 0);
        assertEquals(2, log.numberOfSegments());
        log.appendAsLeader(batch(first + 2002, 1), 0);
        assertEquals(List.of(0L, 2L, 4L), baseOffsets(log));
    }

    @Test
    void timeRollUsesTheIncomingBatchMaxTimestampNotItsFirstRecord() throws Exception {
        Log log = env.open(Map.of("segment.ms", 1000, "segment.jitter.ms", 0));
        long first = env.now();
        log.appendAsLeader(batch(first, 1), 0);

        log.appendAsLeader(batchWithTimestamps(first + 10, first + 5000, first + 20), 0);

        assertEquals(List.of(0L, 1L), baseOffsets(log));
    }

    @Test
    void segmentAgeStartsAtTheMaxTimestampOfItsFirstBatch() throws Exception {
        Log log = env.open(Map.of("segment.ms", 1000, "segment.jitter.ms", 0));
        long first = env.now();
        log.appendAsLeader(batchWithTimestamps(first, first + 500), 0);

        log.appendAsLeader(batch(first + 1400, 1), 0); // 1400 after its first record, 900 after its max
        assertEquals(1, log.numberOfSegments());

        log.appendAsLeader(batch(first + 1501, 1), 0);
        assertEquals(List.of(0L, 3L), baseOffsets(log));
    }

    @Test
    void wallClockAloneNeverRollsAndIdleSegmentStaysActive() throws Exception {
        Log log = env.open(Map.of("segment.ms", 1000, "segment.jitter.ms", 0, "retention.ms", 7 * DAY_MS));
        long first = env.now();
        log.appendAsLeader(batch(first, 1), 0);

        env.time.advance(30 * DAY_MS);
        log.deleteOldSegments();
        assertEquals(1, log.numberOfSegments(), "no roll without an append (docs/behaviours.md B6)");

        // An append whose records are still young by their own timestamps does not roll either,
        // however late the wall clock says it is.
        log.appendAsLeader(batch(first + 500, 1), 0);
        assertEquals(1, log.numberOfSegments());
        assertEquals(0L, log.activeSegment().baseOffset());
    }

    @Test
    void emptySegmentNeverRollsOnTime() throws Exception {
        Log log = env.open(Map.of("segment.ms", 1000, "segment.jitter.ms", 0));
        long first = env.now();
        log.appendAsLeader(batch(first, 1), 0);
        log.appendAsLeader(batch(first + 5000, 1), 0); // rolls: new segment at 1 holds this batch
        assertEquals(List.of(0L, 1L), baseOffsets(log));
        log.roll(log.logEndOffset()); // an empty active segment at 2

        log.appendAsLeader(batch(first + 90_000, 1), 0);

        assertEquals(List.of(0L, 1L, 2L), baseOffsets(log), "the first batch of an empty segment lands in it");
    }

    // ---------------------------------------------------------------- segment.jitter.ms

    @Test
    void jitterIsDrawnBelowTheJitterBoundAndFixedForTheSegment() throws Exception {
        Log log = env.open("orders-0", Map.of("segment.ms", 10_000, "segment.jitter.ms", 4_000), new Random(11));
        long jitter = log.activeSegment().rollJitterMs();
        assertTrue(jitter >= 0 && jitter < 4_000, "jitter " + jitter);
        assertTrue(jitter > 0, "the seed gives a non-zero jitter, or this test shows nothing");
        long first = env.now();
        log.appendAsLeader(batch(first, 1), 0);
        assertEquals(jitter, log.activeSegment().rollJitterMs(), "drawn once, when the segment is created");

        log.appendAsLeader(batch(first + 10_000 - jitter, 1), 0);
        assertEquals(1, log.numberOfSegments(), "an age of segment.ms - jitter does not roll yet");
        assertEquals(jitter, log.activeSegment().rollJitterMs());

        // Still below segment.ms, but past segment.ms - jitter: rolls.
        log.appendAsLeader(batch(first + 10_000 - jitter + 1, 1), 0);
        assertEquals(List.of(0L, 2L), baseOffsets(log));
    }

    @Test
    void jitterIsBelowSegmentMsWhenTheJitterBoundIsLarger() throws Exception {
        Set<Long> jitters = new HashSet<>();
        for (int seed = 0; seed < 20; seed++) {
            Log log = env.open("orders-" + seed, Map.of("segment.ms", 10_000, "segment.jitter.ms", 1_000_000),
                    new Random(seed));
            long jitter = log.activeSegment().rollJitterMs();
            assertTrue(jitter >= 0 && jitter < 10_000, "seed " + seed + ": jitter " + jitter + " not below segment.ms");
            jitters.add(jitter);
        }
        assertTrue(jitters.size() > 1, "partitions created together must not all get the same jitter: " + jitters);
    }

    @Test
    void eachNewSegmentDrawsItsOwnJitter() throws Exception {
        Log log = env.open("orders-0", Map.of("segment.ms", 1_000_000, "segment.jitter.ms", 500_000), new Random(3));
        Map<Long, Long> jitterByBase = new HashMap<>();
        for (int i = 0; i < 6; i++) {
            log.appendAsLeader(batch(env.now(), 1), 0);
            jitterByBase.put(log.activeSegment().baseOffset(), log.activeSegment().rollJitterMs());
            log.roll(log.logEndOffset());
        }
        for (long jitter : jitterByBase.values()) {
            assertTrue(jitter >= 0 && jitter < 500_000, "jitter " + jitter);
        }
        assertTrue(new HashSet<>(jitterByBase.values()).size() > 1, "every segment got the same jitter: " + jitterByBase);
        // Rolling does not redraw the jitter of the segments it closed.
        for (LogSegment closed : log.segments().subList(0, 6)) {
            assertEquals(jitterByBase.get(closed.baseOffset()), closed.rollJitterMs());
        }
    }

    @Test
    void differentSeedsRollTheSamePartitionAtDifferentAges() throws Exception {
        // With the same records, the age at which the first roll happens depends on the drawn jitter.
        Set<Long> rollAges = new HashSet<>();
        for (int seed = 0; seed < 5; seed++) {
            Log log = env.open("jitter-" + seed, Map.of("segment.ms", 100_000, "segment.jitter.ms", 50_000),
                    new Random(seed));
            long first = env.now();
            log.appendAsLeader(batch(first, 1), 0);
            long age = 0;
            while (log.numberOfSegments() == 1) {
                age += 1_000;
                log.appendAsLeader(batch(first + age, 1), 0);
            }
            rollAges.add(age);
            assertTrue(age <= 101_000 && age > 50_000, "rolled at age " + age);
        }
        assertTrue(rollAges.size() > 1, "all seeds rolled at the same age: " + rollAges);
    }

    // ---------------------------------------------------------------- full indexes

    @Test
    void fullOffsetIndexRollsTheSegment() throws Exception {
        // 48 bytes: 6 offset entries, 4 time entries (one kept for the final entry). One timestamp for
        // every batch, so the time index gets a single entry and only the offset index can fill up.
        Log log = env.open(Map.of("segment.index.bytes", 48, "index.interval.bytes", 0));
        long ts = env.now();
        for (int i = 0; i < 7; i++) {
            log.appendAsLeader(batch(ts, 1), 0); // every batch after the first gets an offset entry
        }
        LogSegment first = log.activeSegment();
        assertTrue(first.offsetIndex().isFull());
        assertTrue(!first.timeIndex().isFull());
        assertEquals(1, log.numberOfSegments());

        log.appendAsLeader(batch(ts, 1), 0);

        assertEquals(List.of(0L, 7L), baseOffsets(log));
        assertEquals(6, log.segments().get(0).offsetIndex().entries());
        assertEquals(8, readAll(log, 0).size());
    }

    @Test
    void fullTimeIndexRollsTheSegment() throws Exception {
        // 48 bytes: 4 time entries of which 3 usable, 6 offset entries. Rising timestamps give the
        // time index one entry per batch, so it is full after four batches while the offset index is not.
        Log log = env.open(Map.of("segment.index.bytes", 48, "index.interval.bytes", 0));
        long ts = env.now();
        for (int i = 0; i < 4; i++) {
            log.appendAsLeader(batch(ts + i, 1), 0);
        }
        LogSegment first = log.activeSegment();
        assertTrue(first.timeIndex().isFull());
        assertTrue(!first.offsetIndex().isFull());
        assertEquals(1, log.numberOfSegments());

        log.appendAsLeader(batch(ts + 4, 1), 0);

        assertEquals(List.of(0L, 4L), baseOffsets(log));
        assertEquals(ts + 3, log.segments().get(0).timeIndex().lastEntry().timestamp());
    }

    // ---------------------------------------------------------------- relative offset overflow

    @Test
    void followerBatchWhoseOffsetsDoNotFitInt32RelativeToTheBaseRolls() throws Exception {
        Log log = env.open(Map.of());
        long ts = env.now();
        log.appendAsFollower(followerBatch(0, 0, ts, 1));
        // Ends exactly at base + Integer.MAX_VALUE: still fits the segment at 0.
        log.appendAsFollower(sparseFollowerBatch(1, Integer.MAX_VALUE - 1, ts));
        assertEquals((long) Integer.MAX_VALUE + 1, log.logEndOffset());
        assertEquals(1, log.numberOfSegments());

        // The next offset is Integer.MAX_VALUE + 1 above the base: a new segment starts at it.
        long next = (long) Integer.MAX_VALUE + 1;
        log.appendAsFollower(followerBatch(next, 0, ts, 3));

        assertEquals(List.of(0L, next), baseOffsets(log));
        assertEquals(next + 3, log.logEndOffset());
        try (FetchDataInfo fetch = log.read(next + 1, 10_000, log.logEndOffset(), true)) {
            RecordBatch batch = fetch.records().toMemoryRecords().batches().get(0);
            assertEquals(next, batch.baseOffset());
            assertEquals(next + 2, batch.lastOffset());
        }
    }

    @Test
    void followerBatchReachingPastInt32FromTheBaseRollsBeforeItIsWritten() throws Exception {
        Log log = env.open(Map.of());
        long ts = env.now();
        log.appendAsFollower(followerBatch(0, 0, ts, 1));

        // One batch from 1 to Integer.MAX_VALUE + 1: its last offset does not fit the segment at 0.
        log.appendAsFollower(sparseFollowerBatch(1, Integer.MAX_VALUE, ts));

        assertEquals(List.of(0L, 1L), baseOffsets(log));
        assertEquals((long) Integer.MAX_VALUE + 2, log.logEndOffset());
    }

    // ---------------------------------------------------------------- what a roll leaves behind

    @Test
    void rollTrimsTheClosedIndexesAndWritesTheMaxTimestampLast() throws Exception {
        long ts = env.now();
        int batchSize = sizeOf(batch(ts, 1));
        // An index entry about every 5 batches, so the largest timestamp (in the last batch) is not
        // indexed before the roll.
        Log log = env.open(Map.of("segment.bytes", 22 * batchSize, "segment.index.bytes", 4096,
                "index.interval.bytes", 4 * batchSize));
        // What 22 batches can need at one entry per 4 batches, well below segment.index.bytes.
        int preallocated = LogSegment.activeIndexBytes(22 * batchSize, 4 * batchSize, 4096);
        assertTrue(preallocated < 4096, "preallocated: " + preallocated);
        for (int i = 0; i < 22; i++) {
            log.appendAsLeader(batch(ts + i * 10, 1), 0);
        }
        LogSegment segment = log.activeSegment();
        Path dir = log.dir();
        Path offsetIndexFile = LogFileNames.offsetIndexFile(dir, 0);
        Path timeIndexFile = LogFileNames.timeIndexFile(dir, 0);
        assertEquals(preallocated - preallocated % OffsetIndex.ENTRY_SIZE, Files.size(offsetIndexFile),
                "preallocated while active (whole entries)");
        assertEquals(preallocated - preallocated % TimeIndex.ENTRY_SIZE, Files.size(timeIndexFile),
                "preallocated while active (whole entries)");
        long maxTimestamp = ts + 21 * 10;
        assertTrue(segment.timeIndex().lastEntry().timestamp() < maxTimestamp);

        log.appendAsLeader(batch(ts + 220, 1), 0); // rolls on size

        assertEquals(List.of(0L, 22L), baseOffsets(log));
        int offsetEntries = segment.offsetIndex().entries();
        int timeEntries = segment.timeIndex().entries();
        assertTrue(offsetEntries > 0);
        assertEquals((long) offsetEntries * OffsetIndex.ENTRY_SIZE, Files.size(offsetIndexFile));
        assertEquals((long) timeEntries * TimeIndex.ENTRY_SIZE, Files.size(timeIndexFile));
        assertEquals(maxTimestamp, segment.maxTimestampSoFar());
        // The final entry, read from the file itself: (max timestamp, its offset relative to the base).
        ByteBuffer last = ByteBuffer.allocate(TimeIndex.ENTRY_SIZE);
        try (FileChannel channel = FileChannel.open(timeIndexFile, StandardOpenOption.READ)) {
            channel.read(last, Files.size(timeIndexFile) - TimeIndex.ENTRY_SIZE);
        }
        last.flip();
        assertEquals(maxTimestamp, last.getLong());
        assertEquals(21, last.getInt());
        // The new active segment's indexes are preallocated again.
        assertEquals(preallocated - preallocated % OffsetIndex.ENTRY_SIZE, Files.size(LogFileNames.offsetIndexFile(dir, 22)));
        assertNotEquals(0, Files.size(LogFileNames.timeIndexFile(dir, 22)));
    }

    // ---------------------------------------------------------------- index preallocation

    @Test
    void newActiveSegmentIndexesAreSizedForWhatSegmentBytesCanHoldAtMostSegmentIndexBytes() {
        // 16 MiB at one entry per 4 KiB: 4,096 entries, plus the spares, of the time index's 12 bytes.
        assertEquals((16 * 1024 * 1024 / 4096 + 3) * TimeIndex.ENTRY_SIZE,
                LogSegment.activeIndexBytes(16 * 1024 * 1024, 4096, 10 * 1024 * 1024));
        // 1 GiB would need 3 MiB: below the 10 MiB cap.
        assertEquals((1024 * 1024 * 1024 / 4096 + 3) * TimeIndex.ENTRY_SIZE,
                LogSegment.activeIndexBytes(1024 * 1024 * 1024, 4096, 10 * 1024 * 1024));
        // An entry per batch (index.interval.bytes 0): at most one per 61-byte batch header.
        assertEquals(10 * 1024 * 1024, LogSegment.activeIndexBytes(1024 * 1024 * 1024, 0, 10 * 1024 * 1024));
        assertEquals((61_000 / RecordBatch.RECORDS_OFFSET + 3) * TimeIndex.ENTRY_SIZE,
                LogSegment.activeIndexBytes(61_000, 0, 10 * 1024 * 1024));
    }

    @Test
    void segmentThatOutgrowsItsPreallocatedIndexRollsWhenTheIndexIsFull() throws Exception {
        long ts = env.now();
        int batchSize = sizeOf(batch(ts, 1));
        // Sized for 4 batches at an entry per batch; then segment.bytes is raised while it is active.
        Log log = env.open(Map.of("segment.bytes", 4 * batchSize, "index.interval.bytes", 0));
        int slots = log.activeSegment().offsetIndex().maxEntries();
        log.updateConfig(LogConfig.fromMap(Map.of("segment.bytes", 1000 * batchSize, "index.interval.bytes", 0)));

        for (int i = 0; i < 3 * slots; i++) {
            log.appendAsLeader(batch(ts, 1), 0);
        }

        assertTrue(log.numberOfSegments() > 1, "the full index rolled the segment: " + log);
        assertEquals(slots + 1, log.segments().get(1).baseOffset(),
                "one entry per batch after the first, until the preallocated index was full");
        assertEquals(3L * slots, readAll(log, 0).size());
    }
}
