package io.tideline.replication.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplicationBenchmarkTest {
    @TempDir
    Path dir;

    @Test
    void smallRunReportsCatchUpAgainstBothBaselinesAndTheTargetThatApplies() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Path work = dir.resolve("bench");
        int code = ReplicationBenchmark.run(new String[] {"--dir", work.toString(), "--transport", "in-process",
                "--mb", "2", "--partitions", "2", "--idle-partitions", "1", "--rounds", "2", "--warmup-rounds", "1",
                "--record-size", "100", "--batch-size", "10"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, text + err.toString(StandardCharsets.UTF_8));
        String result = text.lines().filter(l -> l.startsWith(ReplicationBenchmark.SUMMARY_PREFIX)).findFirst()
                .orElseThrow(() -> new AssertionError("no RESULT line in\n" + text));
        Map<String, String> values = Arrays.stream(result.substring(ReplicationBenchmark.SUMMARY_PREFIX.length()).trim()
                .split(" ")).map(kv -> kv.split("=", 2)).collect(Collectors.toMap(kv -> kv[0], kv -> kv[1]));
        for (String scenario : new String[] {"single", "multi"}) {
            double raw = Double.parseDouble(values.get(scenario + "_raw_read_mb_per_s"));
            double append = Double.parseDouble(values.get(scenario + "_follower_append_mb_per_s"));
            double target = Double.parseDouble(values.get(scenario + "_target_mb_per_s"));
            assertTrue(raw > 0 && append > 0, result);
            // The lower of the two rules, to the printed precision.
            assertEquals(Math.min(0.5 * raw, 0.8 * append), target, 0.1, result);
            assertEquals(0.5 * raw <= 0.8 * append ? "raw_read" : "follower_append", values.get(scenario + "_target_rule"),
                    result);
            assertTrue(Double.parseDouble(values.get(scenario + "_catch_up_mb_per_s")) > 0, result);
            assertTrue(Double.parseDouble(values.get(scenario + "_catch_up_cpu_ms_per_mb")) > 0, result);
            assertTrue(Double.parseDouble(values.get(scenario + "_catch_up_allocated_per_byte")) > 0, result);
        }
        assertEquals("1", values.get("idle_partitions"));
        assertTrue(text.contains("rounds, 2 partition(s), MB/s: catch-up "), text);
        assertTrue(!Files.exists(work), "the directory the run created is removed");
    }

    @Test
    void badRoundCountIsOneLineAndExitCodeTwo() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = ReplicationBenchmark.run(new String[] {"--dir", dir.toString(), "--rounds", "0"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, code);
        assertEquals("bench-replication: --rounds must be at least 1, got 0", err.toString(StandardCharsets.UTF_8).trim());
    }
}
