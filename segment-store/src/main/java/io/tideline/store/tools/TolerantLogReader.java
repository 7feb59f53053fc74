package io.tideline.store.tools;

import io.tideline.store.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Walks the batches of a .log through a read-only channel. {@link #next()} returns the batch at the
 * current position (whole, or only its fixed header) without moving; {@link #advance()} moves past
 * it. It stops at the end of the file, at bytes that cannot be a batch ({@link #problem()}), or
 * before a batch that would end past the byte limit ({@link #stoppedAtLimit()}).
 */
final class TolerantLogReader implements AutoCloseable {
    /** Smallest value of a v2 batch's length field: the header after baseOffset and length. */
    private static final int MIN_BATCH_LENGTH = RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD;

    private final FileChannel channel;
    private final long fileSize;
    private final long limit;
    private final boolean wholeBatches;
    private int position;
    private int currentSize;
    private String problem;
    private boolean stoppedAtLimit;

    TolerantLogReader(Path file, long limit, boolean wholeBatches) throws IOException {
        this.channel = FileChannel.open(file, StandardOpenOption.READ);
        this.fileSize = channel.size();
        this.limit = limit;
        this.wholeBatches = wholeBatches;
        if (fileSize > Integer.MAX_VALUE) {
            channel.close();
            throw new IOException("it is larger than 2 GiB (" + fileSize + " bytes), so not a segment file");
        }
    }

    ByteBuffer next() throws IOException {
        long remaining = fileSize - position;
        if (remaining == 0) {
            return null;
        }
        if (remaining < RecordBatch.HEADER_SIZE) {
            problem = remaining + " bytes at the end of the file are fewer than a batch header ("
                    + RecordBatch.HEADER_SIZE + " bytes)";
            return null;
        }
        ByteBuffer header = readAt(position, RecordBatch.HEADER_SIZE);
        int length = header.getInt(RecordBatch.LENGTH_OFFSET);
        if (length < MIN_BATCH_LENGTH) {
            problem = "the length field says " + length + " bytes, below the v2 minimum of " + MIN_BATCH_LENGTH;
            return null;
        }
        long size = (long) length + RecordBatch.LOG_OVERHEAD;
        if (size > remaining) {
            problem = "the batch of " + size + " bytes runs past the end of the file (" + remaining
                    + " bytes from here)";
            return null;
        }
        if (position + size > limit) {
            stoppedAtLimit = true;
            return null;
        }
        currentSize = (int) size;
        return wholeBatches ? readAt(position, currentSize) : header;
    }

    void advance() {
        position += currentSize;
        currentSize = 0;
    }

    private ByteBuffer readAt(long at, int size) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(size);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, at + buffer.position()) < 0) {
                throw new IOException("the file ended while reading " + size + " bytes at position " + at);
            }
        }
        return buffer.flip();
    }

    int position() {
        return position;
    }

    long fileSize() {
        return fileSize;
    }

    String problem() {
        return problem;
    }

    boolean stoppedAtLimit() {
        return stoppedAtLimit;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
