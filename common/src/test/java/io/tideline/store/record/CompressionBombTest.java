package io.tideline.store.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.xerial.snappy.Snappy;

/**
 * Hostile compressed records (docs/behaviours.md B120, B121): batches of about 1 MiB on the wire that inflate to
 * hundreds of MiB or a GiB, in every codec, are refused with MESSAGE_TOO_LARGE without the walk allocating
 * anything near their inflated size (measured with the JVM's per-thread allocation counter); truncated or
 * damaged compressed data is CORRUPT_MESSAGE.
 */
class CompressionBombTest {
    /** max.message.bytes' default, less the batch header: what leader validation allows records to inflate to. */
    private static final long BOUND = 1_048_588 - RecordBatch.RECORDS_OFFSET;
    /** What the walk may allocate: its read chunk and the codec's buffers (lz4: 64 KiB blocks), far below a bomb. */
    private static final long ALLOCATION_ALLOWANCE = 8L << 20;
    private static final long WIRE_LIMIT = 1_048_588;

    private static final Map<CompressionType, MemoryRecords> HUGE_RECORD = new EnumMap<>(CompressionType.class);
    private static final Map<CompressionType, MemoryRecords> MANY_RECORDS = new EnumMap<>(CompressionType.class);

    private static synchronized MemoryRecords hugeRecord(CompressionType type) {
        return HUGE_RECORD.computeIfAbsent(type,
                t -> CompressionBombs.oneHugeRecord(t, (int) CompressionBombs.inflatedSizeFor(t)));
    }

