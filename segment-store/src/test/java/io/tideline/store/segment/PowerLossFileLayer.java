package io.tideline.store.segment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * A {@link FileLayer} that keeps what a power loss would: it records each segment file's contents at
 * every fsync (a {@code .log} channel's {@code force}, an index's reported msync), and {@link #powerLoss}
 * puts every segment file back to those contents. A {@code .log}, {@code .index} or {@code .timeindex} file
 * never fsynced through the layer is deleted: neither its bytes nor its directory entry are known to be on
 * disk (the worst a power loss can do to it).
 *
 * <p>What it does not model, by choice (docs/storage.md, Durability): checkpoint files, producer-state
 * snapshots, the leader-epoch checkpoint and transaction indexes keep whatever was written, since the store
 * writes each of them whole with an fsync before it relies on it; a file renamed after its last fsync
 * (a segment deleted by retention) keeps its new name and contents. A write racing an fsync may be counted
 * as synced; the tests that use this layer append from one thread. {@link #failFsyncs} makes fsyncs fail
 * as a dying disk's do.
 *
 * <p>Thread-safe.
 */
public final class PowerLossFileLayer implements FileLayer {
    private final Map<Path, byte[]> synced = new ConcurrentHashMap<>();
    private final AtomicLong segmentFsyncs = new AtomicLong();
    private volatile boolean failFsyncs;

    @Override
    public FileChannel openSegmentFile(Path file) throws IOException {
        Path key = file.toAbsolutePath().normalize();
        if (Files.exists(key) && !synced.containsKey(key)) {
            // On disk before this layer first saw it (created by an earlier, completed run).
            synced.put(key, Files.readAllBytes(key));
        }
        return new SyncRecordingChannel(key, FileLayer.REAL.openSegmentFile(file));
    }

    @Override
    public void indexFlushed(Path file) {
        record(file.toAbsolutePath().normalize());
    }

    private void record(Path key) {
        try {
            synced.put(key, Files.readAllBytes(key));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** From now on every {@code .log} fsync fails with an IOException (EIO) and records nothing, or again succeeds. */
    public void failFsyncs(boolean fail) {
        this.failFsyncs = fail;
    }

    /** {@code .log} fsyncs that completed. */
    public long segmentFsyncs() {
        return segmentFsyncs.get();
    }

    /** Bytes of {@code file} as of its last fsync, or null when it was never fsynced. */
    public byte[] syncedContents(Path file) {
        return synced.get(file.toAbsolutePath().normalize());
    }

    /**
     * The machine loses power: every segment file under {@code root} goes back to its contents at its last
     * fsync, or is deleted if it had none. Call it after every log on those files was abandoned (a crash).
     * Returns the number of bytes dropped.
     */
    public long powerLoss(Path root) throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(root)) {
            walk.filter(Files::isRegularFile).filter(PowerLossFileLayer::isSegmentFile).forEach(files::add);
        }
        long dropped = 0;
        for (Path file : files) {
            Path key = file.toAbsolutePath().normalize();
            byte[] kept = synced.get(key);
            long size = Files.size(file);
            if (kept == null) {
                Files.delete(file);
                dropped += size;
                continue;
            }
            byte[] now = Files.readAllBytes(file);
            dropped += Math.max(0, size - kept.length) + differingBytes(now, kept);
            Files.write(file, kept, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        }
        return dropped;
    }

    private static long differingBytes(byte[] a, byte[] b) {
        long differing = 0;
        for (int i = 0; i < Math.min(a.length, b.length); i++) {
            if (a[i] != b[i]) {
                differing++;
            }
        }
        return differing;
    }

    private static boolean isSegmentFile(Path file) {
        String name = file.getFileName().toString();
        return name.endsWith(LogFileNames.LOG_SUFFIX) || name.endsWith(LogFileNames.INDEX_SUFFIX)
                || name.endsWith(LogFileNames.TIME_INDEX_SUFFIX);
    }

    /** The real channel, with every completed {@code force} recorded as the file's durable contents. */
    private final class SyncRecordingChannel extends FileChannel {
        private final Path file;
        private final FileChannel delegate;

        SyncRecordingChannel(Path file, FileChannel delegate) {
            this.file = file;
            this.delegate = delegate;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            if (failFsyncs) {
                throw new IOException("Input/output error (simulated fsync failure of " + file + ")");
            }
            delegate.force(metaData);
            segmentFsyncs.incrementAndGet();
            long size = delegate.size();
            ByteBuffer contents = ByteBuffer.allocate((int) size);
            while (contents.hasRemaining() && delegate.read(contents, contents.position()) >= 0) {
                // reads by position: the channel's own position is not moved
            }
            synced.put(file, contents.array());
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return delegate.read(dst);
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
            return delegate.read(dsts, offset, length);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return delegate.write(src);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            return delegate.write(srcs, offset, length);
        }

        @Override
        public long position() throws IOException {
            return delegate.position();
        }

        @Override
        public FileChannel position(long newPosition) throws IOException {
            delegate.position(newPosition);
            return this;
        }

        @Override
        public long size() throws IOException {
            return delegate.size();
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            delegate.truncate(size);
            return this;
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
            return delegate.transferTo(position, count, target);
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
            return delegate.transferFrom(src, position, count);
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            return delegate.read(dst, position);
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            return delegate.write(src, position);
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
            return delegate.map(mode, position, size);
        }

        @Override
        public FileLock lock(long position, long size, boolean shared) throws IOException {
            return delegate.lock(position, size, shared);
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) throws IOException {
            return delegate.tryLock(position, size, shared);
        }

        @Override
        protected void implCloseChannel() throws IOException {
            delegate.close();
        }
    }
}
