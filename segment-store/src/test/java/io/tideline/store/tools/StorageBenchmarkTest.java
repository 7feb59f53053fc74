package io.tideline.store.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StorageBenchmarkTest {
    /** Every figure the summary line must carry, each a positive number. */
    private static final List<String> FIGURES = List.of(
            "append_records_per_s", "append_mb_per_s", "raw_write_mb_per_s", "append_to_raw",
            "append_durable_mb_per_s", "raw_write_durable_mb_per_s", "append_to_raw_durable",
            "read_records_per_s", "read_mb_per_s", "raw_read_mb_per_s", "read_to_raw",
            "retention_open_ms", "retention_noop_pass_ms", "retention_delete_pass_ms", "retention_unlink_ms",
            "recovery_s", "recovery_mb_per_s");

    private static final String[] TINY = {
        "--records", "2000", "--record-size", "100", "--batch-size", "50",
        "--recovery-bytes", Integer.toString(4 * 1024 * 1024), "--retention-segments", "200",
        "--warmup-records", "500"};

    @TempDir
    Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(Path dir, String... extra) {
        String[] args = new String[TINY.length + extra.length + 2];
        args[0] = "--dir";
        args[1] = dir.toString();
        System.arraycopy(TINY, 0, args, 2, TINY.length);
        System.arraycopy(extra, 0, args, 2 + TINY.length, extra.length);
        return runRaw(args);
    }

    private int runRaw(String... args) {
        return StorageBenchmark.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private Map<String, String> summary() {
        String line = stdout().lines().filter(l -> l.startsWith(StorageBenchmark.SUMMARY_PREFIX)).findFirst().orElse(null);
        assertNotNull(line, "no summary line in:\n" + stdout());
        Map<String, String> values = new HashMap<>();
        for (String pair : line.substring(StorageBenchmark.SUMMARY_PREFIX.length()).trim().split(" ")) {
            int eq = pair.indexOf('=');
            values.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return values;
    }

    @Test
    void printsEveryFigureAsAPositiveNumberAndRemovesItsDirectory() {
        Path dir = tmp.resolve("bench");

        assertEquals(0, run(dir), stderr());

        Map<String, String> summary = summary();
        for (String figure : FIGURES) {
            assertTrue(summary.containsKey(figure), figure + " missing from " + summary);
            double value = Double.parseDouble(summary.get(figure));
            assertTrue(value > 0, figure + " = " + value);
        }
        assertEquals("2000", summary.get("records"));
        assertEquals("199", summary.get("retention_deleted"), "every closed segment of the 200 expired");
        assertTrue(Long.parseLong(summary.get("recovery_bytes")) >= 4 * 1024 * 1024);
        for (String row : List.of("append (Log.appendAsLeader", "raw write (FileChannel", "append / raw write (page cache)",
                "append + fsync at the end (on disk)", "append / raw write (on disk)",
                "sequential read (Log.read", "raw read (FileChannel", "retention pass, 200 segments, deletes none",
                "retention pass, 200 segments, deletes 199", "recovery of")) {
            assertTrue(stdout().contains(row), "table row '" + row + "' missing:\n" + stdout());
        }
        assertFalse(Files.exists(dir), "the bench directory is removed without --keep");
        assertEquals("", stderr());
    }

    @Test
    void keepLeavesTheLogDirectoriesForInspection() throws Exception {
        Path dir = tmp.resolve("kept");

        assertEquals(0, run(dir, "--keep"), stderr());

        // The last of the three rounds leaves its log.
        assertTrue(Files.isDirectory(dir.resolve("append-2")));
        assertTrue(Files.isDirectory(dir.resolve("recovery-0")));
        try (var files = Files.list(dir.resolve("append-2"))) {
            assertTrue(files.anyMatch(p -> p.getFileName().toString().endsWith(".log")));
        }
    }

    @Test
    void anExistingEmptyDirectoryIsUsedAndLeftEmpty() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("empty"));

        assertEquals(0, run(dir), stderr());

        assertTrue(Files.isDirectory(dir));
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void badArgumentsExitWithTwoAndOneLineOnStderr() {
        assertEquals(2, runRaw("--records", "10"), "--dir is required");
        assertOneErrorLine();

        err.reset();
        assertEquals(2, run(tmp.resolve("b"), "--batch-size", "0"));
        assertOneErrorLine();

        err.reset();
        assertEquals(2, runRaw("--dir", tmp.resolve("c").toString(), "--records", "many"));
        assertOneErrorLine();

        err.reset();
        assertEquals(2, runRaw("--dir", tmp.resolve("d").toString(), "--no-such-option"));
        assertOneErrorLine();
        assertEquals("", stdout());
    }

    @Test
    void aDirectoryThatCannotBeUsedExitsWithTwo() throws Exception {
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        assertEquals(2, runRaw("--dir", file.toString()));
        assertOneErrorLine();

        err.reset();
        Path busy = Files.createDirectory(tmp.resolve("busy"));
        Files.writeString(busy.resolve("precious.txt"), "keep me");
        assertEquals(2, runRaw("--dir", busy.toString()));
        assertOneErrorLine();
        assertTrue(Files.exists(busy.resolve("precious.txt")), "a non-empty directory is never touched");

        err.reset();
        assertEquals(2, runRaw("--dir", file.resolve("below-a-file").toString()));
        assertOneErrorLine();
    }

    @Test
    void helpPrintsUsageAndExitsZero() {
        assertEquals(0, runRaw("--help"));
        assertTrue(stdout().contains("--record-size"), stdout());
        assertFalse(stdout().contains("--retention-segments"), "test-only options stay hidden");
    }

    private void assertOneErrorLine() {
        List<String> lines = stderr().lines().toList();
        assertEquals(1, lines.size(), "stderr: " + stderr());
        assertTrue(lines.get(0).startsWith("bench-storage: "), lines.get(0));
    }
}
