package io.tideline.store.record;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Zero or more whole v2 batches back to back in a buffer: what a producer sends, what a fetch
 * returns, what an append takes. Batch boundaries are found from each batch's length field.
 * Not thread-safe.
 */
public final class MemoryRecords {
    public static final MemoryRecords EMPTY = new MemoryRecords(ByteBuffer.allocate(0));

    private final ByteBuffer buffer;

    private MemoryRecords(ByteBuffer buffer) {
        this.buffer = buffer.slice().order(ByteOrder.BIG_ENDIAN);
    }

    public static MemoryRecords readableRecords(ByteBuffer buffer) {
        return new MemoryRecords(buffer);
    }

    public static MemoryRecords of(RecordBatch... batches) {
        int size = 0;
        for (RecordBatch b : batches) {
            size += b.sizeInBytes();
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        for (RecordBatch b : batches) {
            out.put(b.buffer());
        }
        out.flip();
        return new MemoryRecords(out);
    }

    public ByteBuffer buffer() {
        return buffer.duplicate();
    }

    public int sizeInBytes() {
        return buffer.limit();
    }

    /** The whole batches in this buffer; a partial batch at the end is left out (see {@link #validBytes()}). */
    public List<RecordBatch> batches() {
        if (buffer.limit() == 0) {
            return Collections.emptyList();
        }
        List<RecordBatch> batches = new ArrayList<>();
        int position = 0;
        while (true) {
            int size = batchSizeAt(buffer, position);
            if (size < 0) {
                break;
            }
            ByteBuffer slice = buffer.duplicate();
            slice.position(position).limit(position + size);
            batches.add(RecordBatch.wrap(slice));
            position += size;
        }
        return batches;
    }

    /** Bytes covered by whole batches from the start; less than {@link #sizeInBytes()} when the tail is partial. */
    public int validBytes() {
        int position = 0;
        int size;
        while ((size = batchSizeAt(buffer, position)) >= 0) {
            position += size;
        }
        return position;
    }

    /**
     * Size of the batch starting at {@code position}, or -1 when fewer bytes than a whole batch remain.
     * Throws CORRUPT_MESSAGE for a length field that cannot belong to a v2 batch.
     */
    static int batchSizeAt(ByteBuffer buffer, int position) {
        int remaining = buffer.limit() - position;
        if (remaining < RecordBatch.LOG_OVERHEAD) {
            return -1;
        }
        int length = buffer.getInt(position + RecordBatch.LENGTH_OFFSET);
        if (length < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD) {
            throw new TidelineException(Errors.CORRUPT_MESSAGE,
                    "Batch at byte " + position + " declares length " + length + ", below the v2 minimum");
        }
        long size = (long) length + RecordBatch.LOG_OVERHEAD;
        return size > remaining ? -1 : (int) size;
    }

    /** All records of all batches, decoded; for tests and tools. */
    public List<Record> records() {
        List<Record> records = new ArrayList<>();
        for (RecordBatch batch : batches()) {
            records.addAll(batch.records());
        }
        return records;
    }

    @Override
    public String toString() {
        return "MemoryRecords(" + sizeInBytes() + " bytes)";
    }
}
