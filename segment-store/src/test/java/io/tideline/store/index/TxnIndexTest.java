package io.tideline.store.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.store.index.TxnIndex.AbortedTxn;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TxnIndexTest {
    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve("00000000000000000000.txnindex");
    }

    @Test
    void noFileExistsUntilTheFirstAppend() throws Exception {
        try (TxnIndex index = new TxnIndex(file())) {
            assertFalse(index.exists());
            assertEquals(List.of(), index.allAbortedTxns());
            index.truncateTo(0);
            index.flush();
            assertFalse(Files.exists(file()), "reads, truncation and flush must not create the file");

            index.append(new AbortedTxn(7L, 10L, 20L, 21L));
            assertTrue(index.exists());
            assertEquals(TxnIndex.ENTRY_SIZE, Files.size(file()));
        }
    }

    @Test
    void entriesRoundTripThroughTheFileInKafkasLayout() throws Exception {
        List<AbortedTxn> txns = List.of(new AbortedTxn(7L, 10L, 20L, 21L), new AbortedTxn(8L, 15L, 30L, 31L),
                new AbortedTxn(Long.MAX_VALUE, 40L, 50L, 51L));
        try (TxnIndex index = new TxnIndex(file())) {
            for (AbortedTxn txn : txns) {
                index.append(txn);
            }
            assertEquals(txns, index.allAbortedTxns());
        }
        try (TxnIndex reopened = new TxnIndex(file())) {
            assertEquals(txns, reopened.allAbortedTxns());
        }
        // version (int16 0), producerId, firstOffset, lastOffset, lastStableOffset: big-endian.
        ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(file()));
        assertEquals(3 * TxnIndex.ENTRY_SIZE, raw.remaining());
        assertEquals(0, raw.getShort());
        assertEquals(7L, raw.getLong());
        assertEquals(10L, raw.getLong());
        assertEquals(20L, raw.getLong());
        assertEquals(21L, raw.getLong());
    }

    @Test
    void rangesMustBeAppendedInOrder() throws Exception {
        try (TxnIndex index = new TxnIndex(file())) {
            index.append(new AbortedTxn(1L, 10L, 20L, 21L));
            assertThrows(IllegalArgumentException.class, () -> index.append(new AbortedTxn(2L, 5L, 15L, 16L)));
            assertEquals(1, index.allAbortedTxns().size());
        }
    }

    @Test
    void truncateToKeepsOnlyRangesStartingBelowTheOffset() throws Exception {
        try (TxnIndex index = new TxnIndex(file())) {
            index.append(new AbortedTxn(1L, 10L, 20L, 21L));
            index.append(new AbortedTxn(2L, 25L, 30L, 31L));
            index.append(new AbortedTxn(3L, 35L, 40L, 41L));
            index.truncateTo(26);
            assertEquals(List.of(new AbortedTxn(1L, 10L, 20L, 21L), new AbortedTxn(2L, 25L, 30L, 31L)),
                    index.allAbortedTxns());
            assertEquals(2L * TxnIndex.ENTRY_SIZE, Files.size(file()));
            index.truncateTo(25);
            assertEquals(1, index.allAbortedTxns().size());
            index.append(new AbortedTxn(4L, 22L, 23L, 24L)); // appends continue after what is kept
            assertEquals(new AbortedTxn(4L, 22L, 23L, 24L), index.allAbortedTxns().get(1));
            index.truncateTo(0);
            assertEquals(List.of(), index.allAbortedTxns());
        }
    }

    @Test
    void renameMovesTheFileAndKeepsItReadable() throws Exception {
        Path target = dir.resolve("00000000000000000000.txnindex.deleted");
        try (TxnIndex index = new TxnIndex(file())) {
            index.append(new AbortedTxn(1L, 10L, 20L, 21L));
            index.renameTo(target);
            assertFalse(Files.exists(file()));
            assertTrue(Files.exists(target));
            assertEquals(target, index.file());
            assertEquals(List.of(new AbortedTxn(1L, 10L, 20L, 21L)), index.allAbortedTxns());
            index.append(new AbortedTxn(2L, 30L, 40L, 41L));
            index.closeAndDelete();
            assertFalse(Files.exists(target));
        }
    }

    @Test
    void renamingAnIndexWithoutAFileCreatesNothing() throws Exception {
        Path target = dir.resolve("00000000000000000000.txnindex.deleted");
        try (TxnIndex index = new TxnIndex(file())) {
            index.renameTo(target);
            assertEquals(target, index.file());
            assertFalse(Files.exists(target));
            assertFalse(Files.exists(file()));
            index.closeAndDelete();
        }
    }

    @Test
    void unknownVersionIsReportedAsAnError() throws Exception {
        ByteBuffer entry = ByteBuffer.allocate(TxnIndex.ENTRY_SIZE).putShort((short) 9).putLong(1).putLong(2)
                .putLong(3).putLong(4);
        Files.write(file(), entry.array());
        try (TxnIndex index = new TxnIndex(file())) {
            assertThrows(java.io.IOException.class, index::allAbortedTxns);
        }
    }
}
