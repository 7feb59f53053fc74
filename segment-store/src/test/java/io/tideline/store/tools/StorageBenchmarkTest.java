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
    /** Every figure the summary line must carry for each shape (prefixed with its name), each a positive number. */
    private static final List<String> SHAPE_FIGURES = List.of(
            "append_records_per_s", "append_mb_per_s", "raw_write_mb_per_s", "append_to_raw",
            "append_durable_mb_per_s", "raw_write_durable_mb_per_s", "append_to_raw_durable",
            "read_records_per_s", "read_mb_per_s", "raw_read_mb_per_s", "read_to_raw");
    /** Figures measured once per run. */
    private static final List<String> FIGURES = List.of(
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

    private static void assertPositive(Map<String, String> summary, List<String> figures, String prefix) {
        for (String figure : figures) {
            String key = prefix + figure;
            assertTrue(summary.containsKey(key), key + " missing from " + summary);
            double value = Double.parseDouble(summary.get(key));
            assertTrue(value > 0, key + " = " + value);
        }
    }

    @Test
    void printsEveryFigureAsAPositiveNumberAndRemovesItsDirectory() {
        Path dir = tmp.resolve("bench");

        assertEquals(0, run(dir), stderr());

        Map<String, String> summary = summary();
        assertEquals("custom", summary.get("shapes"), "the shape options describe one shape of their own");
        assertPositive(summary, SHAPE_FIGURES, "custom_");
        assertPositive(summary, FIGURES, "");
        assertEquals("2000", summary.get("custom_records"));
        assertEquals("50", summary.get("custom_batch_size"));
        assertEquals("1073741824", summary.get("custom_segment_bytes"), "options not given take the bulk shape's values");
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

        // The last of the three rounds leaves its log, under the shape's name.
        assertTrue(Files.isDirectory(dir.resolve("custom").resolve("append-2")));
        assertTrue(Files.isDirectory(dir.resolve("recovery-0")));
        try (var files = Files.list(dir.resolve("custom").resolve("append-2"))) {
            assertTrue(files.anyMatch(p -> p.getFileName().toString().endsWith(".log")));
        }
    }

    @Test
    void withoutShapeOptionsBothDefaultShapesRunAndTheSummaryCoversBoth() {
        Path dir = tmp.resolve("both");

        // The default shapes at a thousandth of their records: 2,000 of 100 bytes, 400 of 1 KiB.
        assertEquals(0, runRaw("--dir", dir.toString(), "--scale", "0.001", "--rounds", "2",
                "--recovery-bytes", Integer.toString(4 * 1024 * 1024), "--retention-segments", "200"), stderr());

        Map<String, String> summary = summary();
        assertEquals("bulk,producer", summary.get("shapes"));
        assertPositive(summary, SHAPE_FIGURES, "bulk_");
        assertPositive(summary, SHAPE_FIGURES, "producer_");
        assertPositive(summary, FIGURES, "");
        assertEquals("100", summary.get("bulk_record_size"));
        assertEquals("100", summary.get("bulk_batch_size"));
        assertEquals("1073741824", summary.get("bulk_segment_bytes"));
        assertEquals("400", summary.get("producer_records"));
        assertEquals("1024", summary.get("producer_record_size"));
        assertEquals("16", summary.get("producer_batch_size"));
        assertEquals("16777216", summary.get("producer_segment_bytes"));
        assertTrue(stdout().contains("shape bulk: 2,000 records of 100 bytes in batches of 100"), stdout());
        assertTrue(stdout().contains("shape producer: 400 records of 1,024 bytes in batches of 16, segment.bytes 16,777,216"),
                stdout());
        assertTrue(stdout().contains("recovery of") && stdout().contains("shape bulk)"), "recovery runs once, on the first shape");
        assertEquals("", stderr());
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
