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
    /** Offset delta of the last record appended, -1 before the first. */
    private int lastAppendedDelta = -1;
    private int lastOffsetDelta = -1;
    private long deleteHorizonMs = RecordBatch.NO_TIMESTAMP;

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
        return appendWithOffsetDelta(lastAppendedDelta + 1, timestamp, key, value, headers);
    }

    /**
     * Keeps the batch's offsets as they were when a batch is rebuilt with some records left out (the log
     * cleaner): the records keep their deltas, with gaps, and the batch keeps its last offset, so the last
     * sequence of an idempotent producer's batch survives (docs/behaviours.md B184).
     */
    public RecordBatchBuilder overrideLastOffsetDelta(int delta) {
        this.lastOffsetDelta = delta;
        return this;
    }

    /**
     * Marks the batch with a delete horizon (KIP-534): the base timestamp field holds it and record
     * timestamps become deltas from it. Set before the first record is appended.
     */
    public RecordBatchBuilder deleteHorizon(long horizonMs) {
        if (recordCount > 0) {
            throw new IllegalStateException("the delete horizon is set before the first record");
        }
        this.deleteHorizonMs = horizonMs;
        return this;
    }

    /** Appends a record at {@code offsetDelta}, which must be above the previous record's. */
    public RecordBatchBuilder appendWithOffsetDelta(int offsetDelta, long timestamp, byte[] key, byte[] value,
                                                    List<Header> headers) {
        if (offsetDelta <= lastAppendedDelta) {
            throw new IllegalArgumentException("offset delta " + offsetDelta + " is not above " + lastAppendedDelta);
        }
        if (recordCount == 0) {
            baseTimestamp = deleteHorizonMs != RecordBatch.NO_TIMESTAMP ? deleteHorizonMs : timestamp;
        }
        lastAppendedDelta = offsetDelta;
        maxTimestamp = Math.max(maxTimestamp, timestamp);
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
        int attributes = compression.id | (timestampType == TimestampType.LOG_APPEND_TIME ? 0x08 : 0)
                | (deleteHorizonMs != RecordBatch.NO_TIMESTAMP ? RecordBatch.DELETE_HORIZON_MASK : 0);
        out.putShort((short) attributes);
        out.putInt(Math.max(lastOffsetDelta, lastAppendedDelta));
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

    /**
     * A batch of no records that keeps {@code original}'s offsets, producer fields and max timestamp (Kafka's
     * empty batch header): what the cleaner leaves of an idempotent producer's last batch when it removes every
     * record of it, so the producer's last sequence survives (docs/behaviours.md B184).
     */
    public static RecordBatch emptyBatchLike(RecordBatch original) {
        ByteBuffer out = ByteBuffer.allocate(RecordBatch.RECORDS_OFFSET).order(ByteOrder.BIG_ENDIAN);
        out.putLong(original.baseOffset());
        out.putInt(RecordBatch.RECORDS_OFFSET - RecordBatch.LOG_OVERHEAD);
        out.putInt(original.partitionLeaderEpoch());
        out.put(RecordBatch.MAGIC);
        out.putInt(0);
        int attributes = (original.timestampType() == TimestampType.LOG_APPEND_TIME ? 0x08 : 0)
                | (original.attributes() & (RecordBatch.TRANSACTIONAL_MASK | RecordBatch.CONTROL_MASK));
        out.putShort((short) attributes);
        out.putInt(original.lastOffsetDelta());
        out.putLong(original.maxTimestamp());
        out.putLong(original.maxTimestamp());
        out.putLong(original.producerId());
        out.putShort(original.producerEpoch());
        out.putInt(original.baseSequence());
        out.putInt(0);
        out.flip();
        RecordBatch batch = RecordBatch.wrap(out);
        out.putInt(RecordBatch.CRC_OFFSET, (int) batch.computeChecksum());
        return RecordBatch.wrap(out);
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
