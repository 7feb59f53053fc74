package io.tideline.store.index;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The {@code .timeindex} file: maps timestamps to offsets, for lookups by time and for the time roll.
 *
 * <pre>
 *  entry (12 bytes, big-endian):  int64 timestamp | int32 relativeOffset
 * </pre>
 *
 * Only increasing timestamps are recorded: each entry is the largest timestamp seen so far in the
 * segment and the last offset of the batch that carried it. One slot is always kept free so that the
 * final entry written when the segment is closed always fits (the index counts as full one early).
 */
public final class TimeIndex extends AbstractIndex {
    public static final int ENTRY_SIZE = 12;

    public TimeIndex(Path file, long baseOffset, int maxIndexSize, boolean writable) throws IOException {
        super(file, baseOffset, maxIndexSize, writable);
    }

    @Override
    protected int entrySize() {
        return ENTRY_SIZE;
    }

    @Override
    protected int validPrefix(int candidates) {
        long previousTimestamp = Long.MIN_VALUE;
        int previousOffset = -1;
        for (int i = 0; i < candidates; i++) {
            long timestamp = mmap().getLong(i * ENTRY_SIZE);
            int relative = mmap().getInt(i * ENTRY_SIZE + 8);
            // Zero-filled slots (timestamp 0, offset 0) after real entries fail one of these.
            if (timestamp <= previousTimestamp || relative < previousOffset || relative < 0
                    || (timestamp == 0 && relative == 0 && i > 0)) {
                return i;
            }
            previousTimestamp = timestamp;
            previousOffset = relative;
        }
        return candidates;
    }

    @Override
    public boolean isFull() {
        return entries() >= maxEntries() - 1;
    }

    /**
     * Appends (timestamp, offset) if timestamp is larger than the last entry's. With
     * {@code skipFullCheck} the reserved last slot may be used (on roll).
     */
    public void maybeAppend(long timestamp, long offset, boolean skipFullCheck) {
        withLock(() -> {
            int n = entriesUnlocked();
            int capacity = mmap().limit() / ENTRY_SIZE;
            if (n >= capacity || (!skipFullCheck && n >= capacity - 1)) {
                if (skipFullCheck && n >= capacity) {
                    return; // nowhere to put it; lookups fall back to scanning the log
                }
                if (!skipFullCheck) {
                    throw new IllegalStateException("time index " + file() + " is full");
                }
            }
            int relative = relativeOffset(offset);
            if (n > 0) {
                long lastTimestamp = mmap().getLong((n - 1) * ENTRY_SIZE);
                int lastRelative = mmap().getInt((n - 1) * ENTRY_SIZE + 8);
                if (relative < lastRelative) {
                    throw new IllegalArgumentException("offset " + offset + " is below the last entry of " + file());
                }
                if (timestamp <= lastTimestamp) {
                    return;
                }
            }
            allocateFor((long) (n + 1) * ENTRY_SIZE);
            mmap().putLong(n * ENTRY_SIZE, timestamp);
            mmap().putInt(n * ENTRY_SIZE + 8, relative);
            setEntriesUnlocked(n + 1);
        });
    }

    /** The entry with the largest timestamp <= target, or (-1, baseOffset) when there is none. */
    public TimestampOffset lookup(long targetTimestamp) {
        return withLock(() -> {
            int slot = largestLowerBound(targetTimestamp, i -> mmap().getLong(i * ENTRY_SIZE));
            return slot < 0 ? new TimestampOffset(-1L, baseOffset()) : entryUnlocked(slot);
        });
    }

    public TimestampOffset entry(int n) {
        return withLock(() -> {
            if (n < 0 || n >= entriesUnlocked()) {
                throw new IndexOutOfBoundsException("entry " + n + " of " + entriesUnlocked());
            }
            return entryUnlocked(n);
        });
    }

    /** The last entry, or (-1, baseOffset) for an empty index. */
    public TimestampOffset lastEntry() {
        return withLock(() -> {
            int n = entriesUnlocked();
            return n == 0 ? new TimestampOffset(-1L, baseOffset()) : entryUnlocked(n - 1);
        });
    }

    private TimestampOffset entryUnlocked(int n) {
        return new TimestampOffset(mmap().getLong(n * ENTRY_SIZE), baseOffset() + mmap().getInt(n * ENTRY_SIZE + 8));
    }

    /** Drops every entry whose offset is >= {@code offset}. */
    public void truncateTo(long offset) {
        withLock(() -> {
            int keep = 0;
            while (keep < entriesUnlocked() && baseOffset() + mmap().getInt(keep * ENTRY_SIZE + 8) < offset) {
                keep++;
            }
            setEntriesUnlocked(keep);
        });
    }

    public record TimestampOffset(long timestamp, long offset) {
    }
}
