package io.tideline.store.record;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A view over one record batch in Kafka's v2 format (magic 2), the unit of everything the store
 * writes, replicates and reads. The buffer holds exactly one batch, from its position to its limit.
 *
 * <pre>
 *  offset  size  field
 *       0     8  baseOffset              first offset of the batch (assigned by the leader)
 *       8     4  batchLength             bytes after this field (whole batch = batchLength + 12)
 *      12     4  partitionLeaderEpoch    epoch of the leader that appended it
 *      16     1  magic                   2
 *      17     4  crc                     CRC-32C of bytes [21, end)
 *      21     2  attributes              bits 0-2 compression, 3 timestamp type, 4 transactional, 5 control
 *      23     4  lastOffsetDelta         lastOffset - baseOffset
 *      27     8  baseTimestamp
 *      35     8  maxTimestamp
 *      43     8  producerId
 *      51     2  producerEpoch
 *      53     4  baseSequence
 *      57     4  recordCount
 *      61     *  records (compressed as a whole when bits 0-2 say so)
 *
 *  record: length varint | attributes int8 | timestampDelta varlong | offsetDelta varint |
 *          keyLength varint | key | valueLength varint | value | headerCount varint |
 *          headers (keyLength varint, key, valueLength varint, value)...
 * </pre>
 *
 * The CRC does not cover baseOffset, batchLength or partitionLeaderEpoch, so a leader can assign
 * offsets and stamp its epoch without recomputing it. Not thread-safe; a view is cheap to create.
 */
public final class RecordBatch {
    public static final int BASE_OFFSET_OFFSET = 0;
    public static final int LENGTH_OFFSET = 8;
    public static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
    public static final int MAGIC_OFFSET = 16;
    public static final int CRC_OFFSET = 17;
    public static final int ATTRIBUTES_OFFSET = 21;
    public static final int LAST_OFFSET_DELTA_OFFSET = 23;
    public static final int BASE_TIMESTAMP_OFFSET = 27;
    public static final int MAX_TIMESTAMP_OFFSET = 35;
    public static final int PRODUCER_ID_OFFSET = 43;
    public static final int PRODUCER_EPOCH_OFFSET = 51;
    public static final int BASE_SEQUENCE_OFFSET = 53;
    public static final int RECORDS_COUNT_OFFSET = 57;
    public static final int RECORDS_OFFSET = 61;

    /** baseOffset + batchLength: the part of the header every magic shares. */
    public static final int LOG_OVERHEAD = 12;
    /** Enough of the header to read baseOffset, length, epoch and magic. */
    public static final int HEADER_SIZE_UP_TO_MAGIC = 17;
    public static final int HEADER_SIZE = RECORDS_OFFSET;
    public static final byte MAGIC = 2;
    public static final long NO_TIMESTAMP = -1L;
    public static final int NO_PARTITION_LEADER_EPOCH = -1;

    private static final int COMPRESSION_MASK = 0x07;
    private static final int TIMESTAMP_TYPE_MASK = 0x08;
    public static final int TRANSACTIONAL_MASK = 0x10;
    public static final int CONTROL_MASK = 0x20;
    /**
     * Set by the log cleaner when it first retains a tombstone of the batch (KIP-534): the base
     * timestamp field then holds the delete horizon, and record timestamps are deltas from it.
     */
    public static final int DELETE_HORIZON_MASK = 0x40;

    private final ByteBuffer buffer;

    private RecordBatch(ByteBuffer buffer) {
        this.buffer = buffer.slice().order(ByteOrder.BIG_ENDIAN);
    }

    /** Wraps a buffer that holds exactly one batch; nothing is validated yet. */
    public static RecordBatch wrap(ByteBuffer buffer) {
        return new RecordBatch(buffer);
    }

    public ByteBuffer buffer() {
        return buffer.duplicate();
    }

    public int sizeInBytes() {
        return buffer.limit();
    }

    public long baseOffset() {
        return buffer.getLong(BASE_OFFSET_OFFSET);
    }

    public int batchLength() {
        return buffer.getInt(LENGTH_OFFSET);
    }

    public long lastOffset() {
        return baseOffset() + lastOffsetDelta();
    }

    public long nextOffset() {
        return lastOffset() + 1;
    }

    public int lastOffsetDelta() {
        return buffer.getInt(LAST_OFFSET_DELTA_OFFSET);
    }

    public int partitionLeaderEpoch() {
        return buffer.getInt(PARTITION_LEADER_EPOCH_OFFSET);
    }

    public byte magic() {
        return buffer.get(MAGIC_OFFSET);
    }

    public long checksum() {
        return buffer.getInt(CRC_OFFSET) & 0xffffffffL;
    }

    public short attributes() {
        return buffer.getShort(ATTRIBUTES_OFFSET);
    }

    public CompressionType compressionType() {
        return CompressionType.forId(attributes() & COMPRESSION_MASK);
    }

    public TimestampType timestampType() {
        return (attributes() & TIMESTAMP_TYPE_MASK) != 0 ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
    }

    public boolean isTransactional() {
        return (attributes() & TRANSACTIONAL_MASK) != 0;
    }

    public boolean isControlBatch() {
        return (attributes() & CONTROL_MASK) != 0;
    }

    public boolean hasDeleteHorizon() {
        return (attributes() & DELETE_HORIZON_MASK) != 0;
    }

    /** The time after which the cleaner removes the batch's tombstones, or -1 when none was set (KIP-534). */
    public long deleteHorizonMs() {
        return hasDeleteHorizon() ? baseTimestamp() : NO_TIMESTAMP;
    }

    public long baseTimestamp() {
        return buffer.getLong(BASE_TIMESTAMP_OFFSET);
    }

