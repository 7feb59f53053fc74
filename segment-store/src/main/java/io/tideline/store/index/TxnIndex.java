package io.tideline.store.index;

import io.tideline.common.io.FileUtils;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code .txnindex} file: ranges of aborted transactions, read by {@code read_committed}
 * consumers to skip them. It belongs to the segment's file set (renamed and deleted with it) but is
 * created only when the first aborted range is recorded, as in Kafka.
 *
 * <pre>
 *  entry (34 bytes, big-endian):  int16 version (0) | int64 producerId | int64 firstOffset |
 *                                 int64 lastOffset | int64 lastStableOffset
 * </pre>
 *
 * Thread-safety: synchronized; appends come from the single writer, reads from anywhere.
 */
public final class TxnIndex implements AutoCloseable {
    public static final int ENTRY_SIZE = 34;
    private static final short VERSION = 0;

    private Path file;
    private FileChannel channel;

    public TxnIndex(Path file) {
        this.file = file;
    }

    public synchronized Path file() {
        return file;
    }

    public synchronized boolean exists() {
        return Files.exists(file);
    }

    public synchronized void append(AbortedTxn txn) throws IOException {
        List<AbortedTxn> existing = allAbortedTxns();
        if (!existing.isEmpty() && txn.lastOffset() < existing.get(existing.size() - 1).lastOffset()) {
            throw new IllegalArgumentException("aborted transaction ranges must be appended in order");
        }
        ByteBuffer buffer = ByteBuffer.allocate(ENTRY_SIZE);
        buffer.putShort(VERSION).putLong(txn.producerId()).putLong(txn.firstOffset())
                .putLong(txn.lastOffset()).putLong(txn.lastStableOffset()).flip();
        FileChannel ch = channel();
        ch.position(ch.size());
        while (buffer.hasRemaining()) {
            ch.write(buffer);
        }
    }

    public synchronized List<AbortedTxn> allAbortedTxns() throws IOException {
        List<AbortedTxn> txns = new ArrayList<>();
        if (!Files.exists(file)) {
            return txns;
        }
        FileChannel ch = channel();
        long size = ch.size() - ch.size() % ENTRY_SIZE;
        ByteBuffer buffer = ByteBuffer.allocate(ENTRY_SIZE);
        for (long pos = 0; pos < size; pos += ENTRY_SIZE) {
            buffer.clear();
            while (buffer.hasRemaining() && ch.read(buffer, pos + buffer.position()) >= 0) {
                // keep reading until the entry is complete
            }
            buffer.flip();
            short version = buffer.getShort();
            if (version != VERSION) {
                throw new IOException("Unexpected version " + version + " in " + file + " at " + pos);
            }
            txns.add(new AbortedTxn(buffer.getLong(), buffer.getLong(), buffer.getLong(), buffer.getLong()));
        }
        return txns;
    }

    /** Keeps only ranges that start below {@code offset}. */
    public synchronized void truncateTo(long offset) throws IOException {
        if (!Files.exists(file)) {
            return;
        }
        List<AbortedTxn> txns = allAbortedTxns();
        int keep = 0;
        while (keep < txns.size() && txns.get(keep).firstOffset() < offset) {
            keep++;
        }
        channel().truncate((long) keep * ENTRY_SIZE);
    }

    /** Renames the file; the caller fsyncs the directory (see LogSegment.changeFileSuffixes). */
    public synchronized void renameTo(Path target) throws IOException {
        if (Files.exists(file)) {
            FileUtils.atomicMoveWithoutDirectoryFsync(file, target);
        }
        file = target;
    }

    public synchronized void flush() throws IOException {
        if (channel != null) {
            channel.force(true);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        if (channel != null) {
            channel.close();
            channel = null;
        }
    }

    public synchronized void closeAndDelete() throws IOException {
        close();
        Files.deleteIfExists(file);
    }

    private FileChannel channel() throws IOException {
        if (channel == null) {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        }
        return channel;
    }

    public record AbortedTxn(long producerId, long firstOffset, long lastOffset, long lastStableOffset) {
    }
}
