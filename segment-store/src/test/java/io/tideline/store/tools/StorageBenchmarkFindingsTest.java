package io.tideline.store.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.store.config.LogConfig;
import io.tideline.store.log.Log;
import io.tideline.store.record.Header;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.record.Varint;
import io.tideline.store.retention.SegmentDeleter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pins the main-code changes the storage benchmark led to (docs/performance.md): leader validation
 * walks records without copying them ({@link RecordBatch#forEachRecord}) yet refuses what decoding
 * refused, and a retention pass renames its segments with one directory fsync.
 */
class StorageBenchmarkFindingsTest {
    private static final long NOW = 1_700_000_000_000L;

    @TempDir
    Path tmp;

    private static RecordBatch mixedBatch() {
        return new RecordBatchBuilder(40L)
                .append(NOW, "k0".getBytes(StandardCharsets.UTF_8), "v0".getBytes(StandardCharsets.UTF_8))
                .append(NOW + 7, (byte[]) null, (byte[]) null)
                .append(NOW - 3, new byte[0], new byte[300], List.of(new Header("h", "x".getBytes(StandardCharsets.UTF_8)),
                        new Header("empty", null)))
                .append(NOW + 1, (byte[]) null, "last".getBytes(StandardCharsets.UTF_8))
                .build();
    }

    /** A copy of the batch with {@code change} applied and the CRC recomputed, so only the change is wrong. */
    private static MemoryRecords rewritten(RecordBatch batch, java.util.function.Consumer<ByteBuffer> change) {
        ByteBuffer copy = ByteBuffer.allocate(batch.sizeInBytes());
        copy.put(batch.buffer()).flip();
        change.accept(copy);
        copy.putInt(RecordBatch.CRC_OFFSET, (int) RecordBatch.wrap(copy.duplicate()).computeChecksum());
        return MemoryRecords.readableRecords(copy);
    }

    /** Position of record {@code index}'s offsetDelta varint (records here have 1-byte lengths and timestamp deltas). */
    private static int offsetDeltaPosition(ByteBuffer batch, int index) {
        ByteBuffer walk = batch.duplicate();
        walk.position(RecordBatch.RECORDS_OFFSET);
        for (int i = 0; i < index; i++) {
            int length = Varint.readVarint(walk);
            walk.position(walk.position() + length);
        }
        int start = walk.position();
        Varint.readVarint(walk); // length
        walk.get(); // attributes
        Varint.readVarlong(walk); // timestamp delta
        assertTrue(walk.position() > start);
        return walk.position();
    }

    private Log openLog() throws Exception {
        MockTime time = new MockTime(NOW);
        MockScheduler scheduler = new MockScheduler(time);
        return Log.open(tmp.resolve("t-0"), LogConfig.fromMap(Map.of("segment.bytes", 1024, "retention.ms", 60_000L)),
                time, scheduler, new Random(1), new SegmentDeleter(scheduler), 0L, 0L, -1L, true);
    }

    @Test
    void recordWalkWithoutCopyingSeesTheOffsetsAndTimestampsThatDecodingSees() {
        RecordBatch batch = mixedBatch();
        List<long[]> walked = new ArrayList<>();
        batch.forEachRecord((offsetDelta, timestamp) -> walked.add(new long[] {offsetDelta, timestamp}));

        List<Record> decoded = batch.records();
        assertEquals(decoded.size(), walked.size());
        for (int i = 0; i < decoded.size(); i++) {
            assertEquals(decoded.get(i).offset() - batch.baseOffset(), walked.get(i)[0]);
            assertEquals(decoded.get(i).timestamp(), walked.get(i)[1]);
        }
    }

    @Test
    void recordWalkRefusesMalformedRecordsAsDecodingDoes() {
        // Record 3 (the one with headers) claims a length of 1 byte: its fields overrun the record.
        MemoryRecords bad = rewritten(mixedBatch(), b -> {
            ByteBuffer walk = b.duplicate();
            walk.position(RecordBatch.RECORDS_OFFSET);
            for (int i = 0; i < 2; i++) {
                int length = Varint.readVarint(walk);
                walk.position(walk.position() + length);
            }
            b.put(walk.position(), (byte) 2); // zig-zag varint for 1
        });
        RecordBatch batch = bad.batches().get(0);

        TidelineException decoding = assertThrows(TidelineException.class, batch::records);
        TidelineException walking = assertThrows(TidelineException.class, () -> batch.forEachRecord((d, t) -> { }));
        assertEquals(Errors.CORRUPT_MESSAGE, decoding.error());
        assertEquals(Errors.CORRUPT_MESSAGE, walking.error());
    }

    @Test
    void leaderAppendRefusesOffsetDeltasOutOfSequenceAsInvalidRecordAndWritesNothing() throws Exception {
        try (Log log = openLog()) {
            MemoryRecords bad = rewritten(mixedBatch(), b -> b.put(offsetDeltaPosition(b, 1), (byte) 10)); // delta 5 where 1 belongs

            TidelineException e = assertThrows(TidelineException.class, () -> log.appendAsLeader(bad, 0));

            assertEquals(Errors.INVALID_RECORD, e.error(), e.getMessage());
            assertEquals(0, log.logEndOffset());
            assertEquals(0, log.size());
        }
    }

    @Test
    void leaderAppendRefusesATimestampBelowMinusOneAsInvalidTimestamp() throws Exception {
        try (Log log = openLog()) {
            MemoryRecords bad = new RecordBatchBuilder(0L).append(NOW, "a", "b").append(-5L, "c", "d").buildRecords();

            TidelineException e = assertThrows(TidelineException.class, () -> log.appendAsLeader(bad, 0));

            assertEquals(Errors.INVALID_TIMESTAMP, e.error(), e.getMessage());
            assertEquals(0, log.size());
        }
    }

    @Test
    void leaderAppendStillStampsTheLargestRecordTimestampAsTheBatchMax() throws Exception {
        try (Log log = openLog()) {
            log.appendAsLeader(MemoryRecords.of(mixedBatch()), 3);

            assertEquals(4, log.logEndOffset());
            assertEquals(NOW + 7, log.activeSegment().maxTimestampSoFar());
            assertEquals(3, log.activeSegment().offsetOfMaxTimestampSoFar(), "the batch's last offset, as in Kafka");
        }
    }

    @Test
    void retentionPassRenamesEveryFileOfEveryExpiredSegment() throws Exception {
        try (Log log = openLog()) {
            for (int i = 0; i < 30; i++) {
                log.appendAsLeader(new RecordBatchBuilder(0L).append(NOW, null, new byte[400]).buildRecords(), 0);
            }
            int segments = log.numberOfSegments();
            assertTrue(segments > 10, "segments: " + segments);
        }
        // Reopen with a clock past retention.ms and delete: every file of each closed set is renamed.
        MockTime time = new MockTime(NOW + 120_000);
        MockScheduler scheduler = new MockScheduler(time);
        try (Log log = Log.open(tmp.resolve("t-0"), LogConfig.fromMap(Map.of("segment.bytes", 1024, "retention.ms", 60_000L)),
                time, scheduler, new Random(1), new SegmentDeleter(scheduler), 0L, Long.MAX_VALUE, -1L, true)) {
            int before = log.numberOfSegments();

            int deleted = log.deleteOldSegments();

            assertEquals(before - 1, deleted);
            try (Stream<Path> files = Files.list(log.dir())) {
                List<String> names = files.map(p -> p.getFileName().toString()).toList();
                assertEquals(deleted * 3L, names.stream().filter(n -> n.endsWith(".deleted")).count(), names.toString());
                assertFalse(names.stream().anyMatch(n -> n.endsWith(".log") && !n.startsWith(
                        String.format("%020d", log.activeSegment().baseOffset()))), names.toString());
            }
        }
    }
}