    public long maxTimestamp() {
        return buffer.getLong(MAX_TIMESTAMP_OFFSET);
    }

    public long producerId() {
        return buffer.getLong(PRODUCER_ID_OFFSET);
    }

    public short producerEpoch() {
        return buffer.getShort(PRODUCER_EPOCH_OFFSET);
    }

    public int baseSequence() {
        return buffer.getInt(BASE_SEQUENCE_OFFSET);
    }

    public int recordCount() {
        return buffer.getInt(RECORDS_COUNT_OFFSET);
    }

    public long computeChecksum() {
        CRC32C crc = new CRC32C();
        ByteBuffer region = buffer.duplicate();
        region.position(ATTRIBUTES_OFFSET).limit(buffer.limit());
        crc.update(region);
        return crc.getValue();
    }

    public boolean isValid() {
        return sizeInBytes() >= HEADER_SIZE && checksum() == computeChecksum();
    }

    /**
     * Checks the header fields and the CRC, the checks every path (leader, follower, recovery) makes.
     * Throws CORRUPT_MESSAGE or INVALID_RECORD naming what is wrong.
     */
    public void ensureValid() {
        if (sizeInBytes() < HEADER_SIZE) {
            throw new TidelineException(Errors.CORRUPT_MESSAGE,
                    "Batch of " + sizeInBytes() + " bytes is smaller than the v2 header (" + HEADER_SIZE + ")");
        }
        if (batchLength() + LOG_OVERHEAD != sizeInBytes()) {
            throw new TidelineException(Errors.CORRUPT_MESSAGE, "Batch length field " + batchLength()
                    + " does not match the " + sizeInBytes() + " bytes of the batch");
        }
        if (magic() != MAGIC) {
            throw new TidelineException(Errors.INVALID_RECORD,
                    "Batch at offset " + baseOffset() + " has magic " + magic() + "; only magic 2 is supported");
        }
        long stored = checksum();
        long computed = computeChecksum();
        if (stored != computed) {
            throw new TidelineException(Errors.CORRUPT_MESSAGE, "Batch at offset " + baseOffset()
                    + " failed its CRC-32C check (stored " + stored + ", computed " + computed + ")");
        }
        if (lastOffsetDelta() < 0 || recordCount() < 0) {
            throw new TidelineException(Errors.CORRUPT_MESSAGE, "Batch at offset " + baseOffset()
                    + " has a negative lastOffsetDelta or record count");
        }
    }

    public void setBaseOffset(long offset) {
        buffer.putLong(BASE_OFFSET_OFFSET, offset);
    }

    public void setPartitionLeaderEpoch(int epoch) {
        buffer.putInt(PARTITION_LEADER_EPOCH_OFFSET, epoch);
    }

    /** Sets the timestamp type and max timestamp, which are covered by the CRC, and recomputes it. */
    public void setMaxTimestamp(TimestampType type, long maxTimestamp) {
        short attributes = attributes();
        short updated = (short) (type == TimestampType.LOG_APPEND_TIME
                ? attributes | TIMESTAMP_TYPE_MASK : attributes & ~TIMESTAMP_TYPE_MASK);
        if (updated == attributes && maxTimestamp == maxTimestamp()) {
            return;
        }
        buffer.putShort(ATTRIBUTES_OFFSET, updated);
        buffer.putLong(MAX_TIMESTAMP_OFFSET, maxTimestamp);
        buffer.putInt(CRC_OFFSET, (int) computeChecksum());
    }

    /**
     * Decodes every record. For LogAppendTime batches each record's timestamp is the batch's max
     * timestamp, as Kafka's readers do. Throws CORRUPT_MESSAGE when the records do not parse to
     * exactly the declared count and size. Compressed records are read as they inflate, without a bound
     * on their total beyond what the list of them holds anyway: for batches this node validated or a
     * leader sent.
     */
    public List<Record> records() {
        return RecordsDecoder.records(this, buffer);
    }

    /**
     * Walks every record with the checks of {@link #records()} (same errors) but copies nothing: keys,
     * values and headers are skipped, and {@code visitor} gets each record's offset delta, timestamp and
     * whether it has a key (for a compacted topic, B215), in order. That is all leader validation needs;
     * decoding into {@link Record}s would copy every value, about 15% of an append's CPU
     * (docs/performance.md). Compressed records are walked as they inflate, and at most
     * {@code maxRecordsBytes} of them: past that the walk stops with MESSAGE_TOO_LARGE (B120).
     */
    public void forEachRecord(long maxRecordsBytes, RecordVisitor visitor) {
        RecordsDecoder.forEachRecord(this, buffer, maxRecordsBytes, visitor);
    }

    /** {@link #forEachRecord(long, RecordVisitor)} with no bound on what compressed records inflate to. */
    public void forEachRecord(RecordVisitor visitor) {
        forEachRecord(Long.MAX_VALUE, visitor);
    }

    /** Receives the fields of one record that {@link #forEachRecord} reads. */
    @FunctionalInterface
    public interface RecordVisitor {
        void accept(int offsetDelta, long timestamp);

        /** What the walks call: also says whether the record has a key (a null key is length -1). */
        default void accept(int offsetDelta, long timestamp, boolean hasKey) {
            accept(offsetDelta, timestamp);
        }
    }

    @Override
    public String toString() {
        return "RecordBatch(baseOffset=" + baseOffset() + ", lastOffset=" + lastOffset() + ", count=" + recordCount()
                + ", size=" + sizeInBytes() + ", epoch=" + partitionLeaderEpoch() + ", maxTimestamp=" + maxTimestamp()
                + ", compression=" + (attributes() & COMPRESSION_MASK) + ")";
    }
}
