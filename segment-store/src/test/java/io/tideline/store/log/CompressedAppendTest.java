package io.tideline.store.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.store.record.CompressionBombs;
import io.tideline.store.record.CompressionType;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The leader's append of compressed batches (docs/behaviours.md B120-B122): every codec is accepted, validated
 * record by record and stored byte for byte as sent (only the header fields the leader owns change); a bomb in
 * any codec, or a batch whose records inflate past max.message.bytes, is refused whole with MESSAGE_TOO_LARGE;
 * damaged compressed data with CORRUPT_MESSAGE; and a refused append writes nothing.
 */
class CompressedAppendTest {
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

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void everyCodecIsAppendedAsSentAndReadsBack(CompressionType type) throws Exception {
        Log log = env.open(Map.of());
        RecordBatchBuilder builder = new RecordBatchBuilder(0, type);
        for (int i = 0; i < 100; i++) {
            builder.append(env.now() + i, "key-" + (i % 10), "a value that compresses, " + (i % 4));
        }
        RecordBatch sent = builder.build();
        byte[] sentRecords = section(sent.buffer());
        log.appendAsLeader(MemoryRecords.readableRecords(sent.buffer()), 3);
        log.appendAsLeader(new RecordBatchBuilder(0, type).append(env.now(), "k", "second").buildRecords(), 3);
        assertEquals(101, log.logEndOffset());

        try (FetchDataInfo fetch = log.read(0, Integer.MAX_VALUE, log.logEndOffset(), true)) {
            List<RecordBatch> stored = fetch.records().toMemoryRecords().batches();
            assertEquals(2, stored.size());
            RecordBatch first = stored.get(0);
            first.ensureValid();
            assertEquals(type, first.compressionType());
            assertEquals(3, first.partitionLeaderEpoch());
            assertArrayEquals(sentRecords, section(first.buffer()), "compressed records are stored as sent");
            List<Record> records = first.records();
            assertEquals(100, records.size());
            assertEquals("a value that compresses, 3", new String(records.get(99).value(), StandardCharsets.UTF_8));
            assertEquals(100, stored.get(1).baseOffset());
        }
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void aBombInEveryCodecIsMessageTooLargeAndWritesNothing(CompressionType type) throws Exception {
        Log log = env.open(Map.of());
        log.appendAsLeader(new RecordBatchBuilder(0, type).append(env.now(), "k", "before").buildRecords(), 0);
        MemoryRecords bomb = CompressionBombs.oneHugeRecord(type, (int) CompressionBombs.inflatedSizeFor(type));
        assertTrue(bomb.sizeInBytes() < log.config().maxMessageBytes(), "the bomb passes the wire size check");
        long size = log.size();
        TidelineException e = assertThrows(TidelineException.class, () -> log.appendAsLeader(bomb, 0));
        assertEquals(Errors.MESSAGE_TOO_LARGE, e.error(), e.getMessage());
        assertEquals(1, log.logEndOffset());
        assertEquals(size, log.size());
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void theBoundIsMaxMessageBytesAsIfTheBatchWereUncompressed(CompressionType type) throws Exception {
        int maxMessageBytes = 64 * 1024;
        Log log = env.open(Map.of("max.message.bytes", maxMessageBytes));
        // Records of exactly max.message.bytes less the header, uncompressed: the largest an uncompressed batch holds.
        int value = maxMessageBytes - RecordBatch.RECORDS_OFFSET - 3 - 8;
        RecordBatch fits = new RecordBatchBuilder(0, type).append(env.now(), null, new byte[value]).build();
        assertEquals(maxMessageBytes, new RecordBatchBuilder(0).append(env.now(), null, new byte[value]).build().sizeInBytes());
        log.appendAsLeader(MemoryRecords.readableRecords(fits.buffer()), 0);
        assertEquals(1, log.logEndOffset());

        RecordBatch over = new RecordBatchBuilder(0, type).append(env.now(), null, new byte[value + 1]).build();
        assertTrue(over.sizeInBytes() < maxMessageBytes / 10, "compressed, it is small on the wire");
        TidelineException e = assertThrows(TidelineException.class,
                () -> log.appendAsLeader(MemoryRecords.readableRecords(over.buffer()), 0));
        assertEquals(Errors.MESSAGE_TOO_LARGE, e.error(), e.getMessage());
        assertEquals(1, log.logEndOffset());
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void truncatedCompressedDataIsCorruptMessage(CompressionType type) throws Exception {
        Log log = env.open(Map.of());
        RecordBatchBuilder builder = new RecordBatchBuilder(0, type);
        for (int i = 0; i < 30; i++) {
            builder.append(env.now(), "k" + i, "value " + i);
        }
        byte[] section = CompressionBombs.compressedSection(builder.buildRecords());
        MemoryRecords truncated = CompressionBombs.withCompressedRecords(type, 30,
                Arrays.copyOf(section, section.length - 3));
        TidelineException e = assertThrows(TidelineException.class, () -> log.appendAsLeader(truncated, 0));
        assertEquals(Errors.CORRUPT_MESSAGE, e.error(), e.getMessage());
        assertEquals(0, log.logEndOffset());
    }

    private static byte[] section(ByteBuffer batch) {
        byte[] out = new byte[batch.remaining() - RecordBatch.RECORDS_OFFSET];
        batch.duplicate().position(batch.position() + RecordBatch.RECORDS_OFFSET).get(out);
        return out;
    }
}
