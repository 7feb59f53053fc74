package io.tideline.store.segment;

import io.tideline.store.record.MemoryRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Bytes of a segment file handed to a reader: whole batches (the first may start before the requested
 * offset, as in Kafka). Holds a reference on the file's channel until {@link #close()}, so the read
 * completes even if retention deletes the segment meanwhile. Not thread-safe.
 */
public final class RecordsSlice implements AutoCloseable {
    private static final RecordsSlice EMPTY = new RecordsSlice(null, 0, 0);

    private final FileRecords file;
    private final int start;
    private final int size;
    private final AtomicBoolean closed = new AtomicBoolean();

    RecordsSlice(FileRecords file, int start, int size) {
        this.file = file;
        this.start = start;
        this.size = size;
    }

    public static RecordsSlice empty() {
        return EMPTY;
    }

    public int sizeInBytes() {
        return size;
    }

    public int startPosition() {
        return start;
    }

    /**
     * Reads the slice into memory.
     *
     * @throws IOException also when the file ends before the slice does: the log wrote those bytes, so a
     *                     file shorter than that lost them under it (docs/behaviours.md B143)
     */
    public MemoryRecords toMemoryRecords() throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(size);
        if (size > 0) {
            int read = file.read(buffer, start);
            // A truncation by the log itself (a follower dropping a divergent tail) lowers the size first.
            if (read < size && file.sizeInBytes() >= start + size) {
                throw new IOException("Short read from " + file.file() + ": " + read + " of " + size
                        + " bytes at position " + start + "; the file ends before the data the log wrote");
            }
        }
        buffer.flip();
        return MemoryRecords.readableRecords(buffer);
    }

    /** Zero-copy transfer of the slice to a channel; returns the bytes sent. */
    public long writeTo(WritableByteChannel target) throws IOException {
        long sent = 0;
        while (sent < size) {
            long n = file.channel().transferTo(start + sent, size - sent, target);
            if (n <= 0) {
                break;
            }
            sent += n;
        }
        return sent;
    }

    /**
     * Zero-copy transfer of up to {@code count} bytes starting {@code position} bytes into the slice, for a
     * writer that sends the slice in pieces (a non-blocking socket); returns the bytes sent, possibly fewer.
     */
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        if (position < 0 || count < 0 || position + count > size) {
            throw new IllegalArgumentException("bytes " + position + "+" + count + " are outside a slice of " + size);
        }
        return count == 0 ? 0 : file.channel().transferTo(start + position, count, target);
    }

    @Override
    public void close() {
        if (file != null && closed.compareAndSet(false, true)) {
            file.release();
        }
    }
}
