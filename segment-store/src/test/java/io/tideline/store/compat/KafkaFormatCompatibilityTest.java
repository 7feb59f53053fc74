package io.tideline.store.compat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.store.config.LogConfig;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import io.tideline.store.log.LogAppendInfo;
import io.tideline.store.record.CompressionType;
import io.tideline.store.record.Header;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.retention.SegmentDeleter;
import io.tideline.store.segment.LogFileNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Byte compatibility with Apache Kafka 4.4 (kafka-clients in test scope): Kafka's own record classes
 * read the segment files we write, and our reader reads batches Kafka's builder produced. In 4.4 these
 * classes live in {@code org.apache.kafka.common.record.internal}.
 */
class KafkaFormatCompatibilityTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path tmp;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final SegmentDeleter deleter = new SegmentDeleter(scheduler);

    private Log openLog(String name, Map<String, Object> config) throws IOException {
        return Log.open(tmp.resolve(name), LogConfig.fromMap(config), time, scheduler, new Random(7), deleter, 0, 0, -1, true);
    }

    private static Map<String, Object> smallSegments() {
        return Map.of("segment.bytes", 1024, "index.interval.bytes", 100);
    }

    // ---------------------------------------------------------------- our files, Kafka's reader

    @Test
    void kafkaFileRecordsReadsEveryBatchAndRecordOfOurSegments() throws Exception {
        Log log = openLog("orders-0", smallSegments());
        List<ExpectedBatch> expected = appendVariedBatches(log, new Random(42), 40);
        assertTrue(log.numberOfSegments() >= 3, "segments: " + log.numberOfSegments());
        log.close();

        List<FileChannelRecordBatch> seen = new ArrayList<>();
        int segmentFiles = 0;
        for (Path file : segmentFiles(tmp.resolve("orders-0"), LogFileNames.LOG_SUFFIX)) {
            segmentFiles++;
            try (FileRecords kafka = FileRecords.open(file.toFile(), false)) {
                long firstBase = -1;
                for (FileChannelRecordBatch batch : kafka.batches()) {
                    ExpectedBatch want = expected.get(seen.size());
                    batch.ensureValid();
                    assertBatchEquals(want, batch);
                    assertRecordsEqual(want.records(), kafkaRecords(batch), "batch at " + batch.baseOffset());
                    if (firstBase < 0) {
                        firstBase = batch.baseOffset();
                    }
                    seen.add(batch);
                }
                assertEquals(LogFileNames.offsetFromFileName(file.getFileName().toString()), firstBase,
                        "a segment file is named by the base offset of its first batch");
            }
        }
        assertTrue(segmentFiles >= 3);
        assertEquals(expected.size(), seen.size(), "Kafka saw every batch we appended");
    }

    @Test
    void kafkaReadsGzipBatchBuiltByOurBuilder() throws Exception {
        Log log = openLog("gz-0", Map.of());
        RecordBatchBuilder builder = new RecordBatchBuilder(0, CompressionType.GZIP);
        for (int i = 0; i < 50; i++) {
            builder.append(T0 + i, ("k" + (i % 5)).getBytes(StandardCharsets.UTF_8),
                    ("the same text compresses well " + i).getBytes(StandardCharsets.UTF_8),
                    List.of(new Header("n", new byte[] {(byte) i})));
        }
        log.appendAsLeader(builder.buildRecords(), 9);
        log.close();

        try (FileRecords kafka = FileRecords.open(LogFileNames.logFile(tmp.resolve("gz-0"), 0).toFile(), false)) {
            List<FileChannelRecordBatch> batches = new ArrayList<>();
            kafka.batches().forEach(batches::add);
            assertEquals(1, batches.size());
            FileChannelRecordBatch batch = batches.get(0);
            batch.ensureValid();
            assertEquals(org.apache.kafka.common.record.internal.CompressionType.GZIP, batch.compressionType());
            assertEquals(9, batch.partitionLeaderEpoch());
            assertEquals(49, batch.lastOffset());
            assertEquals(T0 + 49, batch.maxTimestamp());
            List<Record> records = kafkaRecords(batch);
            assertEquals(50, records.size());
            assertEquals(new Record(17, T0 + 17, "k2".getBytes(StandardCharsets.UTF_8),
                    "the same text compresses well 17".getBytes(StandardCharsets.UTF_8),
                    List.of(new Header("n", new byte[] {17}))), records.get(17));
        }
    }

    @Test
    void kafkaSeesLogAppendTimeStampedByOurLeader() throws Exception {
        Log log = openLog("lat-0", Map.of("message.timestamp.type", "LogAppendTime"));
        time.advance(T0 + 5_000 - time.milliseconds());
        log.appendAsLeader(new RecordBatchBuilder(0).append(T0, "a", "1").append(T0 + 1, "b", "2").buildRecords(), 1);
        log.close();

        try (FileRecords kafka = FileRecords.open(LogFileNames.logFile(tmp.resolve("lat-0"), 0).toFile(), false)) {
            FileChannelRecordBatch batch = kafka.batches().iterator().next();
            batch.ensureValid();
            assertEquals(TimestampType.LOG_APPEND_TIME, batch.timestampType());
            assertEquals(T0 + 5_000, batch.maxTimestamp());
            for (org.apache.kafka.common.record.internal.Record r : batch) {
                assertEquals(T0 + 5_000, r.timestamp(), "Kafka gives every record the append time");
            }
        }
    }

    // ---------------------------------------------------------------- Kafka's batches, our reader

    @Test
    void ourReaderReadsKafkaBuiltBatchesAppendedAsFollower() throws Exception {
        Log log = openLog("follower-0", smallSegments());
        List<org.apache.kafka.common.record.internal.MemoryRecords> kafkaBatches = new ArrayList<>();
        List<Record> want = new ArrayList<>();
        Random random = new Random(3);
        long next = 0;
        for (int b = 0; b < 30; b++) {
            Compression compression = b % 3 == 2 ? Compression.gzip().build() : Compression.NONE;
            int epoch = b < 15 ? 4 : 6;
            int count = 1 + random.nextInt(4);
            org.apache.kafka.common.record.internal.MemoryRecords built =
                    kafkaBatch(compression, next, epoch, count, random, want);
            kafkaBatches.add(built);
            LogAppendInfo info = log.appendAsFollower(MemoryRecords.readableRecords(built.buffer()));
            assertEquals(next, info.firstOffset(), "a follower keeps the leader's offsets");
            next += count;
        }
        assertEquals(next, log.logEndOffset());
        assertTrue(log.numberOfSegments() >= 2, "segments: " + log.numberOfSegments());

        assertRecordsEqual(want, readAll(log), "records read back through Log.read");
        assertEpochsKept(log, kafkaBatches);

        // The bytes survive a restart that validates every batch (CRC, offsets) as recovery does.
        log.close();
        Log reopened = Log.open(tmp.resolve("follower-0"), LogConfig.fromMap(smallSegments()), time, scheduler, new Random(7),
                deleter, 0, 0, -1, false);
        assertEquals(next, reopened.logEndOffset(), "recovery kept every Kafka-built batch");
        assertRecordsEqual(want, readAll(reopened), "records after recovery");
        reopened.close();
    }

    @Test
    void ourLeaderAssignsOffsetsToKafkaBuiltBatchesAndKafkaStillValidatesThem() throws Exception {
        Log log = openLog("leader-0", smallSegments());
        List<Record> produced = new ArrayList<>();
        Random random = new Random(11);
        long next = 0;
        for (int b = 0; b < 20; b++) {
            Compression compression = b % 2 == 0 ? Compression.NONE : Compression.gzip().build();
            List<Record> batchRecords = new ArrayList<>();
            int count = 1 + random.nextInt(5);
            // A producer's batch: base offset 0, no leader epoch; the leader rewrites both.
            org.apache.kafka.common.record.internal.MemoryRecords built =
                    kafkaBatch(compression, 0, RecordBatch.NO_PARTITION_LEADER_EPOCH, count, random, batchRecords);
            LogAppendInfo info = log.appendAsLeader(MemoryRecords.readableRecords(built.buffer()), 12);
            assertEquals(next, info.firstOffset());
            for (Record r : batchRecords) {
                produced.add(new Record(r.offset() + next, r.timestamp(), r.key(), r.value(), r.headers()));
            }
            next += count;
        }
        assertRecordsEqual(produced, readAll(log), "records read back through Log.read");
        log.close();

        List<Record> kafkaSaw = new ArrayList<>();
        for (Path file : segmentFiles(tmp.resolve("leader-0"), LogFileNames.LOG_SUFFIX)) {
            try (FileRecords kafka = FileRecords.open(file.toFile(), false)) {
                for (FileChannelRecordBatch batch : kafka.batches()) {
                    batch.ensureValid(); // offsets and epoch are outside the CRC; max timestamp is inside
                    assertEquals(12, batch.partitionLeaderEpoch());
                    kafkaSaw.addAll(kafkaRecords(batch));
                }
            }
        }
        assertRecordsEqual(produced, kafkaSaw, "records Kafka reads after our leader append");
    }

    // ---------------------------------------------------------------- indexes

    @Test
    void offsetIndexEntriesPointAtBatchStartsWhoseLastOffsetIsTheEntryOffset() throws Exception {
        Path dir = writeRolledLog("idx-0");
        int checked = 0;
        for (Path index : segmentFiles(dir, LogFileNames.INDEX_SUFFIX)) {
            long base = LogFileNames.offsetFromFileName(index.getFileName().toString());
            Map<Integer, KafkaBatch> byPosition = kafkaBatchesByPosition(LogFileNames.logFile(dir, base));
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(index));
            assertEquals(0, bytes.limit() % 8, "8-byte entries, trimmed to whole entries");
            int previousRelative = -1;
            int previousPosition = -1;
            for (int at = 0; at < bytes.limit(); at += 8) {
                int relative = bytes.getInt(at);
                int position = bytes.getInt(at + 4);
                assertTrue(relative > previousRelative && position > previousPosition,
                        "entries increase in " + index.getFileName());
                KafkaBatch batch = byPosition.get(position);
                assertNotNull(batch, "entry " + (at / 8) + " of " + index.getFileName() + " points at a batch start");
                assertEquals(base + relative, batch.lastOffset(),
                        "the entry's offset is the last offset of the batch at its position");
                previousRelative = relative;
                previousPosition = position;
                checked++;
            }
        }
        assertTrue(checked >= 5, "entries checked: " + checked);
    }

    @Test
    void timeIndexEntriesIncreaseAndCarryTheLargestTimestampUpToTheirOffset() throws Exception {
        Path dir = writeRolledLog("tidx-0");
        int checked = 0;
        for (Path index : segmentFiles(dir, LogFileNames.TIME_INDEX_SUFFIX)) {
            long base = LogFileNames.offsetFromFileName(index.getFileName().toString());
            List<KafkaBatch> batches = new ArrayList<>(kafkaBatchesByPosition(LogFileNames.logFile(dir, base)).values());
            batches.sort((a, b) -> Long.compare(a.baseOffset(), b.baseOffset()));
            long segmentLast = batches.get(batches.size() - 1).lastOffset();
            long segmentMax = batches.stream().mapToLong(KafkaBatch::maxTimestamp).max().orElseThrow();
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(index));
            assertEquals(0, bytes.limit() % 12, "12-byte entries, trimmed to whole entries");
            assertTrue(bytes.limit() >= 12, "a closed segment has at least its final time-index entry");
            long previous = Long.MIN_VALUE;
            long lastTimestamp = -1;
            for (int at = 0; at < bytes.limit(); at += 12) {
                long timestamp = bytes.getLong(at);
                long offset = base + bytes.getInt(at + 8);
                assertTrue(timestamp > previous, "timestamps increase in " + index.getFileName());
                assertTrue(offset >= base && offset <= segmentLast, "offset " + offset + " lies in the segment");
                long maxUpTo = batches.stream().filter(b -> b.baseOffset() <= offset)
                        .mapToLong(KafkaBatch::maxTimestamp).max().orElseThrow();
                assertEquals(maxUpTo, timestamp, "entry timestamp is the largest seen up to its offset");
                previous = timestamp;
                lastTimestamp = timestamp;
                checked++;
            }
            if (!index.equals(LogFileNames.timeIndexFile(dir, lastSegmentBase(dir)))) {
                assertEquals(segmentMax, lastTimestamp, "a rolled segment's last entry is its max timestamp");
            }
        }
        assertTrue(checked >= 5, "entries checked: " + checked);
    }

    // ---------------------------------------------------------------- helpers

    /** A log of several closed segments with varied, non-monotonic timestamps; closed cleanly. */
    private Path writeRolledLog(String name) throws IOException {
        Log log = openLog(name, Map.of("segment.bytes", 2048, "index.interval.bytes", 150));
        appendVariedBatches(log, new Random(5), 80);
        assertTrue(log.numberOfSegments() >= 3, "segments: " + log.numberOfSegments());
        log.close();
        return tmp.resolve(name);
    }

    private static long lastSegmentBase(Path dir) throws IOException {
        List<Path> logs = segmentFiles(dir, LogFileNames.LOG_SUFFIX);
        return LogFileNames.offsetFromFileName(logs.get(logs.size() - 1).getFileName().toString());
    }

    /**
     * Appends {@code batches} batches as leader: 1-5 records each, keys and values sometimes null,
     * headers sometimes (with null values too), timestamps that go up and down, every fifth batch gzip,
     * the leader epoch changing half way. Returns what the file must hold.
     */
    private static List<ExpectedBatch> appendVariedBatches(Log log, Random random, int batches) {
        List<ExpectedBatch> expected = new ArrayList<>();
        for (int b = 0; b < batches; b++) {
            CompressionType compression = b % 5 == 4 ? CompressionType.GZIP : CompressionType.NONE;
            int epoch = b < batches / 2 ? 3 : 5;
            RecordBatchBuilder builder = new RecordBatchBuilder(0, compression);
            int count = 1 + random.nextInt(5);
            List<Record> records = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                long timestamp = T0 + b * 1000L + random.nextInt(3000) - 1000;
                byte[] key = random.nextInt(4) == 0 ? null : ("key-" + b + "-" + i).getBytes(StandardCharsets.UTF_8);
                byte[] value = random.nextInt(6) == 0 ? null : randomBytes(random, random.nextInt(60));
                List<Header> headers = new ArrayList<>();
                int headerCount = random.nextInt(3);
                for (int h = 0; h < headerCount; h++) {
                    headers.add(new Header("h" + h, random.nextBoolean() ? null : randomBytes(random, 1 + random.nextInt(8))));
                }
                builder.append(timestamp, key, value, headers);
                records.add(new Record(i, timestamp, key, value, headers));
            }
            LogAppendInfo info = log.appendAsLeader(builder.buildRecords(), epoch);
            List<Record> placed = new ArrayList<>();
            long maxTimestamp = RecordBatch.NO_TIMESTAMP;
            for (Record r : records) {
                placed.add(new Record(info.firstOffset() + r.offset(), r.timestamp(), r.key(), r.value(), r.headers()));
                maxTimestamp = Math.max(maxTimestamp, r.timestamp());
            }
            expected.add(new ExpectedBatch(info.firstOffset(), info.lastOffset(), epoch, maxTimestamp, compression, placed));
        }
        return expected;
    }

    /**
     * One v2 batch from Kafka's builder; appends its records (offsets as in the batch) to {@code out}.
     */
    private static org.apache.kafka.common.record.internal.MemoryRecords kafkaBatch(
            Compression compression, long baseOffset, int epoch, int count, Random random, List<Record> out) {
        MemoryRecordsBuilder builder = org.apache.kafka.common.record.internal.MemoryRecords.builder(
                ByteBuffer.allocate(16 * 1024), org.apache.kafka.common.record.internal.RecordBatch.MAGIC_VALUE_V2,
                compression, TimestampType.CREATE_TIME, baseOffset, RecordBatch.NO_TIMESTAMP, -1L, (short) -1, -1,
                false, epoch);
        for (int i = 0; i < count; i++) {
            long timestamp = T0 + random.nextInt(100_000);
            byte[] key = i % 3 == 1 ? null : ("kafka-key-" + baseOffset + "-" + i).getBytes(StandardCharsets.UTF_8);
            byte[] value = i % 4 == 3 ? null : randomBytes(random, random.nextInt(80));
            List<Header> headers = new ArrayList<>();
            if (i % 2 == 0) {
                headers.add(new Header("trace", randomBytes(random, 4)));
                headers.add(new Header("empty", null));
            }
            org.apache.kafka.common.header.Header[] kafkaHeaders = headers.stream()
                    .map(h -> new RecordHeader(h.key(), h.value())).toArray(org.apache.kafka.common.header.Header[]::new);
            builder.appendWithOffset(baseOffset + i, timestamp, key, value, kafkaHeaders);
            out.add(new Record(baseOffset + i, timestamp, key, value, headers));
        }
        return builder.build();
    }

    private static List<Record> readAll(Log log) throws IOException {
        List<Record> records = new ArrayList<>();
        long next = log.logStartOffset();
        while (next < log.highWatermark()) {
            try (FetchDataInfo fetch = log.read(next, 700, log.highWatermark(), true)) {
                List<Record> chunk = fetch.records().toMemoryRecords().records();
                assertFalse(chunk.isEmpty(), "read at " + next + " returned nothing");
                for (Record r : chunk) {
                    if (r.offset() >= next) { // a read may start inside a batch
                        records.add(r);
                    }
                }
                next = chunk.get(chunk.size() - 1).offset() + 1;
            }
        }
        return records;
    }

    /** Every batch in our files keeps the epoch the Kafka builder put in it. */
    private static void assertEpochsKept(Log log, List<org.apache.kafka.common.record.internal.MemoryRecords> kafkaBatches)
            throws IOException {
        Map<Long, Integer> epochByBase = new HashMap<>();
        for (org.apache.kafka.common.record.internal.MemoryRecords m : kafkaBatches) {
            for (org.apache.kafka.common.record.internal.MutableRecordBatch b : m.batches()) {
                epochByBase.put(b.baseOffset(), b.partitionLeaderEpoch());
            }
        }
        int seen = 0;
        // One read stops at its segment's end: read each segment from its base offset.
        for (var segment : log.segments()) {
            try (FetchDataInfo fetch = log.read(segment.baseOffset(), Integer.MAX_VALUE, log.highWatermark(), true)) {
                for (RecordBatch batch : fetch.records().toMemoryRecords().batches()) {
                    assertEquals(epochByBase.get(batch.baseOffset()), batch.partitionLeaderEpoch(),
                            "epoch of batch " + batch.baseOffset());
                    seen++;
                }
            }
        }
        assertEquals(epochByBase.size(), seen);
    }

    private static void assertBatchEquals(ExpectedBatch want, FileChannelRecordBatch batch) {
        String what = "batch at " + want.baseOffset();
        assertEquals(org.apache.kafka.common.record.internal.RecordBatch.MAGIC_VALUE_V2, batch.magic(), what);
        assertEquals(want.baseOffset(), batch.baseOffset(), what);
        assertEquals(want.lastOffset(), batch.lastOffset(), what);
        assertEquals(want.epoch(), batch.partitionLeaderEpoch(), what);
        assertEquals(want.maxTimestamp(), batch.maxTimestamp(), what);
        assertEquals(TimestampType.CREATE_TIME, batch.timestampType(), what);
        assertEquals(want.compression().id, batch.compressionType().id, what);
        assertEquals(Integer.valueOf(want.records().size()), batch.countOrNull(), what);
    }

    private static List<Record> kafkaRecords(org.apache.kafka.common.record.internal.RecordBatch batch) {
        List<Record> records = new ArrayList<>();
        for (org.apache.kafka.common.record.internal.Record r : batch) {
            r.ensureValid();
            List<Header> headers = new ArrayList<>();
            for (org.apache.kafka.common.header.Header h : r.headers()) {
                headers.add(new Header(h.key(), h.value()));
            }
            records.add(new Record(r.offset(), r.timestamp(), r.hasKey() ? bytes(r.key()) : null,
                    r.hasValue() ? bytes(r.value()) : null, headers));
        }
        return records;
    }

    private static void assertRecordsEqual(List<Record> want, List<Record> got, String what) {
        assertEquals(want.size(), got.size(), what + ": record count");
        for (int i = 0; i < want.size(); i++) {
            Record w = want.get(i);
            Record g = got.get(i);
            String at = what + ", record " + i;
            assertEquals(w.offset(), g.offset(), at + ": offset");
            assertEquals(w.timestamp(), g.timestamp(), at + ": timestamp");
            if (w.key() == null) {
                assertNull(g.key(), at + ": null key");
            } else {
                assertArrayEquals(w.key(), g.key(), at + ": key");
            }
            if (w.value() == null) {
                assertNull(g.value(), at + ": null value");
            } else {
                assertArrayEquals(w.value(), g.value(), at + ": value");
            }
            assertEquals(w.headers(), g.headers(), at + ": headers");
        }
    }

    /** What Kafka's reader says about each batch of a .log, by byte position. */
    private static Map<Integer, KafkaBatch> kafkaBatchesByPosition(Path logFile) throws IOException {
        Map<Integer, KafkaBatch> byPosition = new HashMap<>();
        try (FileRecords kafka = FileRecords.open(logFile.toFile(), false)) {
            for (FileChannelRecordBatch batch : kafka.batches()) {
                batch.ensureValid();
                byPosition.put(batch.position(), new KafkaBatch(batch.baseOffset(), batch.lastOffset(), batch.maxTimestamp()));
            }
        }
        return byPosition;
    }

    private static List<Path> segmentFiles(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> LogFileNames.isSegmentFileName(p.getFileName().toString(), suffix)).sorted().toList();
        }
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    private static byte[] randomBytes(Random random, int n) {
        byte[] out = new byte[n];
        random.nextBytes(out);
        return out;
    }

    private record KafkaBatch(long baseOffset, long lastOffset, long maxTimestamp) {
    }

    private record ExpectedBatch(long baseOffset, long lastOffset, int epoch, long maxTimestamp,
                                 CompressionType compression, List<Record> records) {
    }
}
