package io.tideline.store.log;

import static io.tideline.store.log.LogTestSupport.HOUR_MS;
import static io.tideline.store.log.LogTestSupport.batch;
import static io.tideline.store.log.LogTestSupport.batchWithTimestamps;
import static io.tideline.store.log.LogTestSupport.fileNames;
import static io.tideline.store.log.LogTestSupport.readAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.OffsetOutOfRangeException;
import io.tideline.store.dir.DeletedOpenFile;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.segment.LogFileNames;
import io.tideline.store.segment.LogSegment.TimestampAndOffset;
import java.io.ByteArrayOutputStream;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** Reads: bounds, byte limits, the upper offset bound, reads of deleted segments, lookup by time. */
class LogReadTest {
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

    /** 100 records in batches of 10 in one segment. */
    private Log hundredRecords() throws Exception {
        Log log = env.open(Map.of());
        LogTestSupport.appendBatches(log, 10, 10, env.now());
        return log;
    }

    private static List<Record> records(FetchDataInfo fetch) throws Exception {
        return fetch.records().toMemoryRecords().records();
    }

    // ---------------------------------------------------------------- bounds

    @Test
    void readBelowTheLogStartOffsetIsOutOfRangeEvenWhenTheBytesAreOnDisk() throws Exception {
        Log log = hundredRecords();
        long fileSize = Files.size(LogFileNames.logFile(log.dir(), 0));
        log.deleteRecords(50);

        OffsetOutOfRangeException e = assertThrows(OffsetOutOfRangeException.class,
                () -> log.read(10, 10_000, log.highWatermark(), true));

        assertEquals(Errors.OFFSET_OUT_OF_RANGE, e.error());
        assertEquals(10L, e.requestedOffset());
        assertEquals(50L, e.logStartOffset());
        assertEquals(100L, e.logEndOffset());
        assertEquals(fileSize, Files.size(LogFileNames.logFile(log.dir(), 0)), "offset 10 is still on disk");
        assertThrows(OffsetOutOfRangeException.class, () -> log.read(49, 10_000, log.highWatermark(), true));
        try (FetchDataInfo fetch = log.read(50, 10_000, log.highWatermark(), true)) {
            assertEquals(50L, fetch.logStartOffset());
        }
    }

    @Test
    void readAboveTheLogEndOffsetIsOutOfRangeWithBothBounds() throws Exception {
        Log log = hundredRecords();

        OffsetOutOfRangeException e = assertThrows(OffsetOutOfRangeException.class,
                () -> log.read(101, 10_000, Long.MAX_VALUE, true));

        assertEquals(101L, e.requestedOffset());
        assertEquals(0L, e.logStartOffset());
        assertEquals(100L, e.logEndOffset());
    }

    @Test
    void readAtTheLogEndOffsetIsEmpty() throws Exception {
        Log log = hundredRecords();

        try (FetchDataInfo fetch = log.read(100, 10_000, log.highWatermark(), true)) {
            assertEquals(0, fetch.records().sizeInBytes());
            assertEquals(List.of(), records(fetch));
            assertEquals(100L, fetch.logEndOffset());
            assertEquals(100L, fetch.highWatermark());
        }
    }

    // ---------------------------------------------------------------- max bytes

    @Test
    void maxBytesIsRespectedWithWholeBatchesOnly() throws Exception {
        Log log = hundredRecords();
        int batchSize = batch(env.now(), 10).sizeInBytes();

        try (FetchDataInfo fetch = log.read(0, batchSize * 5 / 2, log.highWatermark(), false)) {
            assertEquals(2 * batchSize, fetch.records().sizeInBytes());
            MemoryRecords read = fetch.records().toMemoryRecords();
            assertEquals(2, read.batches().size());
            assertEquals(read.sizeInBytes(), read.validBytes(), "no partial batch");
            assertEquals(20, read.records().size());
        }
        try (FetchDataInfo fetch = log.read(0, batchSize - 1, log.highWatermark(), false)) {
            assertEquals(0, fetch.records().sizeInBytes(), "a batch larger than maxBytes is not cut");
        }
    }

