package io.tideline.store.log;

import static io.tideline.store.log.LogTestSupport.batch;
import static io.tideline.store.log.LogTestSupport.batchWithTimestamps;
import static io.tideline.store.log.LogTestSupport.followerBatch;
import static io.tideline.store.log.LogTestSupport.readAll;
import static io.tideline.store.log.LogTestSupport.sizedBatch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.record.TimestampType;
import io.tideline.store.segment.LogFileNames;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an append accepts: every batch is checked before anything is written, a bad one fails the
 * whole request with a typed error, and the leader assigns offsets, epochs and (LogAppendTime) time.
 */
class LogAppendValidationTest {
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

    /** A copy of {@code records} with {@code change} applied to its bytes. */
    private static MemoryRecords tampered(MemoryRecords records, Consumer<ByteBuffer> change) {
        ByteBuffer copy = ByteBuffer.allocate(records.sizeInBytes());
        copy.put(records.buffer()).flip();
        change.accept(copy);
        return MemoryRecords.readableRecords(copy);
    }

    private static MemoryRecords truncated(MemoryRecords records, int bytesToCut) {
        ByteBuffer copy = records.buffer();
        copy.limit(copy.limit() - bytesToCut);
        ByteBuffer cut = ByteBuffer.allocate(copy.remaining());
        cut.put(copy).flip();
        return MemoryRecords.readableRecords(cut);
    }

