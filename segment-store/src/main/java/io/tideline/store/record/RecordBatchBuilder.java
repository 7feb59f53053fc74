package io.tideline.store.record;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Builds one v2 batch, as a producer does: records get consecutive offset deltas, timestamps are
 * stored as deltas from the first record's, and the CRC is computed last. Offsets and the leader
 * epoch are placeholders the leader overwrites on append.
 *
 * <p>Each record is encoded into the builder's buffer when it is appended (its key and value are copied
 * then, so the caller may reuse its arrays, as with Kafka's producer), and {@link #build()} copies the
 * encoded records once into an exact-size batch behind its header. Not thread-safe.
 */
public final class RecordBatchBuilder {
    private static final int INITIAL_CAPACITY = 256;

    private final long baseOffset;
    private final CompressionType compression;
    private int partitionLeaderEpoch = RecordBatch.NO_PARTITION_LEADER_EPOCH;
    private long producerId = -1L;
    private short producerEpoch = -1;
    private int baseSequence = -1;
    private TimestampType timestampType = TimestampType.CREATE_TIME;
    /** The encoded records so far, from position 0. */
    private ByteBuffer records = ByteBuffer.allocate(INITIAL_CAPACITY);
    private int recordCount;
    private long baseTimestamp;
    private long maxTimestamp = RecordBatch.NO_TIMESTAMP;

    public RecordBatchBuilder(long baseOffset) {
        this(baseOffset, CompressionType.NONE);
    }

    public RecordBatchBuilder(long baseOffset, CompressionType compression) {
        this.baseOffset = baseOffset;
        this.compression = compression;
    }

    public RecordBatchBuilder partitionLeaderEpoch(int epoch) {
        this.partitionLeaderEpoch = epoch;
        return this;
    }

    public RecordBatchBuilder producer(long id, short epoch, int sequence) {
        this.producerId = id;
        this.producerEpoch = epoch;
        this.baseSequence = sequence;
        return this;
    }

    public RecordBatchBuilder logAppendTime() {
        this.timestampType = TimestampType.LOG_APPEND_TIME;
        return this;
    }

    public RecordBatchBuilder append(long timestamp, byte[] key, byte[] value) {
        return append(timestamp, key, value, List.of());
    }

    public RecordBatchBuilder append(long timestamp, String key, String value) {
        return append(timestamp, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    public RecordBatchBuilder append(long timestamp, byte[] key, byte[] value, List<Header> headers) {
        if (recordCount == 0) {
            baseTimestamp = timestamp;
        }
        maxTimestamp = Math.max(maxTimestamp, timestamp);
        int offsetDelta = recordCount;
        long timestampDelta = timestamp - baseTimestamp;
        int bodySize = 1 + Varint.sizeOfVarlong(timestampDelta) + Varint.sizeOfVarint(offsetDelta)
                + sizeOfBytes(key) + sizeOfBytes(value) + Varint.sizeOfVarint(headers.size());
        for (Header h : headers) {
            bodySize += sizeOfBytes(h.key().getBytes(StandardCharsets.UTF_8)) + sizeOfBytes(h.value());
        }
        ensureRoom(Varint.sizeOfVarint(bodySize) + bodySize);
        Varint.writeVarint(bodySize, records);
        records.put((byte) 0);
        Varint.writeVarlong(timestampDelta, records);
        Varint.writeVarint(offsetDelta, records);
        writeBytes(key, records);
        writeBytes(value, records);
        Varint.writeVarint(headers.size(), records);
        for (Header h : headers) {
            writeBytes(h.key().getBytes(StandardCharsets.UTF_8), records);
            writeBytes(h.value(), records);
        }
        recordCount++;
        return this;
    }

    public int recordCount() {
        return recordCount;
    }

    /** The size of the batch {@link #build()} would return now, uncompressed. */
    public int sizeInBytes() {
        return RecordBatch.RECORDS_OFFSET + records.position();
    }

    /** A batch of the records appended so far; the builder stays usable (later appends go in later builds). */
    public RecordBatch build() {
        if (recordCount == 0) {
            throw new IllegalStateException("a batch needs at least one record");
        }
        ByteBuffer encoded = records.duplicate().flip();
        if (compression != CompressionType.NONE) {
            encoded = ByteBuffer.wrap(RecordCompression.compress(compression, records.array(), 0, records.position()));
        }
        ByteBuffer out = ByteBuffer.allocate(RecordBatch.RECORDS_OFFSET + encoded.remaining()).order(ByteOrder.BIG_ENDIAN);
        out.putLong(baseOffset);
        out.putInt(out.capacity() - RecordBatch.LOG_OVERHEAD);
        out.putInt(partitionLeaderEpoch);
        out.put(RecordBatch.MAGIC);
        out.putInt(0); // CRC, filled below
        int attributes = compression.id | (timestampType == TimestampType.LOG_APPEND_TIME ? 0x08 : 0);
        out.putShort((short) attributes);
        out.putInt(recordCount - 1);
        out.putLong(baseTimestamp);
        out.putLong(maxTimestamp);
        out.putLong(producerId);
        out.putShort(producerEpoch);
        out.putInt(baseSequence);
        out.putInt(recordCount);
        out.put(encoded);
        out.flip();
        RecordBatch batch = RecordBatch.wrap(out);
        out.putInt(RecordBatch.CRC_OFFSET, (int) batch.computeChecksum());
        return RecordBatch.wrap(out);
    }

    /** The batch as records, on the batch's own buffer (no further copy). */
    public MemoryRecords buildRecords() {
        return MemoryRecords.readableRecords(build().buffer());
    }

    private void ensureRoom(int bytes) {
        if (records.remaining() < bytes) {
            ByteBuffer larger = ByteBuffer.allocate(Math.max(records.capacity() * 2, records.position() + bytes));
            larger.put(records.flip());
            records = larger;
        }
    }

    private static int sizeOfBytes(byte[] bytes) {
        return bytes == null ? Varint.sizeOfVarint(-1) : Varint.sizeOfVarint(bytes.length) + bytes.length;
    }

    private static void writeBytes(byte[] bytes, ByteBuffer out) {
        if (bytes == null) {
            Varint.writeVarint(-1, out);
        } else {
            Varint.writeVarint(bytes.length, out);
            out.put(bytes);
        }
    }
}
