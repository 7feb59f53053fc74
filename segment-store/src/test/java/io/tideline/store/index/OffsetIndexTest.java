package io.tideline.store.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.store.index.OffsetIndex.OffsetPosition;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OffsetIndexTest {
    private static final long BASE = 1_000L;
    private static final int MAX_ENTRIES = 10;
    private static final int MAX_SIZE = MAX_ENTRIES * OffsetIndex.ENTRY_SIZE;

    @TempDir
    Path dir;

    private final List<AbstractIndex> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        for (AbstractIndex index : opened) {
            index.abandon(); // no-op when already closed
        }
    }

    private Path file() {
        return dir.resolve("00000000000000001000.index");
    }

    private OffsetIndex open(boolean writable) throws Exception {
        OffsetIndex index = new OffsetIndex(file(), BASE, MAX_SIZE, writable);
        opened.add(index);
        return index;
    }

    /** Entries (BASE+10, 100), (BASE+20, 200), ... */
    private static void fill(OffsetIndex index, int n) {
        for (int i = 1; i <= n; i++) {
            index.append(BASE + 10L * i, 100 * i);
        }
    }

    @Test
    void newIndexIsPreallocatedAndEmpty() throws Exception {
        OffsetIndex index = open(true);
        assertEquals(0, index.entries());
        assertEquals(MAX_ENTRIES, index.maxEntries());
        assertEquals(MAX_SIZE, Files.size(file()));
        assertEquals(0, index.sizeInBytes());
        assertFalse(index.isFull());
    }

    @Test
    void lookupFindsTheLargestEntryAtOrBelowTheTarget() throws Exception {
        OffsetIndex index = open(true);
        fill(index, 3); // 1010@100, 1020@200, 1030@300
        assertEquals(new OffsetPosition(1010, 100), index.lookup(1010));
        assertEquals(new OffsetPosition(1010, 100), index.lookup(1019));
        assertEquals(new OffsetPosition(1020, 200), index.lookup(1020));
        assertEquals(new OffsetPosition(1020, 200), index.lookup(1029));
        assertEquals(new OffsetPosition(1030, 300), index.lookup(1030));
        assertEquals(new OffsetPosition(1030, 300), index.lookup(Long.MAX_VALUE / 2));
    }

    @Test
    void lookupBelowTheFirstEntryAnswersTheBaseOffsetAtPositionZero() throws Exception {
        OffsetIndex index = open(true);
        assertEquals(new OffsetPosition(BASE, 0), index.lookup(BASE + 5), "empty index");
        fill(index, 2);
        assertEquals(new OffsetPosition(BASE, 0), index.lookup(BASE + 9));
        assertEquals(new OffsetPosition(BASE, 0), index.lookup(BASE));
        assertEquals(new OffsetPosition(BASE, 0), index.lookup(0), "below the base offset");
    }

    @Test
    void lookupWorksForEveryEntryOfAFullIndex() throws Exception {
        OffsetIndex index = open(true);
        fill(index, MAX_ENTRIES);
        for (int i = 1; i <= MAX_ENTRIES; i++) {
            assertEquals(new OffsetPosition(BASE + 10L * i, 100 * i), index.lookup(BASE + 10L * i + 5));
            assertEquals(new OffsetPosition(BASE + 10L * i, 100 * i), index.entry(i - 1));
        }
        assertEquals(new OffsetPosition(BASE + 100, 1000), index.lastEntry());
    }

    @Test
    void appendRefusesAnOffsetNotAboveTheLastEntry() throws Exception {
        OffsetIndex index = open(true);
        index.append(BASE + 10, 100);
        assertThrows(IllegalArgumentException.class, () -> index.append(BASE + 10, 200), "equal offset");
        assertThrows(IllegalArgumentException.class, () -> index.append(BASE + 5, 200), "smaller offset");
        assertEquals(1, index.entries());
        index.append(BASE + 11, 200);
        assertEquals(2, index.entries());
    }

    @Test
    void appendRefusesAnOffsetThatDoesNotFitRelativeToTheBase() throws Exception {
        OffsetIndex index = open(true);
        assertThrows(AbstractIndex.IndexOffsetOverflowException.class, () -> index.append(BASE - 1, 0));
        assertThrows(AbstractIndex.IndexOffsetOverflowException.class,
                () -> index.append(BASE + Integer.MAX_VALUE + 1L, 0));
        index.append(BASE + Integer.MAX_VALUE, 0);
        assertEquals(new OffsetPosition(BASE + Integer.MAX_VALUE, 0), index.lastEntry());
    }

    @Test
    void indexIsFullAtMaxEntriesAndRefusesMore() throws Exception {
        OffsetIndex index = open(true);
        fill(index, MAX_ENTRIES - 1);
        assertFalse(index.isFull());
        index.append(BASE + 1_000, 5_000);
        assertTrue(index.isFull());
        assertThrows(IllegalStateException.class, () -> index.append(BASE + 2_000, 6_000));
        assertEquals(MAX_ENTRIES, index.entries());
    }

    @Test
    void truncateToDropsEntriesAtOrAboveTheOffset() throws Exception {
        OffsetIndex index = open(true);
        fill(index, 5); // 1010..1050
        index.truncateTo(1031);
        assertEquals(3, index.entries(), "1010, 1020, 1030 stay");
        index.truncateTo(1030);
        assertEquals(2, index.entries(), "an entry at the truncation offset goes");
        assertEquals(new OffsetPosition(1020, 200), index.lookup(1_000_000));
        index.truncateTo(2_000);
        assertEquals(2, index.entries(), "truncating above the last entry keeps everything");
        index.append(1025, 250); // the slots freed are reused
        assertEquals(new OffsetPosition(1025, 250), index.lastEntry());
        index.truncateTo(BASE);
        assertEquals(0, index.entries());
        assertEquals(new OffsetPosition(BASE, 0), index.lookup(1025));
    }

    @Test
    void truncateToPositionDropsEntriesAtOrPastThePosition() throws Exception {
        OffsetIndex index = open(true);
        fill(index, 5);
        index.truncateToPosition(300);
        assertEquals(2, index.entries());
        assertEquals(new OffsetPosition(1020, 200), index.lastEntry());
    }

    @Test
    void trimToValidSizeShrinksTheFileToItsEntries() throws Exception {
        OffsetIndex index = open(true);
        fill(index, 3);
        assertEquals(MAX_SIZE, Files.size(file()));
        index.trimToValidSize();
        assertEquals(3 * OffsetIndex.ENTRY_SIZE, Files.size(file()));
        assertEquals(3, index.maxEntries());
        assertTrue(index.isFull(), "a trimmed index has no room left");
        assertEquals(new OffsetPosition(1020, 200), index.lookup(1025), "entries survive the remap");
        index.resize(MAX_SIZE);
        assertEquals(MAX_SIZE, Files.size(file()));
        assertFalse(index.isFull());
        index.append(1040, 400);
        assertEquals(4, index.entries());
    }

    @Test
    void reopenReadsTheEntriesBack() throws Exception {
        OffsetIndex index = open(true);
        fill(index, 4);
        index.close();
        assertEquals(4 * OffsetIndex.ENTRY_SIZE, Files.size(file()), "close trims the file");

        OffsetIndex reopened = open(false);
        assertEquals(4, reopened.entries());
        assertFalse(reopened.invalidTail());
        for (int i = 1; i <= 4; i++) {
            assertEquals(new OffsetPosition(BASE + 10L * i, 100 * i), reopened.entry(i - 1));
        }
        assertEquals(new OffsetPosition(1030, 300), reopened.lookup(1039));
        assertEquals(4 * OffsetIndex.ENTRY_SIZE, Files.size(file()), "read-only reopen keeps the trimmed size");
    }

    @Test
    void reopeningAsActiveGrowsTheTrimmedFileAgainAndKeepsTheEntries() throws Exception {
        OffsetIndex index = open(true);
        fill(index, 2);
        index.close();
        OffsetIndex reopened = open(true);
        assertEquals(MAX_SIZE, Files.size(file()));
        assertEquals(2, reopened.entries());
        reopened.append(1030, 300);
        assertEquals(new OffsetPosition(1030, 300), reopened.lookup(1035));
    }

    @Test
    void zeroFilledTailOfAPreallocatedFileIsNotTakenForEntries() throws Exception {
        OffsetIndex index = open(true);
        fill(index, 3);
        index.abandon(); // a crash: the file keeps its preallocated length, the tail is zeros
        assertEquals(MAX_SIZE, Files.size(file()));

        OffsetIndex reopened = open(true);
        assertEquals(3, reopened.entries());
        assertTrue(reopened.invalidTail(), "the zeros are reported, so a caller may rebuild");
        assertEquals(new OffsetPosition(1030, 300), reopened.lookup(Long.MAX_VALUE / 2));
        reopened.append(1040, 400); // appends go right after the valid entries
        assertEquals(4, reopened.entries());
    }

    @Test
    void entirelyZeroFilledFileHasNoEntries() throws Exception {
        open(true).abandon(); // preallocated, never written, not trimmed
        OffsetIndex reopened = open(true);
        assertEquals(0, reopened.entries(), "a zero slot is not an entry (no entry ever points at position 0)");
        assertEquals(new OffsetPosition(BASE, 0), reopened.lookup(BASE + 50));
    }

    @Test
    void damagedEntriesEndTheValidPrefix() throws Exception {
        OffsetIndex index = open(true);
        fill(index, 4);
        index.close();
        // Make entry 2 go backwards: (relative 5, position 300).
        try (RandomAccessFile raf = new RandomAccessFile(file().toFile(), "rw")) {
            raf.seek(2L * OffsetIndex.ENTRY_SIZE);
            raf.write(ByteBuffer.allocate(8).putInt(5).putInt(300).array());
        }
        OffsetIndex reopened = open(false);
        assertEquals(2, reopened.entries());
        assertTrue(reopened.invalidTail());
    }

    @Test
    void closedIndexRefusesAccess() throws Exception {
        OffsetIndex index = open(true);
        fill(index, 1);
        index.close();
        assertThrows(IllegalStateException.class, () -> index.lookup(BASE));
        assertThrows(IllegalStateException.class, () -> index.append(BASE + 100, 1));
    }

    @Test
    void renameKeepsTheMappingUsable() throws Exception {
        OffsetIndex index = open(true);
        fill(index, 2);
        Path target = dir.resolve("00000000000000001000.index.deleted");
        index.renameTo(target);
        assertFalse(Files.exists(file()));
        assertTrue(Files.exists(target));
        assertEquals(target, index.file());
        assertEquals(new OffsetPosition(1020, 200), index.lookup(1025));
        index.closeAndDelete();
        assertFalse(Files.exists(target));
    }
}
