package io.tideline.store.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.store.index.TimeIndex.TimestampOffset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimeIndexTest {
    private static final long BASE = 500L;
    private static final int SLOTS = 5;
    private static final int MAX_SIZE = SLOTS * TimeIndex.ENTRY_SIZE;

    @TempDir
    Path dir;

    private final List<TimeIndex> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        for (TimeIndex index : opened) {
            index.abandon();
        }
    }

    private Path file() {
        return dir.resolve("00000000000000000500.timeindex");
    }

    private TimeIndex open(boolean writable) throws Exception {
        TimeIndex index = new TimeIndex(file(), BASE, MAX_SIZE, writable);
        opened.add(index);
        return index;
    }

    @Test
    void onlyIncreasingTimestampsAreRecorded() throws Exception {
        TimeIndex index = open(true);
        index.maybeAppend(1_000L, 510, false);
        index.maybeAppend(1_000L, 520, false); // same timestamp: ignored
        index.maybeAppend(900L, 530, false);   // older timestamp: ignored
        index.maybeAppend(1_500L, 540, false);
        assertEquals(2, index.entries());
        assertEquals(new TimestampOffset(1_000L, 510), index.entry(0));
        assertEquals(new TimestampOffset(1_500L, 540), index.entry(1));
        assertEquals(new TimestampOffset(1_500L, 540), index.lastEntry());
    }

    @Test
    void offsetsMustNotGoBackwards() throws Exception {
        TimeIndex index = open(true);
        index.maybeAppend(1_000L, 520, false);
        assertThrows(IllegalArgumentException.class, () -> index.maybeAppend(2_000L, 510, false));
        assertEquals(1, index.entries());
    }

    @Test
    void lookupFindsTheLargestTimestampAtOrBelowTheTarget() throws Exception {
        TimeIndex index = open(true);
        index.maybeAppend(1_000L, 510, false);
        index.maybeAppend(2_000L, 520, false);
        index.maybeAppend(3_000L, 530, false);
        assertEquals(new TimestampOffset(-1L, BASE), index.lookup(999L), "below the first: no entry");
        assertEquals(new TimestampOffset(1_000L, 510), index.lookup(1_000L));
        assertEquals(new TimestampOffset(1_000L, 510), index.lookup(1_999L));
        assertEquals(new TimestampOffset(2_000L, 520), index.lookup(2_000L));
        assertEquals(new TimestampOffset(3_000L, 530), index.lookup(Long.MAX_VALUE));
    }

    @Test
    void emptyIndexAnswersNoTimestampAndTheBaseOffset() throws Exception {
        TimeIndex index = open(true);
        assertEquals(new TimestampOffset(-1L, BASE), index.lookup(1_000L));
        assertEquals(new TimestampOffset(-1L, BASE), index.lastEntry());
    }

    @Test
    void indexIsFullOneSlotEarlyLeavingRoomForTheRollEntry() throws Exception {
        TimeIndex index = open(true);
        for (int i = 0; i < SLOTS - 1; i++) {
            assertFalse(index.isFull());
            index.maybeAppend(1_000L * (i + 1), BASE + i, false);
        }
        assertEquals(SLOTS - 1, index.entries());
        assertTrue(index.isFull(), "full with one slot left");
        assertThrows(IllegalStateException.class, () -> index.maybeAppend(99_000L, BASE + 10, false));

        index.maybeAppend(99_000L, BASE + 10, true); // the final entry written on roll
        assertEquals(SLOTS, index.entries());
        assertEquals(new TimestampOffset(99_000L, BASE + 10), index.lastEntry());

        index.maybeAppend(100_000L, BASE + 11, true); // no slot at all: dropped, not an error
        assertEquals(SLOTS, index.entries());
    }

    @Test
    void truncateToDropsEntriesAtOrAboveTheOffset() throws Exception {
        TimeIndex index = open(true);
        index.maybeAppend(1_000L, 510, false);
        index.maybeAppend(2_000L, 520, false);
        index.maybeAppend(3_000L, 530, false);
        index.truncateTo(521);
        assertEquals(2, index.entries());
        index.truncateTo(520);
        assertEquals(1, index.entries());
        assertEquals(new TimestampOffset(1_000L, 510), index.lookup(5_000L));
        index.maybeAppend(1_500L, 515, false); // appends continue after the kept entry
        assertEquals(new TimestampOffset(1_500L, 515), index.lastEntry());
        index.truncateTo(BASE);
        assertEquals(0, index.entries());
    }

    @Test
    void closeTrimsAndReopenReadsTheEntriesBack() throws Exception {
        TimeIndex index = open(true);
        assertEquals(MAX_SIZE, Files.size(file()));
        index.maybeAppend(1_000L, 510, false);
        index.maybeAppend(2_000L, 520, false);
        index.close();
        assertEquals(2L * TimeIndex.ENTRY_SIZE, Files.size(file()));

        TimeIndex reopened = open(false);
        assertEquals(2, reopened.entries());
        assertFalse(reopened.invalidTail());
        assertEquals(new TimestampOffset(2_000L, 520), reopened.lastEntry());
    }

    @Test
    void zeroFilledTailAfterACrashIsNotTakenForEntries() throws Exception {
        TimeIndex index = open(true);
        index.maybeAppend(1_000L, 510, false);
        index.maybeAppend(2_000L, 520, false);
        index.abandon();
        assertEquals(MAX_SIZE, Files.size(file()));

        TimeIndex reopened = open(true);
        assertEquals(2, reopened.entries());
        assertTrue(reopened.invalidTail());
        assertEquals(new TimestampOffset(2_000L, 520), reopened.lookup(Long.MAX_VALUE));
    }

    @Test
    void trimToValidSizeShrinksTheFile() throws Exception {
        TimeIndex index = open(true);
        index.maybeAppend(1_000L, 510, false);
        index.trimToValidSize();
        assertEquals(TimeIndex.ENTRY_SIZE, Files.size(file()));
        assertEquals(new TimestampOffset(1_000L, 510), index.lookup(1_000L));
    }
}
