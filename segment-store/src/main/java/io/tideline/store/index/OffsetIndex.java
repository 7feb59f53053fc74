package io.tideline.store.index;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The {@code .index} file: maps offsets to byte positions in the segment's {@code .log}.
 *
 * <pre>
 *  entry (8 bytes, big-endian):  int32 relativeOffset (offset - baseOffset) | int32 position
 * </pre>
 *
 * An entry is added at most every {@code index.interval.bytes} of appended data; its offset is the
 * last offset of the batch that starts at its position (what Kafka writes, and what
 * {@code kafka-dump-log --verify-index-only} checks). Relative offsets are strictly increasing.
 */
public final class OffsetIndex extends AbstractIndex {
    public static final int ENTRY_SIZE = 8;

    public OffsetIndex(Path file, long baseOffset, int maxIndexSize, boolean writable) throws IOException {
        super(file, baseOffset, maxIndexSize, writable);
    }

    @Override
    protected int entrySize() {
        return ENTRY_SIZE;
    }

    @Override
    protected int validPrefix(int candidates) {
        int previous = -1;
        int previousPosition = -1;
        for (int i = 0; i < candidates; i++) {
            int relative = mmap().getInt(i * ENTRY_SIZE);
            int position = mmap().getInt(i * ENTRY_SIZE + 4);
            // A zero slot is preallocated space, never an entry: entries are only written after
            // index.interval.bytes of data, so none points at position 0 (the lookup fallback anyway).
            if (relative <= previous || position < previousPosition || relative < 0 || position == 0) {
                return i;
            }
            previous = relative;
            previousPosition = position;
        }
        return candidates;
    }

    public void append(long offset, int position) {
        withLock(() -> {
            int n = entriesUnlocked();
            if (n >= maxEntriesUnlocked()) {
                throw new IllegalStateException("offset index " + file() + " is full (" + n + " entries)");
            }
            int relative = relativeOffset(offset);
            if (n > 0 && relative <= mmap().getInt((n - 1) * ENTRY_SIZE)) {
                throw new IllegalArgumentException("offset " + offset + " is not above the last entry of " + file());
            }
            allocateFor((long) (n + 1) * ENTRY_SIZE);
            mmap().putInt(n * ENTRY_SIZE, relative);
            mmap().putInt(n * ENTRY_SIZE + 4, position);
            setEntriesUnlocked(n + 1);
        });
    }

    private int maxEntriesUnlocked() {
        return mmap().limit() / ENTRY_SIZE;
    }

    /** The entry with the largest offset <= target, or (baseOffset, 0) when there is none. */
    public OffsetPosition lookup(long targetOffset) {
        return withLock(() -> {
            int slot = largestLowerBound(targetOffset - baseOffset(), i -> mmap().getInt(i * ENTRY_SIZE));
            return slot < 0 ? new OffsetPosition(baseOffset(), 0) : entryUnlocked(slot);
        });
    }

    /**
     * The entry with the largest position <= {@code position}, or (baseOffset, 0) when there is none.
     * Positions increase with offsets, so entries are sorted by both.
     */
    public OffsetPosition lookupByPosition(int position) {
        return withLock(() -> {
            int slot = largestLowerBound(position, i -> mmap().getInt(i * ENTRY_SIZE + 4));
            return slot < 0 ? new OffsetPosition(baseOffset(), 0) : entryUnlocked(slot);
        });
    }

    public OffsetPosition entry(int n) {
        return withLock(() -> {
            if (n < 0 || n >= entriesUnlocked()) {
                throw new IndexOutOfBoundsException("entry " + n + " of " + entriesUnlocked());
            }
            return entryUnlocked(n);
        });
    }

    private OffsetPosition entryUnlocked(int n) {
        return new OffsetPosition(baseOffset() + mmap().getInt(n * ENTRY_SIZE), mmap().getInt(n * ENTRY_SIZE + 4));
    }

    /** The last entry, or (baseOffset, 0) for an empty index. */
    public OffsetPosition lastEntry() {
        return withLock(() -> {
            int n = entriesUnlocked();
            return n == 0 ? new OffsetPosition(baseOffset(), 0) : entryUnlocked(n - 1);
        });
    }

    /** Drops every entry whose offset is >= {@code offset}. */
    public void truncateTo(long offset) {
        withLock(() -> {
            long relative = offset - baseOffset();
            int keep = largestLowerBound(relative - 1, i -> mmap().getInt(i * ENTRY_SIZE)) + 1;
            setEntriesUnlocked(keep);
        });
    }

    /** Drops every entry whose position is >= {@code position}. */
    public void truncateToPosition(int position) {
        withLock(() -> {
            int keep = 0;
            while (keep < entriesUnlocked() && mmap().getInt(keep * ENTRY_SIZE + 4) < position) {
                keep++;
            }
            setEntriesUnlocked(keep);
        });
    }

    public record OffsetPosition(long offset, int position) {
    }
}
