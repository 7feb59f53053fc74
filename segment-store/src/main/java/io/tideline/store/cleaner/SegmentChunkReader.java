package io.tideline.store.cleaner;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.segment.FileRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a segment's batches a buffer at a time for the cleaner. The buffer starts at half of
 * log.cleaner.io.buffer.size (the other half is the write side, as in Kafka) and doubles only when one
 * batch does not fit, at most to the larger of that and max.message.bytes; a batch larger than that stops
 * the cleaning of the log (docs/behaviours.md B188). Not thread-safe: one per cleaner thread.
 */
final class SegmentChunkReader {
    private final int initialSize;
    private ByteBuffer buffer;

    SegmentChunkReader(int initialSize) {
        this.initialSize = Math.max(initialSize, RecordBatch.HEADER_SIZE);
        this.buffer = ByteBuffer.allocate(this.initialSize);
    }

    /** Receives the whole batches of one chunk; they share the reader's buffer and are valid during the call. */
    @FunctionalInterface
    interface ChunkVisitor {
        void accept(List<RecordBatch> batches) throws IOException;
    }

    /** Visits every batch of {@code file} from {@code start}, a chunk at a time; returns the bytes read. */
    long read(FileRecords file, int start, int maxBatchBytes, Throttler throttler, Runnable checkDone,
              ChunkVisitor visitor) throws IOException {
        int end = file.sizeInBytes();
        int position = start;
        long total = 0;
        try {
            while (position < end) {
                checkDone.run();
                buffer.clear();
                buffer.limit(Math.min(buffer.capacity(), end - position));
                int read = file.read(buffer, position);
                buffer.flip();
                List<RecordBatch> batches = new ArrayList<>();
                int consumed = 0;
                while (read - consumed >= RecordBatch.LOG_OVERHEAD) {
                    int size = buffer.getInt(consumed + RecordBatch.LENGTH_OFFSET) + RecordBatch.LOG_OVERHEAD;
                    if (size < RecordBatch.HEADER_SIZE) {
                        throw new TidelineException(Errors.CORRUPT_MESSAGE, "Batch at byte " + (position + consumed)
                                + " of " + file.file() + " declares " + size + " bytes");
                    }
                    if (size > read - consumed) {
                        break;
                    }
                    batches.add(RecordBatch.wrap(buffer.duplicate().position(consumed).limit(consumed + size)));
                    consumed += size;
                }
                if (consumed == 0) {
                    if (read < buffer.capacity() && position + read >= end) {
                        break; // a partial batch at the end of the file: nothing more to read
                    }
                    grow(file, position, maxBatchBytes);
                    continue;
                }
                throttler.maybeThrottle(consumed);
                visitor.accept(batches);
                position += consumed;
                total += consumed;
            }
        } finally {
            restore();
        }
        return total;
    }

    private void grow(FileRecords file, int position, int maxBatchBytes) {
        int bound = Math.max(initialSize, maxBatchBytes);
        if (buffer.capacity() >= bound) {
            throw new IllegalStateException("The batch at byte " + position + " of " + file.file()
                    + " is larger than the cleaner's read buffer bound of " + bound + " bytes (max.message.bytes)");
        }
        buffer = ByteBuffer.allocate((int) Math.min((long) buffer.capacity() * 2, bound));
    }

    /** A buffer grown for one large batch goes back to its initial size after the segment. */
    private void restore() {
        if (buffer.capacity() > initialSize) {
            buffer = ByteBuffer.allocate(initialSize);
        }
    }
}
