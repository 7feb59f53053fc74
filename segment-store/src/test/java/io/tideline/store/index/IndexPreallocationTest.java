package io.tideline.store.index;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An index's preallocated space is written, not a hole, so that a full disk fails the index's creation with an
 * IOException rather than a later store into the mapping with SIGBUS (docs/behaviours.md B142).
 * {@code LogDirDiskFaultTest} shows the same on a real full disk.
 */
class IndexPreallocationTest {
    @TempDir
    Path dir;

    @Test
    void aNewIndexHasItsPreallocatedSpaceWrittenNotAHole() throws Exception {
        OffsetIndex index = new OffsetIndex(dir.resolve("0.index"), 0, 64 * 1024, true);
        try {
            Process stat = new ProcessBuilder("stat", "-c", "%b %B", index.file().toString()).start();
            String[] blocks = new String(stat.getInputStream().readAllBytes()).trim().split(" ");
            assertEquals(0, stat.waitFor());
            long allocated = Long.parseLong(blocks[0]) * Long.parseLong(blocks[1]);
            assertEquals(64 * 1024, Math.min(allocated, 64 * 1024), "allocated bytes of a 64 KiB index: " + allocated);
        } finally {
            index.abandon();
        }
    }
}
