package io.tideline.store.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.store.record.CompressionType;
import io.tideline.store.record.Header;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.record.TimestampType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The leader stores batches in the topic's compression.type (docs/behaviours.md B210-B214): every source codec
 * under every setting reads back the same records, offsets, timestamps, headers and producer fields, through our
 * reader and kafka-clients' own; a re-encoded batch larger than max.message.bytes is refused whole; followers keep
 * the leader's bytes. And a compacted topic refuses keyless records (B215-B216).
 */
class RecompressionTest {
    private static final List<String> SETTINGS = List.of("producer", "uncompressed", "gzip", "snappy", "lz4", "zstd");

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

    static Stream<Arguments> sourceAndSetting() {
        List<Arguments> all = new ArrayList<>();
        for (CompressionType source : CompressionType.values()) {
            for (String setting : SETTINGS) {
                all.add(Arguments.of(source, setting));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} under compression.type={1}")
    @MethodSource("sourceAndSetting")
    void everyCodecUnderEverySettingReadsBackTheSameRecordsAndOffsets(CompressionType source, String setting)
            throws IOException {
        Log log = env.open(Map.of("compression.type", setting));
        CompressionType expected = setting.equals("producer") ? source
                : setting.equals("uncompressed") ? CompressionType.NONE : codec(setting);
        log.appendAsLeader(MemoryRecords.of(batch(source, 0, 5, -1L, (short) -1, -1, false)), 2);
        // Two batches in one request: each is re-encoded on its own.
        MemoryRecords request = MemoryRecords.of(batch(source, 5, 20, -1L, (short) -1, -1, false),
                batch(source, 25, 20, -1L, (short) -1, -1, false));
        LogAppendInfo info = log.appendAsLeader(request, 2);
        assertEquals(5, info.firstOffset());
        assertEquals(44, info.lastOffset());
        assertEquals(40, info.numRecords());
        // An idempotent batch with headers and null values keeps its producer fields.
        log.appendAsLeader(MemoryRecords.of(batch(source, 45, 30, 7000L, (short) 3, 0, true)), 2);

        List<RecordBatch> stored = storedBatches(log);
        assertEquals(4, stored.size());
        for (RecordBatch b : stored) {
            b.ensureValid();
            assertEquals(expected, b.compressionType(), "stored codec of " + b);
            assertEquals(2, b.partitionLeaderEpoch());
            assertEquals(TimestampType.CREATE_TIME, b.timestampType());
        }
        assertEquals(25, stored.get(2).baseOffset());
        RecordBatch idempotent = stored.get(3);
        assertEquals(45, idempotent.baseOffset());
        assertEquals(30, idempotent.recordCount());
        assertEquals(7000L, idempotent.producerId());
        assertEquals(3, idempotent.producerEpoch());
        assertEquals(0, idempotent.baseSequence());
        assertEquals(env.now() + 29, idempotent.maxTimestamp());

        List<Record> wanted = new ArrayList<>();
        wanted.addAll(expectedRecords(0, 5, false));
        wanted.addAll(expectedRecords(5, 20, false));
        wanted.addAll(expectedRecords(25, 20, false));
        wanted.addAll(expectedRecords(45, 30, true));
        assertEquals(wanted, LogTestSupport.readAll(log, 0));
        assertEquals(wanted, readByKafka(stored, expected));

        // The retry of the idempotent batch is recognised after re-encoding: nothing is written twice.
        LogAppendInfo retry = log.appendAsLeader(MemoryRecords.of(batch(source, 45, 30, 7000L, (short) 3, 0, true)), 2);
        assertTrue(retry.duplicate());
        assertEquals(45, retry.firstOffset());
        assertEquals(75, log.logEndOffset());
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void aBatchThatGrowsPastMaxMessageBytesWhenReencodedIsRefusedWhole(CompressionType target) throws IOException {
        int maxMessageBytes = 16 * 1024;
        Log log = env.open(Map.of("compression.type", target.label, "max.message.bytes", maxMessageBytes));
        log.appendAsLeader(new RecordBatchBuilder(0).append(env.now(), "k", "before").buildRecords(), 0);
        long size = log.size();
        // Random bytes do not compress: every codec adds framing to what fills max.message.bytes uncompressed.
        byte[] noise = new byte[maxMessageBytes - RecordBatch.RECORDS_OFFSET - 3 - 8];
        new Random(7).nextBytes(noise);
        RecordBatch full = new RecordBatchBuilder(0).append(env.now(), null, noise).build();
        assertEquals(maxMessageBytes, full.sizeInBytes());
        TidelineException e = assertThrows(TidelineException.class,
                () -> log.appendAsLeader(MemoryRecords.of(full), 0));
        assertEquals(Errors.MESSAGE_TOO_LARGE, e.error(), e.getMessage());
        assertTrue(e.getMessage().contains("recompressed with " + target.label), e.getMessage());
        assertEquals(1, log.logEndOffset());
        assertEquals(size, log.size());

        // The same bytes in the topic's own codec are stored as sent, and so is a batch that fits once re-encoded.
        log.appendAsLeader(new RecordBatchBuilder(0).append(env.now(), null, new byte[maxMessageBytes / 2]).buildRecords(), 0);
        assertEquals(2, log.logEndOffset());
    }

    @Test
    void theReencodedBatchesOfOneRequestAddAtMostMaxMessageBytesToIt() throws IOException {
        Log log = env.open(Map.of("compression.type", "uncompressed", "max.message.bytes", 256 * 1024));
        // Small gzip batches whose records inflate to 60 KiB each: every one fits max.message.bytes alone.
        RecordBatch[] eight = new RecordBatch[8];
        for (int i = 0; i < eight.length; i++) {
            eight[i] = new RecordBatchBuilder(0, CompressionType.GZIP).append(env.now(), null, new byte[60 * 1024]).build();
        }
        MemoryRecords request = MemoryRecords.of(eight);
        assertTrue(request.sizeInBytes() < 8 * 1024, "the request is small: " + request.sizeInBytes());
        TidelineException e = assertThrows(TidelineException.class, () -> log.appendAsLeader(request, 0));
        assertEquals(Errors.MESSAGE_TOO_LARGE, e.error(), e.getMessage());
        assertTrue(e.getMessage().contains("more than max.message.bytes (262144) above its own"), e.getMessage());
        assertEquals(0, log.logEndOffset());

        // Four of them grow the request by 240 KiB, within the bound: stored uncompressed.
        log.appendAsLeader(MemoryRecords.of(eight[0], eight[1], eight[2], eight[3]), 0);
        assertEquals(4, log.logEndOffset());
        for (RecordBatch b : storedBatches(log)) {
            assertEquals(CompressionType.NONE, b.compressionType());
            assertEquals(60 * 1024, b.records().get(0).value().length);
        }
    }

    @Test
    void aSmallerSegmentBytesBoundsTheReencodedBatchToo() throws IOException {
        Log log = env.open(Map.of("compression.type", "gzip", "segment.bytes", 16 * 1024));
        byte[] noise = new byte[16 * 1024 - RecordBatch.RECORDS_OFFSET - 3 - 8];
        new Random(8).nextBytes(noise);
        RecordBatch full = new RecordBatchBuilder(0).append(env.now(), null, noise).build();
        assertEquals(16 * 1024, full.sizeInBytes());
        TidelineException e = assertThrows(TidelineException.class,
                () -> log.appendAsLeader(MemoryRecords.of(full), 0));
        assertEquals(Errors.MESSAGE_TOO_LARGE, e.error(), e.getMessage());
        assertEquals(0, log.logEndOffset());
    }

    @Test
    void logAppendTimeIsStampedOnTheReencodedBatch() throws IOException {
        Log log = env.open(Map.of("compression.type", "zstd", "message.timestamp.type", "LogAppendTime"));
        env.time.sleep(1234);
        LogAppendInfo info = log.appendAsLeader(MemoryRecords.of(batch(CompressionType.GZIP, 0, 10, -1L, (short) -1, -1, true)), 0);
        assertEquals(env.now(), info.logAppendTime());
        RecordBatch stored = storedBatches(log).get(0);
        assertEquals(CompressionType.ZSTD, stored.compressionType());
        assertEquals(TimestampType.LOG_APPEND_TIME, stored.timestampType());
        assertEquals(env.now(), stored.maxTimestamp());
        stored.ensureValid();
        for (Record r : stored.records()) {
            assertEquals(env.now(), r.timestamp());
        }
    }

    @Test
    void followersStoreTheLeadersReencodedBytesWhateverTheirOwnSetting() throws IOException {
        Log leader = env.open("leader-0", Map.of("compression.type", "lz4"), new Random(1));
        Log follower = env.open("follower-0", Map.of("compression.type", "gzip"), new Random(2));
        leader.appendAsLeader(MemoryRecords.of(batch(CompressionType.SNAPPY, 0, 50, -1L, (short) -1, -1, true)), 4);
        leader.appendAsLeader(MemoryRecords.of(batch(CompressionType.NONE, 0, 20, -1L, (short) -1, -1, false)), 4);
        MemoryRecords fetched;
        try (FetchDataInfo fetch = leader.read(0, Integer.MAX_VALUE, leader.logEndOffset(), true)) {
            fetched = fetch.records().toMemoryRecords();
        }
        follower.appendAsFollower(fetched);
        List<RecordBatch> copied = storedBatches(follower);
        List<RecordBatch> original = storedBatches(leader);
        assertEquals(2, copied.size());
        for (int i = 0; i < 2; i++) {
            assertEquals(CompressionType.LZ4, copied.get(i).compressionType());
            assertArrayEquals(bytes(original.get(i).buffer()), bytes(copied.get(i).buffer()));
        }
    }

    @Test
    void producerSettingStoresEveryBatchByteForByte() throws IOException {
        Log log = env.open(Map.of("compression.type", "producer"));
        RecordBatch sent = batch(CompressionType.SNAPPY, 0, 20, -1L, (short) -1, -1, true);
        byte[] section = section(sent.buffer());
        log.appendAsLeader(MemoryRecords.of(sent), 0);
        assertArrayEquals(section, section(storedBatches(log).get(0).buffer()));
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void aCompactedTopicRefusesABatchWithAKeylessRecordWhole(CompressionType codec) throws IOException {
        Log log = env.open(Map.of("cleanup.policy", "compact"));
        log.appendAsLeader(new RecordBatchBuilder(0, codec).append(env.now(), "k", "v").buildRecords(), 0);
        long size = log.size();
        MemoryRecords keyless = new RecordBatchBuilder(0, codec)
                .append(env.now(), "a", "1").append(env.now(), (String) null, "2").append(env.now(), "c", "3")
                .buildRecords();
        TidelineException e = assertThrows(TidelineException.class, () -> log.appendAsLeader(keyless, 0));
        assertEquals(Errors.INVALID_RECORD, e.error());
        assertEquals("Compacted topic cannot accept message without key in topic partition orders-0", e.getMessage());
        assertEquals(1, log.logEndOffset());
        assertEquals(size, log.size());

        // Every batch of the request is refused with it, the keyed one before it included.
        MemoryRecords mixed = MemoryRecords.of(new RecordBatchBuilder(0, codec).append(env.now(), "a", "1").build(),
                new RecordBatchBuilder(0, codec).append(env.now(), (byte[]) null, new byte[] {1}).build());
        assertEquals(Errors.INVALID_RECORD,
                assertThrows(TidelineException.class, () -> log.appendAsLeader(mixed, 0)).error());
        assertEquals(1, log.logEndOffset());

        // A tombstone has a key: accepted, as on Kafka.
        log.appendAsLeader(new RecordBatchBuilder(0, codec).append(env.now(), "k", (String) null).buildRecords(), 0);
        assertEquals(2, log.logEndOffset());
    }

    @Test
    void aKeylessRecordIsRefusedBeforeTheReencodingWouldBeTooLarge() throws IOException {
        Log log = env.open(Map.of("cleanup.policy", "compact", "compression.type", "gzip", "max.message.bytes", 16 * 1024));
        byte[] noise = new byte[16 * 1024 - RecordBatch.RECORDS_OFFSET - 3 - 8];
        new Random(9).nextBytes(noise);
        RecordBatch keylessAndTooLarge = new RecordBatchBuilder(0).append(env.now(), null, noise).build();
        TidelineException e = assertThrows(TidelineException.class,
                () -> log.appendAsLeader(MemoryRecords.of(keylessAndTooLarge), 0));
        assertEquals(Errors.INVALID_RECORD, e.error(), e.getMessage());
    }

    @Test
    void keylessRecordsAreAcceptedWhenTheTopicIsNotCompacted() throws IOException {
        Log log = env.open(Map.of("cleanup.policy", "delete"));
        log.appendAsLeader(new RecordBatchBuilder(0, CompressionType.LZ4).append(env.now(), (String) null, "v")
                .buildRecords(), 0);
        assertEquals(1, log.logEndOffset());
    }

    @Test
    void compactAndDeleteTogetherIsACompactedTopic() throws IOException {
        Log log = env.open(Map.of("cleanup.policy", "compact,delete", "compression.type", "gzip"));
        MemoryRecords keyless = new RecordBatchBuilder(0).append(env.now(), (String) null, "v").buildRecords();
        assertEquals(Errors.INVALID_RECORD,
                assertThrows(TidelineException.class, () -> log.appendAsLeader(keyless, 0)).error());
        assertEquals(0, log.logEndOffset());
    }

    @Test
    void theRulesFollowATopicConfigChange() throws IOException {
        Log log = env.open(Map.of());
        log.appendAsLeader(new RecordBatchBuilder(0, CompressionType.GZIP).append(env.now(), (String) null, "a")
                .buildRecords(), 0);
        log.updateConfig(io.tideline.store.config.LogConfig.fromMap(
                Map.of("cleanup.policy", "compact", "compression.type", "snappy")));
        assertThrows(TidelineException.class, () -> log.appendAsLeader(new RecordBatchBuilder(0, CompressionType.GZIP)
                .append(env.now(), (String) null, "b").buildRecords(), 0));
        log.appendAsLeader(new RecordBatchBuilder(0, CompressionType.GZIP).append(env.now(), "k", "c").buildRecords(), 0);
        List<RecordBatch> stored = storedBatches(log);
        assertEquals(CompressionType.GZIP, stored.get(0).compressionType());
        assertEquals(CompressionType.SNAPPY, stored.get(1).compressionType());
        assertNotEquals(stored.get(0).compressionType(), stored.get(1).compressionType());
        assertFalse(stored.get(1).records().isEmpty());
    }

    // ---------------------------------------------------------------- helpers

    /** Records whose keys, values and headers vary: some null values, two headers on the idempotent ones. */
    private RecordBatch batch(CompressionType codec, int firstIndex, int count, long producerId, short epoch,
                              int sequence, boolean withHeaders) {
        RecordBatchBuilder builder = new RecordBatchBuilder(0, codec).producer(producerId, epoch, sequence);
        for (int i = 0; i < count; i++) {
            int n = firstIndex + i;
            builder.append(env.now() + i, key(n), value(n), withHeaders ? headers(n) : List.of());
        }
        return builder.build();
    }

    private List<Record> expectedRecords(int firstIndex, int count, boolean withHeaders) {
        List<Record> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int n = firstIndex + i;
            records.add(new Record(n, env.now() + i, key(n), value(n), withHeaders ? headers(n) : List.of()));
        }
        return records;
    }

    private static byte[] key(int n) {
        return ("key-" + (n % 7)).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int n) {
        return n % 9 == 4 ? null : ("value " + n + " that repeats, repeats, repeats").getBytes(StandardCharsets.UTF_8);
    }

    private static List<Header> headers(int n) {
        return List.of(new Header("trace", ("t" + n).getBytes(StandardCharsets.UTF_8)), new Header("empty", null));
    }

    private static CompressionType codec(String label) {
        for (CompressionType t : CompressionType.values()) {
            if (t.label.equals(label)) {
                return t;
            }
        }
        throw new AssertionError(label);
    }

    private static List<RecordBatch> storedBatches(Log log) throws IOException {
        try (FetchDataInfo fetch = log.read(log.logStartOffset(), Integer.MAX_VALUE, log.logEndOffset(), true)) {
            MemoryRecords records = fetch.records().toMemoryRecords();
            return MemoryRecords.readableRecords(ByteBuffer.wrap(bytes(records.buffer()))).batches();
        }
    }

    /** The stored batches as kafka-clients 4.4 reads them: its CRC check, its codecs. */
    private static List<Record> readByKafka(List<RecordBatch> stored, CompressionType expected) {
        List<Record> seen = new ArrayList<>();
        for (RecordBatch batch : stored) {
            var kafka = org.apache.kafka.common.record.internal.MemoryRecords.readableRecords(batch.buffer());
            for (org.apache.kafka.common.record.internal.RecordBatch b : kafka.batches()) {
                b.ensureValid();
                assertEquals(expected.id, b.compressionType().id);
                for (org.apache.kafka.common.record.internal.Record r : b) {
                    List<Header> headers = new ArrayList<>();
                    for (org.apache.kafka.common.header.Header h : r.headers()) {
                        headers.add(new Header(h.key(), h.value()));
                    }
                    seen.add(new Record(r.offset(), r.timestamp(), r.hasKey() ? bytes(r.key()) : null,
                            r.hasValue() ? bytes(r.value()) : null, headers));
                }
            }
        }
        return seen;
    }

    private static byte[] section(ByteBuffer batch) {
        ByteBuffer b = batch.duplicate();
        b.position(b.position() + RecordBatch.RECORDS_OFFSET);
        return bytes(b);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