    private static MemoryRecords concat(MemoryRecords... parts) {
        int size = 0;
        for (MemoryRecords p : parts) {
            size += p.sizeInBytes();
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        for (MemoryRecords p : parts) {
            out.put(p.buffer());
        }
        out.flip();
        return MemoryRecords.readableRecords(out);
    }

    private static MemoryRecords corruptCrc(MemoryRecords records) {
        // A byte inside the records area, covered by the CRC.
        return tampered(records, b -> b.put(RecordBatch.RECORDS_OFFSET + 3, (byte) (b.get(RecordBatch.RECORDS_OFFSET + 3) ^ 0x5A)));
    }

    /** The log's state that a refused append must leave untouched. */
    private record Snapshot(long logEndOffset, long highWatermark, long size, long fileSize, int segments) {
    }

    private static Snapshot snapshot(Log log) throws Exception {
        return new Snapshot(log.logEndOffset(), log.highWatermark(), log.size(),
                Files.size(LogFileNames.logFile(log.dir(), log.activeSegment().baseOffset())), log.numberOfSegments());
    }

    private static void assertRefused(Errors expected, Log log, Runnable append) throws Exception {
        Snapshot before = snapshot(log);
        TidelineException e = assertThrows(TidelineException.class, append::run);
        assertEquals(expected, e.error(), e.getMessage());
        assertEquals(before, snapshot(log), "a refused append writes nothing");
    }

    private Log logWithTenRecords(Map<String, ?> config) throws Exception {
        Log log = env.open(config);
        log.appendAsLeader(batch(env.now(), 10), 0);
        return log;
    }

    // ---------------------------------------------------------------- framing, CRC, magic, size

    @Test
    void corruptedCrcIsCorruptMessageAndNothingIsWritten() throws Exception {
        Log log = logWithTenRecords(Map.of());
        MemoryRecords bad = corruptCrc(batch(env.now(), 5));

        assertRefused(Errors.CORRUPT_MESSAGE, log, () -> log.appendAsLeader(bad, 0));
        assertRefused(Errors.CORRUPT_MESSAGE, log, () -> log.appendAsFollower(corruptCrc(followerBatch(10, 0, env.now(), 5))));
        assertEquals(10, readAll(log, 0).size());
    }

    @Test
    void truncatedRequestIsCorruptMessage() throws Exception {
        Log log = logWithTenRecords(Map.of());
        MemoryRecords twoBatches = concat(batch(env.now(), 3), batch(env.now(), 3));

        assertRefused(Errors.CORRUPT_MESSAGE, log, () -> log.appendAsLeader(truncated(twoBatches, 7), 0));
        assertRefused(Errors.CORRUPT_MESSAGE, log, () -> log.appendAsLeader(truncated(batch(env.now(), 3), 7), 0));
        assertRefused(Errors.CORRUPT_MESSAGE, log,
                () -> log.appendAsFollower(truncated(followerBatch(10, 0, env.now(), 3), 1)));
    }

    @Test
    void requestWithoutAnyBatchIsInvalidRecord() throws Exception {
        Log log = logWithTenRecords(Map.of());

        assertRefused(Errors.INVALID_RECORD, log, () -> log.appendAsLeader(MemoryRecords.EMPTY, 0));
        assertRefused(Errors.INVALID_RECORD, log, () -> log.appendAsFollower(MemoryRecords.EMPTY));
    }

    @Test
    void batchLengthFieldThatDisagreesWithItsBytesIsCorruptMessage() throws Exception {
        Log log = logWithTenRecords(Map.of());
        MemoryRecords shortLength = tampered(batch(env.now(), 3),
                b -> b.putInt(RecordBatch.LENGTH_OFFSET, 10)); // below the smallest v2 batch

        assertRefused(Errors.CORRUPT_MESSAGE, log, () -> log.appendAsLeader(shortLength, 0));
    }

    @Test
    void magicOneIsInvalidRecord() throws Exception {
        Log log = logWithTenRecords(Map.of());
        MemoryRecords magicOne = tampered(batch(env.now(), 3), b -> b.put(RecordBatch.MAGIC_OFFSET, (byte) 1));

        assertRefused(Errors.INVALID_RECORD, log, () -> log.appendAsLeader(magicOne, 0));
        MemoryRecords followerMagicOne = tampered(followerBatch(10, 0, env.now(), 3),
                b -> b.put(RecordBatch.MAGIC_OFFSET, (byte) 1));
        assertRefused(Errors.INVALID_RECORD, log, () -> log.appendAsFollower(followerMagicOne));
    }

    @Test
    void batchOverMaxMessageBytesIsRecordTooLarge() throws Exception {
        int size = sizedBatch(env.now(), 500).sizeInBytes();
        Log log = logWithTenRecords(Map.of("max.message.bytes", size));

        log.appendAsLeader(sizedBatch(env.now(), 500), 0); // exactly max.message.bytes: accepted
        assertRefused(Errors.MESSAGE_TOO_LARGE, log, () -> log.appendAsLeader(sizedBatch(env.now(), 501), 0));
        assertRefused(Errors.MESSAGE_TOO_LARGE, log,
                () -> log.appendAsFollower(tampered(sizedBatch(env.now(), 501), b -> b.putLong(0, 11L))));
        assertEquals(11L, log.logEndOffset());
    }

    @Test
    void requestLargerThanSegmentBytesIsRecordTooLarge() throws Exception {
        MemoryRecords big = batch(env.now(), 50);
        Log log = logWithTenRecords(Map.of("segment.bytes", big.sizeInBytes() - 1));

        assertRefused(Errors.MESSAGE_TOO_LARGE, log, () -> log.appendAsLeader(big, 0));
    }

    @Test
    void goodBatchFollowedByABadOneWritesNothing() throws Exception {
        Log log = logWithTenRecords(Map.of("max.message.bytes", 2_000));
        MemoryRecords good = batch(env.now(), 3);

        assertRefused(Errors.CORRUPT_MESSAGE, log, () -> log.appendAsLeader(concat(good, corruptCrc(batch(env.now(), 3))), 0));
        assertRefused(Errors.MESSAGE_TOO_LARGE, log, () -> log.appendAsLeader(concat(good, sizedBatch(env.now(), 3_000)), 0));
        assertRefused(Errors.INVALID_RECORD, log, () -> log.appendAsLeader(concat(good,
                tampered(batch(env.now(), 3), b -> b.put(RecordBatch.MAGIC_OFFSET, (byte) 1))), 0));
        assertRefused(Errors.CORRUPT_MESSAGE, log, () -> log.appendAsFollower(concat(
                followerBatch(10, 0, env.now(), 3), corruptCrc(followerBatch(13, 0, env.now(), 3)))));

        assertEquals(10, readAll(log, 0).size());
        log.appendAsLeader(batch(env.now(), 3), 0);
        assertEquals(13L, log.logEndOffset(), "the log goes on from where it was");
    }

    // ---------------------------------------------------------------- follower offsets

    @Test
    void followerAppendAfterAGapKeepsTheLeadersOffsets() throws Exception {
        // A compacted leader has no batch at the follower's log end: the next one that exists comes (B222).
        Log log = env.open(Map.of());
        log.appendAsFollower(followerBatch(0, 3, env.now(), 10));

        log.appendAsFollower(concat(followerBatch(12, 3, env.now(), 5), followerBatch(30, 3, env.now(), 2)));

        assertEquals(32L, log.logEndOffset());
        log.updateHighWatermark(32L);
        List<Long> offsets = readAll(log, 0).stream().map(Record::offset).toList();
        assertEquals(17, offsets.size());
        assertEquals(List.of(9L, 12L, 16L, 30L, 31L), List.of(offsets.get(9), offsets.get(10), offsets.get(14),
                offsets.get(15), offsets.get(16)));
    }

    @Test
    void followerAppendWithAnOverlapIsInvalidRecordNamingTheOffsets() throws Exception {
        Log log = env.open(Map.of());
        log.appendAsFollower(followerBatch(0, 3, env.now(), 10));

        Snapshot before = snapshot(log);
        TidelineException e = assertThrows(TidelineException.class,
                () -> log.appendAsFollower(followerBatch(5, 3, env.now(), 10)));

        assertEquals(Errors.INVALID_RECORD, e.error());
        assertTrue(e.getMessage().contains("overlap") && e.getMessage().contains("5") && e.getMessage().contains("10"),
                e.getMessage());
        assertEquals(before, snapshot(log));
    }

    @Test
    void followerBatchesInsideOneRequestMustFollowEachOther() throws Exception {
        Log log = env.open(Map.of());
        log.appendAsFollower(followerBatch(0, 3, env.now(), 10));

        assertRefused(Errors.INVALID_RECORD, log, () -> log.appendAsFollower(concat(
                followerBatch(10, 3, env.now(), 5), followerBatch(8, 3, env.now(), 5))));
        assertRefused(Errors.INVALID_RECORD, log, () -> log.appendAsFollower(concat(
                followerBatch(10, 3, env.now(), 5), followerBatch(12, 3, env.now(), 5))));
    }

    @Test
    void followerKeepsTheLeadersOffsetsAndEpochs() throws Exception {
        Log log = env.open(Map.of());

        log.appendAsFollower(followerBatch(0, 3, env.now(), 10));
        log.appendAsFollower(followerBatch(10, 4, env.now(), 5));

        try (FetchDataInfo fetch = log.read(0, Integer.MAX_VALUE, log.logEndOffset(), true)) {
            List<RecordBatch> batches = fetch.records().toMemoryRecords().batches();
            assertEquals(0L, batches.get(0).baseOffset());
            assertEquals(3, batches.get(0).partitionLeaderEpoch());
            assertEquals(10L, batches.get(1).baseOffset());
            assertEquals(4, batches.get(1).partitionLeaderEpoch());
        }
    }

    // ---------------------------------------------------------------- leader stamping

    @Test
    void leaderAppendAssignsOffsetsAndStampsTheLeaderEpoch() throws Exception {
        Log log = env.open(Map.of());
        long ts = env.now();
        // The producer's placeholders (offset 777, no epoch) are overwritten.
        MemoryRecords first = new RecordBatchBuilder(777)
                .append(ts, "a", "1").append(ts + 5, "b", "2").append(ts + 2, "c", "3").buildRecords();

        LogAppendInfo info = log.appendAsLeader(first, 7);
        LogAppendInfo second = log.appendAsLeader(batch(ts, 4), 8);

        assertEquals(0L, info.firstOffset());
        assertEquals(2L, info.lastOffset());
        assertEquals(ts + 5, info.maxTimestamp());
        assertEquals(3L, second.firstOffset());
        assertEquals(6L, second.lastOffset());
        try (FetchDataInfo fetch = log.read(0, Integer.MAX_VALUE, log.highWatermark(), true)) {
            List<RecordBatch> batches = fetch.records().toMemoryRecords().batches();
            assertEquals(2, batches.size());
            RecordBatch b0 = batches.get(0);
            b0.ensureValid();
            assertEquals(0L, b0.baseOffset());
            assertEquals(7, b0.partitionLeaderEpoch());
            assertEquals(ts + 5, b0.maxTimestamp());
            assertEquals(TimestampType.CREATE_TIME, b0.timestampType());
            assertEquals(List.of(0L, 1L, 2L), b0.records().stream().map(Record::offset).toList());
            assertEquals(List.of(ts, ts + 5, ts + 2), b0.records().stream().map(Record::timestamp).toList());
            RecordBatch b1 = batches.get(1);
            b1.ensureValid();
            assertEquals(3L, b1.baseOffset());
            assertEquals(8, b1.partitionLeaderEpoch());
        }
        assertEquals(7L, log.logEndOffset());
    }

    @Test
    void logAppendTimeStampsTheBrokerClock() throws Exception {
        Log log = env.open(Map.of("message.timestamp.type", "LogAppendTime"));
        env.time.advance(12_345);
        long now = env.now();

        LogAppendInfo info = log.appendAsLeader(batchWithTimestamps(1_000L, 2_000L), 0);

        assertEquals(now, info.logAppendTime());
        assertEquals(now, info.maxTimestamp());
        try (FetchDataInfo fetch = log.read(0, Integer.MAX_VALUE, log.highWatermark(), true)) {
            RecordBatch stored = fetch.records().toMemoryRecords().batches().get(0);
            stored.ensureValid(); // the CRC covers the rewritten attributes and max timestamp
            assertEquals(TimestampType.LOG_APPEND_TIME, stored.timestampType());
            assertEquals(now, stored.maxTimestamp());
            assertEquals(List.of(now, now), stored.records().stream().map(Record::timestamp).toList());
        }
        assertEquals(now, log.activeSegment().maxTimestampSoFar(), "retention and the time roll see the append time");
    }

    @Test
    void createTimeKeepsTheProducerTimestamps() throws Exception {
        Log log = env.open(Map.of());
        env.time.advance(12_345);

        LogAppendInfo info = log.appendAsLeader(batchWithTimestamps(1_000L, 2_000L), 0);

        assertEquals(-1L, info.logAppendTime());
        assertEquals(2_000L, info.maxTimestamp());
        assertEquals(2_000L, log.activeSegment().maxTimestampSoFar());
    }
}
