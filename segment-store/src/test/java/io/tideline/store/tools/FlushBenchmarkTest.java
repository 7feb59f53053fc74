package io.tideline.store.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FlushBenchmarkTest {
    @TempDir
    Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return FlushBenchmark.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void reportsAPositiveRateForEverySettingAndRemovesItsDirectory() {
        Path dir = tmp.resolve("bench");
        assertEquals(0, run("--dir", dir.toString(), "--records", "200", "--record-size", "100", "--rounds", "1",
                "--flush-messages", "9223372036854775807,1"), err.toString(StandardCharsets.UTF_8));
        String summary = out.toString(StandardCharsets.UTF_8).lines()
                .filter(l -> l.startsWith(FlushBenchmark.SUMMARY_PREFIX)).findFirst().orElseThrow();
        Map<String, String> figures = new HashMap<>();
        for (String pair : summary.substring(FlushBenchmark.SUMMARY_PREFIX.length()).trim().split(" ")) {
            String[] kv = pair.split("=", 2);
            figures.put(kv[0], kv[1]);
        }
        assertEquals("200", figures.get("records"));
        assertTrue(Double.parseDouble(figures.get("records_per_s_flush_default")) > 0, summary);
        assertTrue(Double.parseDouble(figures.get("records_per_s_flush_1")) > 0, summary);
        assertFalse(Files.exists(dir));
    }

    @Test
    void refusesAFlushMessagesBelowOneWithOneLine() {
        assertEquals(2, run("--dir", tmp.resolve("b").toString(), "--flush-messages", "0"));
        assertEquals(1, err.toString(StandardCharsets.UTF_8).lines().count());
        assertFalse(Files.exists(tmp.resolve("b")));
    }
}