    @Test
    void minOneMessageReturnsOneWholeBatchLargerThanMaxBytes() throws Exception {
        Log log = hundredRecords();
        int batchSize = batch(env.now(), 10).sizeInBytes();

        try (FetchDataInfo fetch = log.read(35, 1, log.highWatermark(), true)) {
            MemoryRecords read = fetch.records().toMemoryRecords();
            assertEquals(batchSize, read.sizeInBytes());
            assertEquals(1, read.batches().size());
            RecordBatch only = read.batches().get(0);
            assertEquals(30L, only.baseOffset(), "the batch holding the offset, from its start");
            assertEquals(39L, only.lastOffset());
        }
    }

    // ---------------------------------------------------------------- the upper bound

    @Test
    void readNeverPassesTheUpperBound() throws Exception {
        Log log = hundredRecords();
        log.updateHighWatermark(30);

        for (long bound : new long[] {30, 35}) {
            try (FetchDataInfo fetch = log.read(0, Integer.MAX_VALUE, bound, true)) {
                List<Record> read = records(fetch);
                assertFalse(read.isEmpty());
                assertTrue(read.stream().allMatch(r -> r.offset() < bound), "bound " + bound + ": " + read);
            }
        }
        try (FetchDataInfo fetch = log.read(0, Integer.MAX_VALUE, log.highWatermark(), true)) {
            assertEquals(29L, records(fetch).get(records(fetch).size() - 1).offset());
            assertEquals(30L, fetch.highWatermark());
        }
        try (FetchDataInfo fetch = log.read(30, Integer.MAX_VALUE, log.highWatermark(), true)) {
            assertEquals(0, fetch.records().sizeInBytes(), "at the bound: nothing, not out of range");
        }
        // A follower reads up to the log end instead.
        try (FetchDataInfo fetch = log.read(30, Integer.MAX_VALUE, log.logEndOffset(), true)) {
            assertEquals(70, records(fetch).size());
        }
    }

    // ---------------------------------------------------------------- reads of deleted segments

    @Test
    @EnabledOnOs(OS.LINUX)
    void readerHoldingADeletedSegmentStillReadsAllItsBytes() throws Exception {
        LogManager manager = env.startManager(Map.of("log.retention.check.interval.ms", 1_000));
        Log log = manager.getOrCreateLog(new TopicPartition("orders", 0),
                Map.of("retention.ms", HOUR_MS, "file.delete.delay.ms", 60_000));
        for (int i = 0; i < 10; i++) {
            log.appendAsLeader(batch(env.now() - 2 * HOUR_MS, 10), 0);
        }
        List<Record> written = readAll(log, 0);
        log.roll(log.logEndOffset());
        log.appendAsLeader(batch(env.now(), 10), 0);
        Path deletedLogFile = LogFileNames.logFile(log.dir(), 0).resolveSibling(
                LogFileNames.filenamePrefixFromOffset(0) + LogFileNames.LOG_SUFFIX + LogFileNames.DELETED_SUFFIX);

        FetchDataInfo fetch = log.read(0, Integer.MAX_VALUE, log.highWatermark(), true);
        int sliceBytes = fetch.records().sizeInBytes();
        try {
            env.time.advance(1_000); // the retention task deletes segment 0
            assertEquals(100L, log.logStartOffset());
            assertTrue(Files.exists(deletedLogFile));
            env.time.advance(60_000); // and unlinks its files
            assertFalse(Files.exists(deletedLogFile));
            assertFalse(fileNames(log.dir()).stream().anyMatch(n -> n.startsWith(LogFileNames.filenamePrefixFromOffset(0))));

            List<DeletedOpenFile> held = manager.deletedButOpenFiles();
            assertEquals(1, held.size(), "the reader's file, and nothing else: " + held);
            assertEquals(log.dir().toRealPath().resolve(deletedLogFile.getFileName()), held.get(0).path());
            assertEquals(sliceBytes, held.get(0).bytes());

            // Every byte is still there, through a copy and through a zero-copy transfer.
            assertEquals(written, fetch.records().toMemoryRecords().records());
            ByteArrayOutputStream sent = new ByteArrayOutputStream();
            assertEquals(sliceBytes, fetch.records().writeTo(Channels.newChannel(sent)));
            assertEquals(written, MemoryRecords.readableRecords(java.nio.ByteBuffer.wrap(sent.toByteArray())).records());
        } finally {
            fetch.close();
        }
        assertEquals(List.of(), manager.deletedButOpenFiles(), "the space comes back when the reader closes");
    }

