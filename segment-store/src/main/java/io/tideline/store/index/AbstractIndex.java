package io.tideline.store.index;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.common.io.FileUtils;
import io.tideline.common.io.MappedBuffers;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A sparse, memory-mapped index of fixed-size entries sorted by offset. The file of the active
 * segment is preallocated to {@code maxIndexSize} (so appends never grow the file) and trimmed to its
 * entries when the segment is closed, which is what Kafka's tools expect to find.
 *
 * <p>Disk faults (docs/behaviours.md B142): no store into the mapping may land in a hole. The preallocated length
 * is sparse, as Kafka's is, but the blocks ahead of the entries are written with zeros through the file, one
 * {@link #ALLOCATION_CHUNK_BYTES} chunk at a time (the first when the index is opened for writing, the next when
 * an entry reaches it), so the file system allocates them where a full disk is an IOException. A hole would be
 * allocated by the first store into the mapping, and a full disk or an I/O error there is a SIGBUS. HotSpot
 * does not raise that where it happens: it skips the faulting instruction (a load reads garbage) and raises
 * an {@link InternalError} at the thread's next transition into the VM, which may be after the index call
 * returned. So the fault is prevented rather than caught; an InternalError that does
 * surface inside these methods, or inside the log's append and read, becomes KAFKA_STORAGE_ERROR, which takes
 * the log dir offline like any failed write. Faults that writing the blocks cannot prevent (a file truncated
 * under the mapping by another process, a device error on a page-in) remain a known gap (docs/storage.md).
 *
 * <p>Thread-safety: every access to the mapping happens under one lock, so that a reader's lookup can
 * never touch a mapping that {@link #close()} has already unmapped (which would crash the JVM, not
 * just throw). Mappings are unmapped explicitly because a mapping left to the garbage collector keeps
 * the disk blocks of a deleted index file allocated.
 */
public abstract class AbstractIndex implements AutoCloseable {
    /**
     * Bytes written ahead of the entries at a time (B142). Writing the whole preallocation instead cost a new
     * partition about 6 MiB of zeros at the default segment.bytes (its two indexes sized for a 1 GiB segment),
     * gigabytes for a topic of a thousand partitions on one broker; a chunk is 2,048 offset-index entries, about
     * 8 MiB of log at the default index.interval.bytes.
     */
    static final int ALLOCATION_CHUNK_BYTES = 16 * 1024;

    private final ReentrantLock lock = new ReentrantLock();
    private final long baseOffset;
    private final int maxIndexSize;
    private volatile Path file;
    private MappedByteBuffer mmap;
    private int maxEntries;
    private int entries;
    private boolean closed;
    private boolean invalidTail;
    /** Bytes from the start of the file whose blocks are known to be allocated (written). Guarded by lock. */
    private long allocatedBytes;

