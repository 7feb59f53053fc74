package io.tideline.store.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class RecordBatchTest {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A copy of the batch's bytes, so a test can damage them without touching the original. */
    private static ByteBuffer copyOf(RecordBatch batch) {
        ByteBuffer src = batch.buffer();
        ByteBuffer copy = ByteBuffer.allocate(src.remaining());
        copy.put(src).flip();
        return copy;
    }

    private static RecordBatch reparse(RecordBatch batch) {
        return RecordBatch.wrap(copyOf(batch));
    }

    // ------------------------------------------------------------------ round trips

    @Test
    void singleRecordRoundTripKeepsEveryField() {
        RecordBatch batch = new RecordBatchBuilder(42).partitionLeaderEpoch(7).producer(1234L, (short) 3, 99)
                .append(1_700_000_000_123L, bytes("key"), bytes("value")).build();
        RecordBatch parsed = reparse(batch);
        parsed.ensureValid();

        assertEquals(42, parsed.baseOffset());
        assertEquals(42, parsed.lastOffset());
        assertEquals(43, parsed.nextOffset());
        assertEquals(0, parsed.lastOffsetDelta());
        assertEquals(7, parsed.partitionLeaderEpoch());
        assertEquals(RecordBatch.MAGIC, parsed.magic());
        assertEquals(1234L, parsed.producerId());
        assertEquals(3, parsed.producerEpoch());
        assertEquals(99, parsed.baseSequence());
        assertEquals(1, parsed.recordCount());
        assertEquals(CompressionType.NONE, parsed.compressionType());
        assertEquals(TimestampType.CREATE_TIME, parsed.timestampType());
        assertFalse(parsed.isTransactional());
        assertFalse(parsed.isControlBatch());
        assertEquals(1_700_000_000_123L, parsed.baseTimestamp());
        assertEquals(1_700_000_000_123L, parsed.maxTimestamp());
        assertEquals(parsed.sizeInBytes(), parsed.batchLength() + RecordBatch.LOG_OVERHEAD);

        Record r = parsed.records().get(0);
        assertEquals(42, r.offset());
        assertEquals(1_700_000_000_123L, r.timestamp());
        assertArrayEquals(bytes("key"), r.key());
        assertArrayEquals(bytes("value"), r.value());
        assertTrue(r.headers().isEmpty());
    }

    @Test
    void nullKeyNullValueAndEmptyValueSurviveTheRoundTrip() {
        RecordBatch batch = new RecordBatchBuilder(0)
                .append(10L, (byte[]) null, bytes("v"))
                .append(11L, bytes("k"), (byte[]) null)
                .append(12L, bytes("k"), new byte[0])
                .append(13L, new byte[0], new byte[0])
                .build();
        List<Record> records = reparse(batch).records();
        assertEquals(4, records.size());
        assertNull(records.get(0).key());
        assertArrayEquals(bytes("v"), records.get(0).value());
        assertNull(records.get(1).value(), "a null value (tombstone) stays null, not empty");
        assertArrayEquals(new byte[0], records.get(2).value(), "an empty value stays empty, not null");
        assertArrayEquals(new byte[0], records.get(3).key());
    }

    @Test
    void headersIncludingANullHeaderValueSurviveTheRoundTrip() {
        List<Header> headers = List.of(new Header("trace", bytes("abc")), new Header("empty", new byte[0]),
                new Header("nothing", null), new Header("trace", bytes("second value, same key")));
        RecordBatch batch = new RecordBatchBuilder(5).append(1L, bytes("k"), bytes("v"), headers)
                .append(2L, bytes("k2"), bytes("v2")).build();
        List<Record> records = reparse(batch).records();
        assertEquals(headers, records.get(0).headers());
        assertNull(records.get(0).headers().get(2).value());
        assertArrayEquals(new byte[0], records.get(0).headers().get(1).value());
        assertTrue(records.get(1).headers().isEmpty());
    }

    @Test
    void timestampsBelowTheFirstRecordsAreStoredAsNegativeDeltas() {
        RecordBatch batch = new RecordBatchBuilder(0)
                .append(5_000L, "a", "1")
                .append(1_000L, "b", "2")      // delta -4000
                .append(9_000L, "c", "3")
                .append(-1L, "d", "4")         // no timestamp: delta -5001
                .build();
        RecordBatch parsed = reparse(batch);
        parsed.ensureValid();
        assertEquals(5_000L, parsed.baseTimestamp(), "base timestamp is the first record's");
        assertEquals(9_000L, parsed.maxTimestamp(), "max timestamp is the largest, not the last");
        List<Long> timestamps = parsed.records().stream().map(Record::timestamp).toList();
        assertEquals(List.of(5_000L, 1_000L, 9_000L, -1L), timestamps);
    }

    @Test
    void manyRecordsGetConsecutiveOffsetsFromTheBaseOffset() {
        RecordBatchBuilder builder = new RecordBatchBuilder(1_000_000L);
        for (int i = 0; i < 500; i++) {
            builder.append(100L + i, "key-" + i, i % 7 == 0 ? null : "value-" + i);
        }
        RecordBatch parsed = reparse(builder.build());
        parsed.ensureValid();
        assertEquals(500, parsed.recordCount());
        assertEquals(1_000_499L, parsed.lastOffset());
        List<Record> records = parsed.records();
        for (int i = 0; i < 500; i++) {
            Record r = records.get(i);
            assertEquals(1_000_000L + i, r.offset());
            assertEquals(100L + i, r.timestamp());
            assertArrayEquals(bytes("key-" + i), r.key());
            if (i % 7 == 0) {
                assertNull(r.value());
            } else {
                assertArrayEquals(bytes("value-" + i), r.value());
            }
        }
    }

    @Test
    void gzipBatchRoundTripsAndIsSmallerForRepetitiveData() {
        RecordBatchBuilder plain = new RecordBatchBuilder(0);
        RecordBatchBuilder gzip = new RecordBatchBuilder(0, CompressionType.GZIP);
        List<Header> headers = List.of(new Header("h", null));
        for (int i = 0; i < 200; i++) {
            String value = "the same value, again and again, " + (i % 3);
            plain.append(1_000L + i, bytes("k" + i), bytes(value), headers);
            gzip.append(1_000L + i, bytes("k" + i), bytes(value), headers);
        }
        RecordBatch plainBatch = plain.build();
        RecordBatch gzipBatch = reparse(gzip.build());
        gzipBatch.ensureValid();
        assertEquals(CompressionType.GZIP, gzipBatch.compressionType());
        assertEquals(200, gzipBatch.recordCount());
        assertTrue(gzipBatch.sizeInBytes() < plainBatch.sizeInBytes() / 4,
                gzipBatch.sizeInBytes() + " vs " + plainBatch.sizeInBytes());
        assertEquals(plainBatch.records(), gzipBatch.records());
        assertEquals(plainBatch.maxTimestamp(), gzipBatch.maxTimestamp());
    }

    @Test
    void memoryRecordsWithSeveralBatchesSplitsThemAtTheirLengths() {
        RecordBatch first = new RecordBatchBuilder(0).append(1L, "a", "1").append(2L, "b", "2").build();
        RecordBatch second = new RecordBatchBuilder(2).append(3L, "c", "3").build();
        MemoryRecords records = MemoryRecords.of(first, second);
        assertEquals(first.sizeInBytes() + second.sizeInBytes(), records.sizeInBytes());
        List<RecordBatch> batches = records.batches();
        assertEquals(2, batches.size());
        assertEquals(2, batches.get(1).baseOffset());
        assertEquals(List.of(0L, 1L, 2L), records.records().stream().map(Record::offset).toList());
        // A partial batch at the end is not a batch.
        ByteBuffer cut = records.buffer();
        cut.limit(cut.limit() - 1);
        MemoryRecords partial = MemoryRecords.readableRecords(cut);
        assertEquals(1, partial.batches().size());
        assertEquals(first.sizeInBytes(), partial.validBytes());
    }

    @Test
    void builderRefusesAnEmptyBatch() {
        assertThrows(IllegalStateException.class, () -> new RecordBatchBuilder(0).build());
    }

    // ------------------------------------------------------------------ CRC

    @Test
    void crcIsCrc32cOverAttributesToTheEnd() {
        RecordBatch batch = new RecordBatchBuilder(0).append(1L, "k", "v").build();
        ByteBuffer covered = batch.buffer();
        covered.position(RecordBatch.ATTRIBUTES_OFFSET);
        CRC32C crc = new CRC32C();
        crc.update(covered);
        assertEquals(crc.getValue(), batch.checksum());
        assertTrue(batch.isValid());
    }

    @Test
    void flippingAnyCrcCoveredByteIsDetected() {
        RecordBatch batch = new RecordBatchBuilder(0).append(1L, "key", "value")
                .append(2L, "key2", "value2").build();
        for (int position = RecordBatch.ATTRIBUTES_OFFSET; position < batch.sizeInBytes(); position++) {
            ByteBuffer damaged = copyOf(batch);
            damaged.put(position, (byte) (damaged.get(position) ^ 0x10));
            RecordBatch corrupt = RecordBatch.wrap(damaged);
            assertFalse(corrupt.isValid(), "flip at byte " + position + " went unnoticed");
            TidelineException e = assertThrows(TidelineException.class, corrupt::ensureValid, "byte " + position);
            assertEquals(Errors.CORRUPT_MESSAGE, e.error(), "byte " + position + ": " + e.getMessage());
        }
    }

    @Test
    void flippingTheStoredCrcItselfIsDetected() {
        ByteBuffer damaged = copyOf(new RecordBatchBuilder(0).append(1L, "k", "v").build());
        damaged.put(RecordBatch.CRC_OFFSET + 2, (byte) (damaged.get(RecordBatch.CRC_OFFSET + 2) ^ 1));
        TidelineException e = assertThrows(TidelineException.class, () -> RecordBatch.wrap(damaged).ensureValid());
        assertEquals(Errors.CORRUPT_MESSAGE, e.error());
        assertTrue(e.getMessage().contains("CRC"), e.getMessage());
    }

    @Test
    void baseOffsetAndLeaderEpochAreOutsideTheCrcSoALeaderCanStampThem() {
        RecordBatch batch = reparse(new RecordBatchBuilder(0).append(1L, "k", "v").build());
        long crc = batch.checksum();
        batch.setBaseOffset(123_456L);
        batch.setPartitionLeaderEpoch(42);
        assertTrue(batch.isValid());
        assertEquals(crc, batch.checksum());
        assertEquals(123_456L, batch.records().get(0).offset());
        assertEquals(42, batch.partitionLeaderEpoch());
    }

    @Test
    void wrongMagicIsInvalidRecordAndWrongLengthIsCorrupt() {
        ByteBuffer magic = copyOf(new RecordBatchBuilder(0).append(1L, "k", "v").build());
        magic.put(RecordBatch.MAGIC_OFFSET, (byte) 1);
        assertEquals(Errors.INVALID_RECORD,
                assertThrows(TidelineException.class, () -> RecordBatch.wrap(magic).ensureValid()).error());

        ByteBuffer length = copyOf(new RecordBatchBuilder(0).append(1L, "k", "v").build());
        length.putInt(RecordBatch.LENGTH_OFFSET, length.getInt(RecordBatch.LENGTH_OFFSET) + 1);
        assertEquals(Errors.CORRUPT_MESSAGE,
                assertThrows(TidelineException.class, () -> RecordBatch.wrap(length).ensureValid()).error());

        ByteBuffer tooSmall = ByteBuffer.allocate(RecordBatch.HEADER_SIZE - 1);
        assertEquals(Errors.CORRUPT_MESSAGE,
                assertThrows(TidelineException.class, () -> RecordBatch.wrap(tooSmall).ensureValid()).error());
    }

    @Test
    void setMaxTimestampRecomputesTheCrcAndLogAppendTimeRewritesRecordTimestamps() {
        RecordBatch batch = reparse(new RecordBatchBuilder(0).append(100L, "a", "1").append(200L, "b", "2").build());
        long before = batch.checksum();

        batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, 5_000L);
        assertTrue(batch.isValid(), "the CRC covers attributes and max timestamp, so it must be recomputed");
        assertNotEquals(before, batch.checksum());
        assertEquals(TimestampType.LOG_APPEND_TIME, batch.timestampType());
        assertEquals(5_000L, batch.maxTimestamp());
        assertEquals(List.of(5_000L, 5_000L), batch.records().stream().map(Record::timestamp).toList());

        batch.setMaxTimestamp(TimestampType.CREATE_TIME, 200L);
        assertTrue(batch.isValid());
        assertEquals(before, batch.checksum(), "back to the original header, back to the original CRC");
        assertEquals(List.of(100L, 200L), batch.records().stream().map(Record::timestamp).toList());
    }

    @Test
    void recordsThatDoNotMatchTheDeclaredCountAreCorrupt() {
        ByteBuffer buffer = copyOf(new RecordBatchBuilder(0).append(1L, "a", "1").append(2L, "b", "2").build());
        buffer.putInt(RecordBatch.RECORDS_COUNT_OFFSET, 3);
        RecordBatch tooFew = RecordBatch.wrap(buffer);
        assertEquals(Errors.CORRUPT_MESSAGE, assertThrows(TidelineException.class, tooFew::records).error());

        buffer.putInt(RecordBatch.RECORDS_COUNT_OFFSET, 1);
        RecordBatch trailing = RecordBatch.wrap(buffer);
        assertEquals(Errors.CORRUPT_MESSAGE, assertThrows(TidelineException.class, trailing::records).error());
    }

    // ------------------------------------------------------------------ varints

    private static byte[] encodeVarint(int value) {
        ByteBuffer out = ByteBuffer.allocate(5);
        Varint.writeVarint(value, out);
        return Arrays.copyOf(out.array(), out.position());
    }

    private static byte[] encodeVarlong(long value) {
        ByteBuffer out = ByteBuffer.allocate(10);
        Varint.writeVarlong(value, out);
        return Arrays.copyOf(out.array(), out.position());
    }

    @Test
    void zigZagVarintsHaveTheKnownEncodings() {
        assertArrayEquals(new byte[] {0x00}, encodeVarint(0));
        assertArrayEquals(new byte[] {0x02}, encodeVarint(1));
        assertArrayEquals(new byte[] {0x01}, encodeVarint(-1));
        assertArrayEquals(new byte[] {0x03}, encodeVarint(-2));
        assertArrayEquals(new byte[] {0x7f}, encodeVarint(-64));
        assertArrayEquals(new byte[] {(byte) 0x80, 0x01}, encodeVarint(64));
        assertArrayEquals(new byte[] {(byte) 0xD8, 0x04}, encodeVarint(300));
        assertArrayEquals(new byte[] {(byte) 0xFE, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F},
                encodeVarint(Integer.MAX_VALUE));
        assertArrayEquals(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F},
                encodeVarint(Integer.MIN_VALUE));
        assertArrayEquals(new byte[] {(byte) 0xD8, 0x04}, encodeVarlong(300L));
        assertArrayEquals(new byte[] {0x01}, encodeVarlong(-1L));
    }

    @Test
    void varintsRoundTripAtTheBoundaries() {
        int[] values = {0, 1, -1, 63, -64, 64, -65, 300, 8191, -8192, 8192, Integer.MAX_VALUE, Integer.MIN_VALUE,
                Integer.MAX_VALUE - 1, Integer.MIN_VALUE + 1};
        for (int value : values) {
            byte[] encoded = encodeVarint(value);
            assertEquals(Varint.sizeOfVarint(value), encoded.length, "size of " + value);
            ByteBuffer in = ByteBuffer.wrap(encoded);
            assertEquals(value, Varint.readVarint(in));
            assertFalse(in.hasRemaining(), "read exactly the encoding of " + value);
        }
        assertEquals(1, Varint.sizeOfVarint(0));
        assertEquals(1, Varint.sizeOfVarint(-1));
        assertEquals(5, Varint.sizeOfVarint(Integer.MIN_VALUE));
        assertEquals(5, Varint.sizeOfVarint(Integer.MAX_VALUE));
    }

    @Test
    void varlongsRoundTripAtTheBoundaries() {
        List<Long> values = new ArrayList<>(List.of(0L, 1L, -1L, 300L, -300L, (long) Integer.MAX_VALUE,
                (long) Integer.MIN_VALUE, Integer.MAX_VALUE + 1L, Integer.MIN_VALUE - 1L, Long.MAX_VALUE,
                Long.MIN_VALUE, Long.MAX_VALUE - 1, Long.MIN_VALUE + 1));
        for (int shift = 0; shift < 64; shift += 7) {
            values.add(1L << shift);
            values.add(-(1L << shift));
        }
        for (long value : values) {
            byte[] encoded = encodeVarlong(value);
            assertEquals(Varint.sizeOfVarlong(value), encoded.length, "size of " + value);
            ByteBuffer in = ByteBuffer.wrap(encoded);
            assertEquals(value, Varint.readVarlong(in));
            assertFalse(in.hasRemaining(), "read exactly the encoding of " + value);
        }
        assertEquals(10, Varint.sizeOfVarlong(Long.MIN_VALUE));
        assertEquals(10, Varint.sizeOfVarlong(Long.MAX_VALUE));
        assertEquals(1, Varint.sizeOfVarlong(-1L));
    }

    @Test
    void overlongVarintsAreRefused() {
        ByteBuffer sixBytes = ByteBuffer.wrap(new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80,
                (byte) 0x80, 0x01});
        assertThrows(IllegalArgumentException.class, () -> Varint.readVarint(sixBytes));
        byte[] elevenBytes = new byte[11];
        Arrays.fill(elevenBytes, (byte) 0x80);
        elevenBytes[10] = 0x01;
        assertThrows(IllegalArgumentException.class, () -> Varint.readVarlong(ByteBuffer.wrap(elevenBytes)));
    }
}