    @Test
    void openReadsDoNotBlockAppends() throws Exception {
        Log log = env.open(Map.of("segment.bytes", 2_000));
        LogTestSupport.appendBatches(log, 3, 10, env.now());
        FetchDataInfo first = log.read(0, Integer.MAX_VALUE, log.highWatermark(), true);
        List<Record> before = records(first);
        try {
            // Appends and rolls go on while the slice is open.
            LogTestSupport.appendBatches(log, 30, 10, env.now());
            assertEquals(330L, log.logEndOffset());
            assertTrue(log.numberOfSegments() > 1);
            assertEquals(before, records(first), "an open slice keeps its bytes");
            assertEquals(330, readAll(log, 0).size());
        } finally {
            first.close();
        }
    }

    @Test
    void concurrentReadsSeeAGaplessPrefixWhileAppendsAndRollsGoOn() throws Exception {
        Log log = env.open(Map.of("segment.bytes", 2_000));
        LogTestSupport.appendBatches(log, 3, 10, env.now());
        AtomicReference<List<Record>> lastRead = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            try {
                for (int i = 0; i < 50; i++) {
                    List<Record> read = readAll(log, 0);
                    for (int j = 0; j < read.size(); j++) {
                        assertEquals(j, read.get(j).offset());
                    }
                    lastRead.set(read);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "reader");
        reader.start();
        LogTestSupport.appendBatches(log, 100, 10, env.now());
        reader.join(20_000);

        assertFalse(reader.isAlive());
        if (failure.get() != null) {
            throw new AssertionError("the reader failed", failure.get());
        }
        assertTrue(lastRead.get().size() >= 30);
    }

    // ---------------------------------------------------------------- lookup by timestamp

    @Test
    void lookupByTimestampReturnsTheFirstOffsetAtOrAfterTheTargetAcrossSegments() throws Exception {
        Log log = env.open(Map.of("index.interval.bytes", 0));
        // Segment 0: offsets 0-9 at 1000, 1010, ..., 1090 (two batches); segment 10: 1100..1190; active 20: 1200..1290.
        for (int segment = 0; segment < 3; segment++) {
            long base = 1000 + segment * 100;
            log.appendAsLeader(batchWithTimestamps(base, base + 10, base + 20, base + 30, base + 40), 0);
            log.appendAsLeader(batchWithTimestamps(base + 50, base + 60, base + 70, base + 80, base + 90), 0);
            if (segment < 2) {
                log.roll(log.logEndOffset());
            }
        }

        assertEquals(Optional.of(0L), offsetFor(log, 0));
        assertEquals(Optional.of(0L), offsetFor(log, 1000));
        assertEquals(Optional.of(5L), offsetFor(log, 1050));
        assertEquals(Optional.of(6L), offsetFor(log, 1051));
        assertEquals(Optional.of(10L), offsetFor(log, 1095), "between segments: the first of the next one");
        assertEquals(Optional.of(17L), offsetFor(log, 1170));
        assertEquals(Optional.of(29L), offsetFor(log, 1290));
        assertEquals(Optional.empty(), offsetFor(log, 1291));
        TimestampAndOffset found = log.fetchOffsetByTimestamp(1150).orElseThrow();
        assertEquals(1150L, found.timestamp());
        assertEquals(0, found.leaderEpoch());

        log.deleteRecords(7);
        assertEquals(Optional.of(7L), offsetFor(log, 1000), "nothing below the log start offset");
    }

    @Test
    void lookupByTimestampFindsTheFirstMatchEvenWhenTimestampsAreOutOfOrder() throws Exception {
        Log log = env.open(Map.of("index.interval.bytes", 0));
        log.appendAsLeader(batchWithTimestamps(1000, 1010), 0);       // offsets 0, 1
        log.appendAsLeader(batchWithTimestamps(1020, 5000, 1030), 0); // offsets 2, 3, 4
        log.appendAsLeader(batchWithTimestamps(1040, 3000), 0);       // offsets 5, 6

        assertEquals(Optional.of(2L), offsetFor(log, 1015));
        assertEquals(Optional.of(3L), offsetFor(log, 1035), "offset 3 (5000) comes before offset 5 (1040)");
        assertEquals(Optional.of(3L), offsetFor(log, 2000));
        assertEquals(Optional.of(3L), offsetFor(log, 5000));
        assertEquals(Optional.empty(), offsetFor(log, 5001));
    }

    private static Optional<Long> offsetFor(Log log, long timestamp) {
        return log.fetchOffsetByTimestamp(timestamp).map(TimestampAndOffset::offset);
    }
}
