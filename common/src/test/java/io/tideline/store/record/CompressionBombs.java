package io.tideline.store.record;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Batches whose records inflate to far more than they take on the wire, written as a stream so that the test JVM
 * never holds the inflated bytes either. Public for the log tests.
 */
public final class CompressionBombs {
    /**
     * What a bomb of about 1 MiB on the wire inflates to in each codec (zeros): gzip ~1000:1, lz4 ~250:1, snappy
     * ~21:1, zstd far more.
     */
    public static long inflatedSizeFor(CompressionType type) {
        return switch (type) {
            case GZIP -> 1000L << 20;
            case ZSTD -> 1L << 30;
            case LZ4 -> 240L << 20;
            case SNAPPY -> 20L << 20;
            case NONE -> throw new IllegalArgumentException("an uncompressed batch is as large as its records");
        };
    }

    private CompressionBombs() {
    }

    /**
     * One record whose value is {@code valueBytes} zeros: its length field alone says it is too large. The records
     * are written as concatenated streams (gzip members, zstd and lz4 frames, snappy streams), each codec's reader
     * reads them as one, so that 4 MiB of zeros are compressed once and repeated rather than compressing
     * a GiB.
     */
    public static MemoryRecords oneHugeRecord(CompressionType type, int valueBytes) {
        int body = 1 + 1 + 1 + 1 + Varint.sizeOfVarint(valueBytes) + valueBytes + 1;
        ByteBuffer head = ByteBuffer.allocate(32);
        Varint.writeVarint(body, head);
        head.put((byte) 0); // attributes
        Varint.writeVarlong(0, head); // timestamp delta
        Varint.writeVarint(0, head); // offset delta
        Varint.writeVarint(-1, head); // null key
        Varint.writeVarint(valueBytes, head);
        int unit = 4 << 20;
        ByteArrayOutputStream wire = new ByteArrayOutputStream(1 << 20);
        wire.writeBytes(RecordCompression.compress(type, head.array(), 0, head.position()));
        byte[] zeros = RecordCompression.compress(type, new byte[unit], 0, unit);
        for (int i = 0; i < valueBytes / unit; i++) {
            wire.writeBytes(zeros);
        }
        wire.writeBytes(RecordCompression.compress(type, new byte[valueBytes % unit + 1], 0, valueBytes % unit + 1));
        return withCompressedRecords(type, 1, wire.toByteArray()); // the last zero above is the header count
    }

    /**
     * {@code count} well-formed records of {@code valueBytes} zeros each: every record is small, only their total is
     * too large, so only counting the inflated bytes refuses it.
     */
    public static MemoryRecords manyRecords(CompressionType type, int count, int valueBytes) {
        return build(type, count, out -> {
            byte[] value = new byte[valueBytes];
            ByteBuffer record = ByteBuffer.allocate(valueBytes + 32);
            for (int i = 0; i < count; i++) {
                record.clear();
                int body = 1 + 1 + Varint.sizeOfVarint(i) + 1 + Varint.sizeOfVarint(valueBytes) + valueBytes + 1;
                Varint.writeVarint(body, record);
                record.put((byte) 0);
                Varint.writeVarlong(0, record);
                Varint.writeVarint(i, record);
                Varint.writeVarint(-1, record);
                Varint.writeVarint(valueBytes, record);
                record.put(value);
                record.put((byte) 0);
                out.write(record.array(), 0, record.position());
            }
        });
    }

    /** A batch of {@code count} records whose compressed section is {@code compressed}, with a valid CRC. */
    public static MemoryRecords withCompressedRecords(CompressionType type, int count, byte[] compressed) {
        ByteBuffer out = ByteBuffer.allocate(RecordBatch.RECORDS_OFFSET + compressed.length).order(ByteOrder.BIG_ENDIAN);
        out.putLong(0L);
        out.putInt(out.capacity() - RecordBatch.LOG_OVERHEAD);
        out.putInt(RecordBatch.NO_PARTITION_LEADER_EPOCH);
        out.put(RecordBatch.MAGIC);
        out.putInt(0);
        out.putShort((short) type.id);
        out.putInt(count - 1);
        out.putLong(1_700_000_000_000L);
        out.putLong(1_700_000_000_000L);
        out.putLong(-1L);
        out.putShort((short) -1);
        out.putInt(-1);
        out.putInt(count);
        out.put(compressed);
        out.flip();
        out.putInt(RecordBatch.CRC_OFFSET, (int) RecordBatch.wrap(out).computeChecksum());
        return MemoryRecords.readableRecords(out);
    }

    /** The compressed records section of a batch (its bytes from the records offset on). */
    public static byte[] compressedSection(MemoryRecords records) {
        ByteBuffer b = records.buffer();
        return Arrays.copyOfRange(b.array(), b.arrayOffset() + RecordBatch.RECORDS_OFFSET, b.arrayOffset() + b.limit());
    }

    private interface Writer {
        void write(OutputStream out) throws IOException;
    }

    private static MemoryRecords build(CompressionType type, int count, Writer records) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 20);
        try (OutputStream out = RecordCompression.compressing(type, bytes)) {
            records.write(out);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return withCompressedRecords(type, count, bytes.toByteArray());
    }

}