    protected AbstractIndex(Path file, long baseOffset, int maxIndexSize, boolean writable) throws IOException {
        this.file = file;
        this.baseOffset = baseOffset;
        this.maxIndexSize = maxIndexSize;
        boolean newlyCreated = !Files.exists(file);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            long originalLength = raf.length();
            if (writable && raf.length() < roundDown(maxIndexSize)) {
                // New, or a trimmed index reopened as the active segment's: preallocate so appends fit. A new
                // index of a closed segment (a missing one, about to be rebuilt) starts empty: its rebuild sizes
                // it to what the segment's bytes need, rather than segment.index.bytes written here (B142).
                raf.setLength(roundDown(Math.max(maxIndexSize, raf.length())));
            }
            long length = raf.length();
            int candidates = newlyCreated ? 0 : (int) (Math.min(originalLength, Integer.MAX_VALUE) / entrySize());
            mmap = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, roundDown(length));
            maxEntries = mmap.limit() / entrySize();
            entries = Math.min(candidates, maxEntries);
            // Entries past the valid prefix were never written (the zeros of a preallocated file after
            // an unclean stop) or are damaged; callers decide, via invalidTail(), whether to rebuild.
            int valid;
            try {
                valid = validPrefix(entries);
            } catch (InternalError e) {
                MappedBuffers.unmap(mmap);
                throw new IOException("reading the mapped index " + file + " faulted: " + e.getMessage(), e);
            }
            // A length that is not a whole number of entries is never written by us: damage too.
            invalidTail = valid < candidates || originalLength % entrySize() != 0;
            entries = valid;
            mmap.position(entries * entrySize());
            // The valid entries were written; past them, a reopened file may have holes (Kafka preallocates
            // sparse), so its space is written again from there.
            allocatedBytes = (long) entries * entrySize();
            if (writable) {
                try {
                    allocateAhead(raf, allocatedBytes + 1);
                } catch (IOException e) {
                    MappedBuffers.unmap(mmap);
                    throw e;
                }
            }
        }
    }

    /**
     * Makes sure the blocks of the first {@code needed} bytes of the mapping are allocated, writing zeros through
     * {@code raf} for the next chunk (at least up to {@code needed}, at most to the mapping's end) when they are
     * not (B142). Under the lock, or from the constructor.
     */
    private void allocateAhead(RandomAccessFile raf, long needed) throws IOException {
        long end = mmap.limit();
        if (needed <= allocatedBytes || allocatedBytes >= end) {
            return;
        }
        long target = Math.min(end, Math.max(needed, allocatedBytes + ALLOCATION_CHUNK_BYTES));
        FileChannel channel = raf.getChannel();
        ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(ALLOCATION_CHUNK_BYTES, target - allocatedBytes));
        long position = allocatedBytes;
        while (position < target) {
            zeros.clear().limit((int) Math.min(zeros.capacity(), target - position));
            while (zeros.hasRemaining()) {
                position += channel.write(zeros, position);
            }
        }
        allocatedBytes = target;
    }

    /**
     * Called by an append before it stores the entry that ends at byte {@code entryEnd}, under the lock: writes
     * the next chunk of the file when the entry would reach past the allocated blocks. A full disk or an I/O
     * error here is KAFKA_STORAGE_ERROR, raised before the store, so the entry is not written.
     */
    protected final void allocateFor(long entryEnd) {
        if (entryEnd <= allocatedBytes) {
            return;
        }
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            allocateAhead(raf, entryEnd);
        } catch (IOException e) {
            throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Allocating space for the index " + file
                    + " failed: " + e.getMessage(), e);
        }
    }

    /** A fault on the mapping (SIGBUS as InternalError) as the storage error every caller handles (B142). */
    private TidelineException mappedFault(InternalError e) {
        return new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Accessing the mapped index " + file
                + " faulted (disk full, file truncated or I/O error): " + e.getMessage(), e);
    }

    /**
     * True when the file held entries past its valid, increasing prefix. A cleanly closed index is
     * trimmed to its entries, so for it this means damage and a rebuild from the log; after an unclean
     * stop it is the expected zero tail of a preallocated file (and that segment is recovered anyway).
     */
    public boolean invalidTail() {
        return invalidTail;
    }

    protected abstract int entrySize();

    /** Number of leading entries (of {@code candidates}) that are in strictly valid order. */
    protected abstract int validPrefix(int candidates);

    public long baseOffset() {
        return baseOffset;
    }

    public Path file() {
        return file;
    }

    public int maxIndexSize() {
        return maxIndexSize;
    }

    public int entries() {
        lock.lock();
        try {
            return entries;
        } finally {
            lock.unlock();
        }
    }

    public int maxEntries() {
        lock.lock();
        try {
            return maxEntries;
        } finally {
            lock.unlock();
        }
    }

    public boolean isFull() {
        lock.lock();
        try {
            return entries >= maxEntries;
        } finally {
            lock.unlock();
        }
    }

    /** Bytes the entries occupy (not the preallocated length). */
    public int sizeInBytes() {
        return entries() * entrySize();
    }

    protected final void withLock(Runnable action) {
        lock.lock();
        try {
            ensureOpen();
            action.run();
        } catch (InternalError e) {
            throw mappedFault(e);
        } finally {
            lock.unlock();
        }
    }

    protected final <T> T withLock(java.util.function.Supplier<T> action) {
        lock.lock();
        try {
            ensureOpen();
            return action.get();
        } catch (InternalError e) {
            throw mappedFault(e);
        } finally {
            lock.unlock();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("index " + file + " is closed");
        }
    }

    /** The mapping; only call under {@link #withLock}. */
    protected final MappedByteBuffer mmap() {
        return mmap;
    }

    protected final int entriesUnlocked() {
        return entries;
    }

    protected final void setEntriesUnlocked(int n) {
        entries = n;
        mmap.position(n * entrySize());
    }

    /** Largest slot whose key is <= target, -1 if none; {@code keyAt} reads slot n's key. */
    protected final int largestLowerBound(long target, java.util.function.IntToLongFunction keyAt) {
        int n = entries;
        if (n == 0 || keyAt.applyAsLong(0) > target) {
            return -1;
        }
        int lo = 0;
        int hi = n - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (keyAt.applyAsLong(mid) <= target) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** Shrinks the file to its entries; done when the segment stops being active and on close. */
    public void trimToValidSize() throws IOException {
        resize(entries() * entrySize());
    }

    /** Grows or shrinks the file (and mapping); entries beyond the new size are dropped. */
    public void resize(int newSize) throws IOException {
        lock.lock();
        try {
            ensureOpen();
            int rounded = roundDown(newSize);
            if (rounded == mmap.limit()) {
                return;
            }
            int position = mmap.position();
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                // No force (msync) first: unmapping a shared mapping leaves its dirty pages in the page
                // cache, where the segment's next flush finds them. Forcing here was a synchronous write
                // of the index (about a journal commit each) on every roll, inside the append.
                MappedBuffers.unmap(mmap);
                try {
                    raf.setLength(rounded);
                    mmap = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, rounded);
                } catch (IOException | RuntimeException e) {
                    // The old mapping is gone and no new one exists: nothing may touch either again.
                    closed = true;
                    throw e;
                }
            }
            maxEntries = rounded / entrySize();
            entries = Math.min(entries, maxEntries);
            mmap.position(Math.min(position, entries * entrySize()));
            // Growing leaves a sparse tail, written a chunk at a time as entries reach it (B142).
            allocatedBytes = Math.min(allocatedBytes, rounded);
        } finally {
            lock.unlock();
        }
    }

    public void flush() {
        lock.lock();
        try {
            if (!closed) {
                mmap.force();
            }
        } catch (InternalError e) {
            throw mappedFault(e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Renames the file; the mapping stays valid (it refers to the inode, not the name). The caller
     * fsyncs the directory (see LogSegment.changeFileSuffixes).
     */
    public void renameTo(Path target) throws IOException {
        lock.lock();
        try {
            if (Files.exists(file)) {
                FileUtils.atomicMoveWithoutDirectoryFsync(file, target);
            }
            file = target;
        } finally {
            lock.unlock();
        }
    }

    /** Removes every entry (for a rebuild). */
    public void reset() {
        withLock(() -> setEntriesUnlocked(0));
    }

    /** Unmaps the file; trims it first if it is still writable, so a clean stop leaves exact files. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (Files.exists(file)) {
                try {
                    int size = entries * entrySize();
                    mmap.force();
                    MappedBuffers.unmap(mmap);
                    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                        raf.setLength(size);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("closing index " + file, e);
                } catch (InternalError e) {
                    MappedBuffers.unmap(mmap);
                    closed = true;
                    throw mappedFault(e);
                }
            } else {
                MappedBuffers.unmap(mmap);
            }
            closed = true;
        } finally {
            lock.unlock();
        }
    }

    /** Unmaps without trimming or flushing, as a crash would leave the file. */
    public void abandon() {
        lock.lock();
        try {
            if (!closed) {
                MappedBuffers.unmap(mmap);
                closed = true;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Unmaps without trimming, then deletes the file. */
    public void closeAndDelete() throws IOException {
        lock.lock();
        try {
            if (!closed) {
                MappedBuffers.unmap(mmap);
                closed = true;
            }
            Files.deleteIfExists(file);
        } finally {
            lock.unlock();
        }
    }

    private int roundDown(long size) {
        long limited = Math.min(size, Integer.MAX_VALUE);
        return (int) (limited - limited % entrySize());
    }

    protected final int relativeOffset(long offset) {
        long relative = offset - baseOffset;
        if (relative < 0 || relative > Integer.MAX_VALUE) {
            throw new IndexOffsetOverflowException("offset " + offset + " does not fit in an index with base " + baseOffset);
        }
        return (int) relative;
    }

    public static final class IndexOffsetOverflowException extends RuntimeException {
        public IndexOffsetOverflowException(String message) {
            super(message);
        }
    }
}
