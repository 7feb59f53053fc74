package io.tideline.store.record;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;

/**
 * Builds one v2 batch, as a producer does: records get consecutive offset deltas, timestamps are
 * stored as deltas from the first record's, and the CRC is computed last. Offsets and the leader
 * epoch are placeholders the leader overwrites on append. Not thread-safe.
 */
public final class RecordBatchBuilder {
    private final long baseOffset;
    private final CompressionType compression;
    private final List<Record> records = new ArrayList<>();
    private int partitionLeaderEpoch = RecordBatch.NO_PARTITION_LEADER_EPOCH;
    private long producerId = -1L;
    private short producerEpoch = -1;
    private int baseSequence = -1;
    private TimestampType timestampType = TimestampType.CREATE_TIME;

    public RecordBatchBuilder(long baseOffset) {
        this(baseOffset, CompressionType.NONE);
    }

    public RecordBatchBuilder(long baseOffset, CompressionType compression) {
        if (!compression.decodable()) {
            throw new IllegalArgumentException("cannot build " + compression.label + " batches");
        }
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
        records.add(new Record(baseOffset + records.size(), timestamp, key, value, headers));
        return this;
    }

    public int recordCount() {
        return records.size();
    }

    public RecordBatch build() {
        if (records.isEmpty()) {
            throw new IllegalStateException("a batch needs at least one record");
        }
        long baseTimestamp = records.get(0).timestamp();
        long maxTimestamp = RecordBatch.NO_TIMESTAMP;
        for (Record r : records) {
            maxTimestamp = Math.max(maxTimestamp, r.timestamp());
        }
        byte[] payload = encodeRecords(baseTimestamp);
        if (compression == CompressionType.GZIP) {
            payload = gzip(payload);
        }
        ByteBuffer out = ByteBuffer.allocate(RecordBatch.RECORDS_OFFSET + payload.length).order(ByteOrder.BIG_ENDIAN);
        out.putLong(baseOffset);
        out.putInt(out.capacity() - RecordBatch.LOG_OVERHEAD);
        out.putInt(partitionLeaderEpoch);
        out.put(RecordBatch.MAGIC);
        out.putInt(0); // CRC, filled below
        int attributes = compression.id | (timestampType == TimestampType.LOG_APPEND_TIME ? 0x08 : 0);
        out.putShort((short) attributes);
        out.putInt(records.size() - 1);
        out.putLong(baseTimestamp);
        out.putLong(maxTimestamp);
        out.putLong(producerId);
        out.putShort(producerEpoch);
        out.putInt(baseSequence);
        out.putInt(records.size());
        out.put(payload);
        out.flip();
        RecordBatch batch = RecordBatch.wrap(out);
        out.putInt(RecordBatch.CRC_OFFSET, (int) batch.computeChecksum());
        return RecordBatch.wrap(out);
    }

    public MemoryRecords buildRecords() {
        return MemoryRecords.of(build());
    }

    private byte[] encodeRecords(long baseTimestamp) {
        int size = 0;
        int[] bodySizes = new int[records.size()];
        for (int i = 0; i < records.size(); i++) {
            bodySizes[i] = bodySize(records.get(i), i, baseTimestamp);
            size += Varint.sizeOfVarint(bodySizes[i]) + bodySizes[i];
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        for (int i = 0; i < records.size(); i++) {
            Record r = records.get(i);
            Varint.writeVarint(bodySizes[i], out);
            out.put((byte) 0);
            Varint.writeVarlong(r.timestamp() - baseTimestamp, out);
            Varint.writeVarint(i, out);
            writeBytes(r.key(), out);
            writeBytes(r.value(), out);
            Varint.writeVarint(r.headers().size(), out);
            for (Header h : r.headers()) {
                writeBytes(h.key().getBytes(StandardCharsets.UTF_8), out);
                writeBytes(h.value(), out);
            }
        }
        return out.array();
    }

    private static int bodySize(Record r, int offsetDelta, long baseTimestamp) {
        int size = 1 + Varint.sizeOfVarlong(r.timestamp() - baseTimestamp) + Varint.sizeOfVarint(offsetDelta);
        size += sizeOfBytes(r.key()) + sizeOfBytes(r.value());
        size += Varint.sizeOfVarint(r.headers().size());
        for (Header h : r.headers()) {
            size += sizeOfBytes(h.key().getBytes(StandardCharsets.UTF_8)) + sizeOfBytes(h.value());
        }
        return size;
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

    private static byte[] gzip(byte[] data) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(data.length / 2 + 32);
        try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
            gz.write(data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