    private static synchronized MemoryRecords manyRecords(CompressionType type) {
        // Compressed as one stream, record by record: 128 MiB keeps the gzip one to about 2 s of the build.
        int valueBytes = 64 * 1024;
        long inflated = Math.min(128L << 20, CompressionBombs.inflatedSizeFor(type));
        return MANY_RECORDS.computeIfAbsent(type,
                t -> CompressionBombs.manyRecords(t, (int) (inflated / (valueBytes + 16)), valueBytes));
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void oneRecordThatInflatesPastTheBoundIsRefusedWithoutInflatingIt(CompressionType type) {
        MemoryRecords bomb = hugeRecord(type);
        assertIsABomb(bomb, type);
        TidelineException e = walkExpectingFailure(bomb);
        assertEquals(Errors.MESSAGE_TOO_LARGE, e.error(), e.getMessage());
        assertTrue(e.getMessage().contains("record 0 declares"), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void smallRecordsThatTogetherInflatePastTheBoundAreRefusedAtTheBound(CompressionType type) {
        MemoryRecords bomb = manyRecords(type);
        assertIsABomb(bomb, type);
        TidelineException e = walkExpectingFailure(bomb);
        assertEquals(Errors.MESSAGE_TOO_LARGE, e.error(), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void recordsThatInflateToExactlyTheBoundAreAcceptedAndOneByteMoreIsNot(CompressionType type) {
        // One record whose encoded size is exactly BOUND: 8 bytes of fields around the value, a 3-byte length varint.
        int value = (int) BOUND - 3 - 8;
        RecordBatch fits = new RecordBatchBuilder(0, type).append(1L, null, new byte[value]).build();
        RecordBatch plain = new RecordBatchBuilder(0).append(1L, null, new byte[value]).build();
        assertEquals(BOUND, plain.sizeInBytes() - RecordBatch.RECORDS_OFFSET, "fixture: records of exactly the bound");
        int[] seen = {0};
        fits.forEachRecord(BOUND, (delta, ts) -> seen[0]++);
        assertEquals(1, seen[0]);
        TidelineException e = assertThrows(TidelineException.class, () -> fits.forEachRecord(BOUND - 1, (d, t) -> { }));
        assertEquals(Errors.MESSAGE_TOO_LARGE, e.error(), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void truncatedCompressedRecordsAreCorrupt(CompressionType type) {
        MemoryRecords good = goodBatch(type);
        byte[] section = CompressionBombs.compressedSection(good);
        for (int cut : new int[] {0, 1, section.length / 2, section.length - 1}) {
            MemoryRecords truncated = CompressionBombs.withCompressedRecords(type, 50, Arrays.copyOf(section, cut));
            TidelineException e = assertThrows(TidelineException.class, () -> walk(truncated),
                    type + " cut at " + cut + " of " + section.length);
            assertEquals(Errors.CORRUPT_MESSAGE, e.error(), type + " cut at " + cut + ": " + e.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void damagedCompressedRecordsAreCorruptOrDecodeToOtherWellFormedRecords(CompressionType type) {
        MemoryRecords good = goodBatch(type);
        byte[] section = CompressionBombs.compressedSection(good);
        List<Record> original = RecordBatch.wrap(good.buffer()).records();
        for (int at = 0; at < section.length; at += Math.max(1, section.length / 64)) {
            byte[] damaged = section.clone();
            damaged[at] ^= (byte) 0x5a;
            RecordBatch batch = RecordBatch.wrap(CompressionBombs.withCompressedRecords(type, 50, damaged).buffer());
            try {
                List<Record> decoded = batch.records();
                // Some codecs carry no checksum over every byte (snappy; lz4 without block checksums): a flipped
                // literal can decode to other records that are still well formed, as in Kafka. They are never
                // the original ones.
                assertEquals(50, decoded.size());
                assertTrue(!decoded.equals(original) || type == CompressionType.SNAPPY, type + " byte " + at);
            } catch (TidelineException e) {
                assertTrue(e.error() == Errors.CORRUPT_MESSAGE || e.error() == Errors.MESSAGE_TOO_LARGE,
                        type + " byte " + at + ": " + e.error() + " " + e.getMessage());
            }
        }
    }

    @Test
    void aSnappyChunkThatDeclaresMoreThanTheBoundIsRefusedBeforeItIsAllocated() throws Exception {
        byte[] header = new byte[16];
        System.arraycopy(org.xerial.snappy.SnappyCodec.getMagicHeader(), 0, header, 0, 8);
        ByteBuffer.wrap(header, 8, 8).putInt(1).putInt(1);
        // A raw snappy block is its inflated length as a varint, then the elements: declare 2^31 - 1 bytes.
        byte[] block = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 0x00, 0x00};
        ByteBuffer stream = ByteBuffer.allocate(header.length + 4 + block.length).order(ByteOrder.BIG_ENDIAN);
        stream.put(header).putInt(block.length).put(block);
        MemoryRecords lie = CompressionBombs.withCompressedRecords(CompressionType.SNAPPY, 1, stream.array());
        TidelineException e = walkExpectingFailure(lie);
        assertEquals(Errors.MESSAGE_TOO_LARGE, e.error(), e.getMessage());

        ByteBuffer negative = ByteBuffer.allocate(header.length + 4).order(ByteOrder.BIG_ENDIAN);
        negative.put(header).putInt(-5);
        TidelineException corrupt = walkExpectingFailure(
                CompressionBombs.withCompressedRecords(CompressionType.SNAPPY, 1, negative.array()));
        assertEquals(Errors.CORRUPT_MESSAGE, corrupt.error(), corrupt.getMessage());
    }

    @Test
    void unframedSnappyAsNonJavaClientsSendItIsRead() throws Exception {
        RecordBatchBuilder plain = new RecordBatchBuilder(0);
        for (int i = 0; i < 20; i++) {
            plain.append(100L + i, "k" + i, "value " + i);
        }
        RecordBatch batch = plain.build();
        byte[] records = Arrays.copyOfRange(batch.buffer().array(), RecordBatch.RECORDS_OFFSET, batch.sizeInBytes());
        MemoryRecords raw = CompressionBombs.withCompressedRecords(CompressionType.SNAPPY, 20, Snappy.compress(records));
        List<Record> decoded = RecordBatch.wrap(raw.buffer()).records();
        assertEquals(20, decoded.size());
        assertEquals("value 7", new String(decoded.get(7).value()));
    }

    private static MemoryRecords goodBatch(CompressionType type) {
        RecordBatchBuilder builder = new RecordBatchBuilder(0, type);
        for (int i = 0; i < 50; i++) {
            builder.append(1_000L + i, ("key-" + i).getBytes(), ("a value that repeats, " + (i % 7)).getBytes(),
                    List.of(new Header("h", new byte[] {(byte) i})));
        }
        return MemoryRecords.readableRecords(builder.build().buffer());
    }

    private static void assertIsABomb(MemoryRecords bomb, CompressionType type) {
        assertTrue(bomb.sizeInBytes() <= WIRE_LIMIT, type + " bomb is " + bomb.sizeInBytes() + " bytes on the wire");
        assertTrue(CompressionBombs.inflatedSizeFor(type) >= 16 * BOUND, "inflates far past the bound");
    }

    private static void walk(MemoryRecords records) {
        RecordBatch.wrap(records.buffer()).forEachRecord(BOUND, (delta, ts) -> { });
    }

    /** Walks {@code bomb} with the leader's bound; asserts the walk itself allocated far less than the bomb holds. */
    private static TidelineException walkExpectingFailure(MemoryRecords bomb) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        TidelineException e = assertThrows(TidelineException.class, () -> walk(bomb));
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < ALLOCATION_ALLOWANCE, "the walk allocated " + allocated + " bytes");
        return e;
    }
}
