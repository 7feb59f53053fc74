package io.tideline.store.segment;

import io.tideline.store.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A batch located in a segment file: its position, size and header fields, read without loading the
 * records. {@link #load()} reads the whole batch when CRC or records are needed.
 */
public final class FileBatch {
    private final FileRecords file;
    private final int position;
    private final int sizeInBytes;
    private final ByteBuffer header;

    FileBatch(FileRecords file, int position, int sizeInBytes, ByteBuffer header) {
        this.file = file;
        this.position = position;
        this.sizeInBytes = sizeInBytes;
        this.header = header;
    }

    public int position() {
        return position;
    }

    public int sizeInBytes() {
        return sizeInBytes;
    }

    public long baseOffset() {
        return header.getLong(RecordBatch.BASE_OFFSET_OFFSET);
    }

    public long lastOffset() {
        return baseOffset() + header.getInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET);
    }

    public long maxTimestamp() {
        return header.getLong(RecordBatch.MAX_TIMESTAMP_OFFSET);
    }

    public int partitionLeaderEpoch() {
        return header.getInt(RecordBatch.PARTITION_LEADER_EPOCH_OFFSET);
    }

    public long producerId() {
        return header.getLong(RecordBatch.PRODUCER_ID_OFFSET);
    }

    public short producerEpoch() {
        return header.getShort(RecordBatch.PRODUCER_EPOCH_OFFSET);
    }

    public int baseSequence() {
        return header.getInt(RecordBatch.BASE_SEQUENCE_OFFSET);
    }

    public int lastOffsetDelta() {
        return header.getInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET);
    }

    public short attributes() {
        return header.getShort(RecordBatch.ATTRIBUTES_OFFSET);
    }

    public byte magic() {
        return header.get(RecordBatch.MAGIC_OFFSET);
    }

    public RecordBatch load() throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(sizeInBytes);
        if (file.read(buffer, position) < sizeInBytes) {
            throw new IOException("batch at " + position + " of " + file.file() + " is shorter than " + sizeInBytes);
        }
        buffer.flip();
        return RecordBatch.wrap(buffer);
    }
}
