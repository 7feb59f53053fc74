package io.tideline.store.segment;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.common.io.FileUtils;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@code .log} file of a segment: v2 batches appended back to back, nothing else (no header,
 * no footer), so Kafka's tools read it as is.
 *
 * <p>The channel is reference counted. The segment holds one reference; every {@link RecordsSlice}
 * handed to a reader holds another. Deleting a segment releases the segment's reference, so a reader
 * that already holds a slice finishes its read even after the file was renamed and unlinked; the
 * channel (and the disk blocks) go when the last slice is closed.
 *
 * <p>Thread-safety: one writer appends (the log's lock); any number of readers read below
 * {@link #sizeInBytes()}, which moves only after the bytes are written, so readers never see a
 * partial batch.
 */
public final class FileRecords implements AutoCloseable {
    private final FileChannel channel;
    private final AtomicInteger size;
    private final AtomicInteger refs = new AtomicInteger(1);
    private final AtomicBoolean ownerReleased = new AtomicBoolean();
    private volatile Path file;

    private FileRecords(Path file, FileChannel channel, int size) {
        this.file = file;
        this.channel = channel;
        this.size = new AtomicInteger(size);
    }

    public static FileRecords open(Path file) throws IOException {
        return open(file, FileLayer.REAL);
    }

    /** Opens the file through {@code files} (a test's fault-injecting layer, or the real one). */
    public static FileRecords open(Path file, FileLayer files) throws IOException {
        FileChannel channel = files.openSegmentFile(file);
        long length = channel.size();
        if (length > Integer.MAX_VALUE) {
            channel.close();
            throw new IOException("Segment file " + file + " is larger than 2 GiB (" + length + " bytes)");
        }
        return new FileRecords(file, channel, (int) length);
    }

    public Path file() {
        return file;
    }

    public int sizeInBytes() {
        return size.get();
    }

    /** Appends whole batches at the end; returns the bytes written. Single writer only. */
    public int append(MemoryRecords records) throws IOException {
        ByteBuffer buffer = records.buffer();
        int written = buffer.remaining();
        long position = size.get();
        while (buffer.hasRemaining()) {
            position += channel.write(buffer, position);
        }
        size.addAndGet(written);
        return written;
    }

    /**
     * Fsyncs the file. The asynchronous flush after a roll calls this without the log's lock, so the
     * segment may be deleted or closed meanwhile: the fsync holds a reference, so the channel cannot
     * close under it, and a file already released (nothing left to make durable for anyone) is
     * skipped. Returns false in that case.
     */
    public boolean flush() throws IOException {
        if (!retain()) {
            return false;
        }
        try {
            channel.force(true);
            return true;
        } finally {
            release();
        }
    }

    /** Cuts the file to {@code targetSize} bytes; returns the bytes removed. */
    public int truncateTo(int targetSize) throws IOException {
        int original = size.get();
        if (targetSize > original || targetSize < 0) {
            throw new IllegalArgumentException("cannot truncate " + file + " of " + original + " bytes to " + targetSize);
        }
        // The size first: a reader whose slice the truncation cuts short sees the log's own truncation in it,
        // not a file that lost data under the log (RecordsSlice.toMemoryRecords).
        size.set(targetSize);
        if (channel.size() > targetSize) {
            channel.truncate(targetSize);
        }
        return original - targetSize;
    }

    /**
     * A view of [position, position + length) that keeps the channel open until it is closed.
     * Fails with KAFKA_STORAGE_ERROR if the file was already released (deleted and closed).
     */
    public RecordsSlice slice(int position, int length) {
        int end = Math.min(size.get(), position + length);
        if (!retain()) {
            throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "segment file " + file + " is already closed");
        }
        return new RecordsSlice(this, position, Math.max(0, end - position));
    }

    boolean retain() {
        while (true) {
            int current = refs.get();
            if (current <= 0) {
                return false;
            }
            if (refs.compareAndSet(current, current + 1)) {
                return true;
            }
        }
    }

    void release() {
        if (refs.decrementAndGet() == 0) {
            try {
                channel.close();
            } catch (IOException e) {
                throw new UncheckedIOException("closing " + file, e);
            }
        }
    }

    /** Reads exactly {@code dst.remaining()} bytes at {@code position}, or fewer at the end of the file. */
    public int read(ByteBuffer dst, long position) throws IOException {
        int total = 0;
        while (dst.hasRemaining()) {
            int n = channel.read(dst, position + total);
            if (n < 0) {
                break;
            }
            total += n;
        }
        return total;
    }

    /**
     * Reads the header of the batch at {@code position} if it lies wholly below {@code end}; null at
     * the end of the data or before a partial batch. Throws CORRUPT_MESSAGE on an impossible length.
     */
    public FileBatch batchAt(int position, int end) throws IOException {
        if (end - position < RecordBatch.HEADER_SIZE) {
            return null;
        }
        ByteBuffer header = ByteBuffer.allocate(RecordBatch.HEADER_SIZE);
        if (read(header, position) < RecordBatch.HEADER_SIZE) {
            return null;
        }
        header.flip();
        int length = header.getInt(RecordBatch.LENGTH_OFFSET);
        if (length < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD) {
            throw new TidelineException(Errors.CORRUPT_MESSAGE, "Batch at byte " + position + " of " + file
                    + " declares length " + length + ", below the v2 minimum");
        }
        long batchSize = (long) length + RecordBatch.LOG_OVERHEAD;
        if (position + batchSize > end) {
            return null;
        }
        return new FileBatch(this, position, (int) batchSize, header);
    }

    /** The first batch at or after {@code startingPosition} whose last offset is >= {@code targetOffset}. */
    public FileBatch searchForOffset(long targetOffset, int startingPosition) throws IOException {
        int end = size.get();
        int position = startingPosition;
        FileBatch batch;
        while ((batch = batchAt(position, end)) != null) {
            if (batch.lastOffset() >= targetOffset) {
                return batch;
            }
            position += batch.sizeInBytes();
        }
        return null;
    }

    /** Renames the file; the caller fsyncs the directory (see {@link LogSegment#changeFileSuffixes}). */
    public void renameTo(Path target) throws IOException {
        FileUtils.atomicMoveWithoutDirectoryFsync(file, target);
        file = target;
    }

    /** Releases the segment's own reference; the channel closes once no slice holds it. Idempotent. */
    @Override
    public void close() {
        if (ownerReleased.compareAndSet(false, true)) {
            release();
        }
    }

    /** True while the channel is open (the segment's or some reader's reference is alive). */
    public boolean isOpen() {
        return channel.isOpen();
    }

    FileChannel channel() {
        return channel;
    }
}
