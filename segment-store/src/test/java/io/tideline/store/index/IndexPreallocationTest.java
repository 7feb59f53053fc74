package io.tideline.store.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No store into an index's mapping lands in a hole: the blocks ahead of the entries are written, one chunk at a
 * time, so a full disk fails the index's creation or the append that needs the next chunk with an IOException
 * (KAFKA_STORAGE_ERROR) rather than a store into the mapping with SIGBUS; and the rest of the preallocated length
 * stays sparse, as Kafka's is, so a new partition does not write megabytes of zeros (docs/behaviours.md B142).
 * {@code LogDirDiskFaultTest} shows the same on a real full disk.
 */
class IndexPreallocationTest {
    private static final int TEN_MIB = 10 * 1024 * 1024;

    @TempDir
    Path dir;

    private static long allocatedBytes(Path file) throws IOException, InterruptedException {
        Process stat = new ProcessBuilder("stat", "-c", "%b %B", file.toString()).start();
        String[] blocks = new String(stat.getInputStream().readAllBytes()).trim().split(" ");
        assertEquals(0, stat.waitFor());
        return Long.parseLong(blocks[0]) * Long.parseLong(blocks[1]);
    }

    @Test
    void aNewIndexHasItsFirstChunkWrittenAndTheRestOfItsLengthSparse() throws Exception {
        OffsetIndex index = new OffsetIndex(dir.resolve("0.index"), 0, TEN_MIB, true);
        try {
            assertEquals(TEN_MIB, index.file().toFile().length());
            long allocated = allocatedBytes(index.file());
            assertTrue(allocated >= AbstractIndex.ALLOCATION_CHUNK_BYTES, "the first chunk is written: " + allocated);
            assertTrue(allocated < 1024 * 1024, "not the whole 10 MiB: " + allocated);
        } finally {
            index.abandon();
        }
    }

    @Test
    void theBlocksAheadOfEveryEntryAreWrittenBeforeTheEntry() throws Exception {
        OffsetIndex offsets = new OffsetIndex(dir.resolve("0.index"), 0, TEN_MIB, true);
        TimeIndex times = new TimeIndex(dir.resolve("0.timeindex"), 0, TEN_MIB, true);
        try {
            int entries = 3 * AbstractIndex.ALLOCATION_CHUNK_BYTES / OffsetIndex.ENTRY_SIZE + 5;
            for (int i = 0; i < entries; i++) {
                offsets.append(i, i * 100);
                times.maybeAppend(1_000L + i, i, false);
                if (i % 500 == 0 || i == entries - 1) {
                    assertTrue(allocatedBytes(offsets.file()) >= (long) (i + 1) * OffsetIndex.ENTRY_SIZE,
                            "offset index blocks behind entry " + i);
                    assertTrue(allocatedBytes(times.file()) >= (long) (i + 1) * TimeIndex.ENTRY_SIZE,
                            "time index blocks behind entry " + i);
                }
            }
            assertTrue(allocatedBytes(offsets.file()) < 1024 * 1024, "allocated as entries came, not all at once");
        } finally {
            offsets.abandon();
            times.abandon();
        }
    }
}
