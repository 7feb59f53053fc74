package io.tideline.store.cleaner;

import static io.tideline.store.cleaner.CleanerFixture.compactConfig;
import static io.tideline.store.cleaner.CleanerFixture.readBatches;
import static io.tideline.store.cleaner.CleanerFixture.readRecords;
import static io.tideline.store.cleaner.CleanerFixture.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.store.log.Log;
import io.tideline.store.producer.ProducerStateEntry;
import io.tideline.store.record.CompressionType;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.segment.LogFileNames;
import io.tideline.store.segment.LogSegment;
import io.tideline.store.segment.SegmentSwap;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CleanerTest {
    @TempDir
    Path root;
    CleanerFixture fx;

    @BeforeEach
    void setUp() {
        fx = new CleanerFixture(root);
    }

    @AfterEach
    void tearDown() {
        fx.close();
    }

    private static MemoryRecords one(long ts, String key, String value) {
        return new RecordBatchBuilder(0).append(ts, key, value).buildRecords();
    }

    private void write(Log log, String key, String value) {
        log.appendAsLeader(one(fx.time.milliseconds(), key, value), 0);
    }

    private static Map<Long, String> keyedByOffset(List<Record> records) {
        Map<Long, String> out = new LinkedHashMap<>();
        for (Record r : records) {
            out.put(r.offset(), string(r.key()) + "=" + string(r.value()));
        }
        return out;
    }

    @Test
    void cleaningKeepsTheLatestValueOfEachKeyAtItsOriginalOffset() throws Exception {
        Log log = fx.open("t-0", compactConfig(300));
        for (int i = 0; i < 40; i++) {
            write(log, "k" + (i % 4), "v" + i);
        }
        log.roll(log.logEndOffset());
        long segmentsBefore = log.numberOfSegments();
        Cleaner.Result result = fx.clean(log, 0);

        assertEquals(40, result.endOffset());
        Map<Long, String> expected = new LinkedHashMap<>();
        for (int i = 36; i < 40; i++) {
            expected.put((long) i, "k" + (i % 4) + "=v" + i);
        }
        assertEquals(expected, keyedByOffset(readRecords(log)));
        assertEquals(0, log.logStartOffset(), "compaction never moves the log start offset (B181)");
        assertEquals(40, log.logEndOffset());
        assertEquals(segmentsBefore, log.numberOfSegments(), "each segment filled segment.bytes: none merge yet");
        assertEquals(40, result.stats().messagesRead());
        assertEquals(4, result.stats().messagesWritten());
    }

    @Test
    void segmentsThatCleaningShrankAreMergedWithinSegmentBytesByTheNextCleaning() throws Exception {
        Log log = fx.open("t-0", compactConfig(300));
        for (int i = 0; i < 40; i++) {
            write(log, "k" + (i % 4), "v" + i);
        }
        log.roll(log.logEndOffset());
        long next = fx.clean(log, 0).endOffset();
        int afterFirst = log.numberOfSegments();
        write(log, "k0", "again");
        log.roll(log.logEndOffset());
        fx.clean(log, next);
        assertTrue(log.numberOfSegments() < afterFirst, log.numberOfSegments() + " segments, had " + afterFirst);
        for (LogSegment segment : log.segments()) {
            assertTrue(segment.size() <= 300);
        }
        assertEquals(Map.of(37L, "k1=v37", 38L, "k2=v38", 39L, "k3=v39", 40L, "k0=again"),
                keyedByOffset(readRecords(log)));
    }

    @Test
    void recordsWithoutAKeyAreRemoved() throws Exception {
        // A compacted topic refuses keyless records (B215); a topic turned compact later still holds its old ones.
        Map<String, Object> deleteFirst = compactConfig(1024);
        deleteFirst.put("cleanup.policy", "delete");
        Log log = fx.open("t-0", deleteFirst);
        write(log, "a", "1");
        log.appendAsLeader(new RecordBatchBuilder(0).append(fx.time.milliseconds(), (byte[]) null, "x".getBytes())
                .buildRecords(), 0);
        write(log, "a", "2");
        log.roll(log.logEndOffset());
        log.updateConfig(log.config().withOverrides(Map.of("cleanup.policy", "compact")));
        Cleaner.Result result = fx.clean(log, 0);
        assertEquals(Map.of(2L, "a=2"), keyedByOffset(readRecords(log)));
        assertEquals(1, result.stats().keylessDiscarded());
    }

    @Test
    void aTombstoneGetsADeleteHorizonAndGoesAtTheFirstCleaningPastIt() throws Exception {
        Map<String, Object> config = compactConfig(1024);
        config.put("delete.retention.ms", 60_000L);
        Log log = fx.open("t-0", config);
        write(log, "a", "1");
        write(log, "b", "1");
        write(log, "a", null);
        log.roll(log.logEndOffset());
        long firstCleaning = fx.time.milliseconds();
        long next = fx.clean(log, 0).endOffset();

        List<RecordBatch> batches = readBatches(log);
        RecordBatch tombstoneBatch = batches.stream().filter(b -> b.baseOffset() == 2).findFirst().orElseThrow();
        assertTrue(tombstoneBatch.hasDeleteHorizon());
        assertEquals(firstCleaning + 60_000L, tombstoneBatch.deleteHorizonMs());
        assertEquals(firstCleaning, tombstoneBatch.records().get(0).timestamp(), "record timestamps survive the horizon");
        assertEquals(Map.of(1L, "b=1", 2L, "a=null"), keyedByOffset(readRecords(log)));

        // Before the horizon a cleaning keeps the tombstone; at the horizon it goes (B185).
        fx.time.advance(59_999L);
        write(log, "c", "1");
        log.roll(log.logEndOffset());
        next = fx.clean(log, next).endOffset();
        assertEquals(Map.of(1L, "b=1", 2L, "a=null", 3L, "c=1"), keyedByOffset(readRecords(log)));
        fx.time.advance(1L);
        write(log, "d", "1");
        log.roll(log.logEndOffset());
        fx.clean(log, next);
        assertEquals(Map.of(1L, "b=1", 3L, "c=1", 4L, "d=1"), keyedByOffset(readRecords(log)));
    }

    @Test
    void aLoneTombstoneBeforeItsHorizonStays() throws Exception {
        Log log = fx.open("t-0", compactConfig(1024));
        write(log, "a", null);
        log.roll(log.logEndOffset());
        fx.clean(log, 0);
        assertEquals(Map.of(0L, "a=null"), keyedByOffset(readRecords(log)));
    }

    @Test
    void retainedRecordsKeepTheirBatchOffsetsCodecAndGaps() throws Exception {
        Log log = fx.open("t-0", compactConfig(4096));
        RecordBatchBuilder builder = new RecordBatchBuilder(0, CompressionType.GZIP);
        for (int i = 0; i < 6; i++) {
            builder.append(fx.time.milliseconds(), "k" + (i % 3), "v" + i);
        }
        log.appendAsLeader(builder.buildRecords(), 0);
        write(log, "k0", "late");
        log.roll(log.logEndOffset());
        fx.clean(log, 0);

        List<RecordBatch> batches = readBatches(log);
        RecordBatch first = batches.get(0);
        assertEquals(CompressionType.GZIP, first.compressionType());
        assertEquals(0, first.baseOffset());
        assertEquals(5, first.lastOffset(), "the batch keeps its last offset");
        assertEquals(List.of(4L, 5L), first.records().stream().map(Record::offset).toList());
        assertEquals(Map.of(4L, "k1=v4", 5L, "k2=v5", 6L, "k0=late"), keyedByOffset(readRecords(log)));
    }

    @Test
    void anIdempotentProducersLastBatchStaysAsAnEmptyBatchSoItsSequenceSurvives() throws Exception {
        Log log = fx.open("t-0", compactConfig(4096));
        log.appendAsLeader(new RecordBatchBuilder(0).producer(77L, (short) 0, 0)
                .append(fx.time.milliseconds(), "a", "1").append(fx.time.milliseconds(), "b", "1").buildRecords(), 0);
        write(log, "a", "2");
        write(log, "b", "2");
        log.roll(log.logEndOffset());
        fx.clean(log, 0);

        RecordBatch empty = readBatches(log).get(0);
        assertEquals(0, empty.recordCount());
        assertEquals(77L, empty.producerId());
        assertEquals(0, empty.baseSequence());
        assertEquals(1, empty.lastOffset());
        empty.ensureValid();

        Log reopened = reopen(log);
        ProducerStateEntry producer = reopened.activeProducers().stream().filter(p -> p.producerId() == 77L)
                .findFirst().orElseThrow();
        assertEquals(1, producer.lastSeq());
    }

    @Test
    void aFetchAtAnOffsetCleanedAwayReturnsTheNextBatchAndLookupsByTimeSkipTheGaps() throws Exception {
        Log log = fx.open("t-0", compactConfig(400));
        for (int i = 0; i < 30; i++) {
            fx.time.advance(10);
            write(log, "k" + (i % 3), "v" + i);
        }
        long t5 = fx.time.milliseconds() - 24 * 10;
        log.roll(log.logEndOffset());
        fx.clean(log, 0);

        try (var fetch = log.read(3, 1 << 20, log.highWatermark(), true)) {
            List<Record> records = fetch.records().toMemoryRecords().records();
            assertEquals(27L, records.get(0).offset());
        }
        assertEquals(0, log.logStartOffset());
        Optional<LogSegment.TimestampAndOffset> byTime = log.fetchOffsetByTimestamp(t5);
        assertEquals(27L, byTime.orElseThrow().offset(), "the first surviving record at or after the time");
        assertEquals(29L, log.fetchOffsetByTimestamp(fx.time.milliseconds()).orElseThrow().offset());
    }

    @Test
    void theCleanedSegmentsIndexesPassTheLoadersSanityCheckAfterARestart() throws Exception {
        Log log = fx.open("t-0", compactConfig(600));
        for (int i = 0; i < 200; i++) {
            write(log, "k" + (i % 7), "value-" + i);
        }
        log.roll(log.logEndOffset());
        fx.clean(log, 0);
        Map<Long, String> before = keyedByOffset(readRecords(log));
        Log reopened = reopen(log);
        assertEquals(0, reopened.recoveredSegmentsOnLoad(), "no index needed a rebuild");
        assertEquals(before, keyedByOffset(readRecords(reopened)));
        try (Stream<Path> files = Files.list(reopened.dir())) {
            assertFalse(files.anyMatch(p -> p.toString().endsWith(".cleaned") || p.toString().endsWith(".swap")));
        }
    }

    @Test
    void aCleaningWhoseSegmentsRetentionTookMeanwhileSwapsNothing() throws Exception {
        // compact,delete: DeleteRecords applies (B221) and moves the start past the first segment mid-cleaning.
        Map<String, Object> config = compactConfig(300);
        config.put("cleanup.policy", "compact,delete");
        Log log = fx.open("t-0", config);
        for (int i = 0; i < 40; i++) {
            write(log, "k" + (i % 4), "v" + i);
        }
        log.roll(log.logEndOffset());
        long secondSegment = log.segments().get(1).baseOffset();
        LogToClean cleanable = LogToClean.evaluate(log, log.cleanerView(), OptionalLong.of(0), fx.time.milliseconds());
        boolean[] deleted = {false};
        assertThrows(LogCleaningAbortedException.class,
                () -> CleanerFixture.cleaner(fx.time, SegmentSwap.StepListener.NONE)
                        .clean(cleanable, () -> {
                            if (!deleted[0]) {
                                deleted[0] = true;
                                log.deleteRecords(secondSegment);
                                log.deleteOldSegments();
                            }
                        }));
        assertEquals(secondSegment, log.logStartOffset());
        try (Stream<Path> files = Files.list(log.dir())) {
            assertFalse(files.anyMatch(p -> p.toString().endsWith(".cleaned") || p.toString().endsWith(".swap")));
        }
        assertEquals(40 - secondSegment, readRecords(log).size(), "nothing of the aborted cleaning is in the log (B189)");
    }

    /**
     * A follower's truncation into a closed segment the cleaner is rewriting makes it the active segment; appends
     * and a roll close it again, the same segment object with other records. The cleaning began before the
     * truncation, so its copy holds the truncated records: it must not be swapped in (B189).
     */
    @Test
    void aCleaningOfASegmentTruncatedAndRolledAgainMeanwhileSwapsNothing() throws Exception {
        Log log = fx.open("t-0", compactConfig(300));
        for (int i = 0; i < 40; i++) {
            write(log, "k" + (i % 4), "v" + i);
        }
        log.roll(log.logEndOffset());
        LogSegment second = log.segments().get(1);
        long truncateAt = second.baseOffset() + 1;
        String secondWritten = LogFileNames.filenamePrefixFromOffset(second.baseOffset()) + " .cleaned written";
        LogToClean cleanable = LogToClean.evaluate(log, log.cleanerView(), OptionalLong.of(0), fx.time.milliseconds());
        Map<Long, String> expected = new LinkedHashMap<>();
        SegmentSwap.StepListener truncateThenRoll = step -> {
            if (step.equals(secondWritten) && log.logEndOffset() > truncateAt) {
                log.truncateTo(truncateAt);
                write(log, "k9", "after-truncation");
                log.roll(log.logEndOffset());
                log.updateHighWatermark(log.logEndOffset());
                try {
                    expected.putAll(keyedByOffset(readRecords(log).stream()
                            .filter(r -> r.offset() >= second.baseOffset()).toList()));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
        assertThrows(LogCleaningAbortedException.class,
                () -> CleanerFixture.cleaner(fx.time, truncateThenRoll).clean(cleanable, () -> { }));

        assertSame(second, log.segments().get(1), "the truncated segment stays in the log, closed again");
        assertEquals(Map.of(truncateAt - 1, "k" + ((truncateAt - 1) % 4) + "=v" + (truncateAt - 1),
                        truncateAt, "k9=after-truncation"), expected);
        assertEquals(expected, keyedByOffset(readRecords(log).stream()
                .filter(r -> r.offset() >= second.baseOffset()).toList()),
                "the segment holds what the truncation and the append left, not the cleaning's copy");
    }

    private Log reopen(Log log) throws Exception {
        Path dir = log.dir();
        log.close();
        return fx.open(dir, compactConfig(4096));
    }
}
