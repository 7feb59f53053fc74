package io.tideline.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** bench-soak's verdict: what counts as flat, and the figures it reads from a node process. */
class SoakReportTest {
    private static final long MIB = 1024 * 1024;
    private static final long WARMUP_MS = 120_000;

    private static ProcessStats stats(long heapMib, long rssMib, int fds, int threads) {
        return new ProcessStats(heapMib * MIB, rssMib * MIB, fds, threads);
    }

    /** Samples every 10 s for {@code minutes}; the heap after GC at minute m is {@code heapAt(m)}. */
    private static SoakReport report(int minutes, java.util.function.LongUnaryOperator heapAt) {
        SoakReport report = new SoakReport(WARMUP_MS);
        for (long t = 10_000; t <= minutes * 60_000L; t += 10_000) {
            report.add(1, t, stats(heapAt.applyAsLong(t / 60_000), 230 + (t / 10_000) % 3, 400, 70));
            report.add(2, t, stats(20, 240, 410 + (int) (t / 10_000) % 5, 72));
        }
        return report;
    }

    private static String verdict(SoakReport report, boolean[] flat) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        flat[0] = report.printVerdict(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void figuresThatWanderWithinTheirBoundsAreFlat() {
        boolean[] flat = new boolean[1];
        String table = verdict(report(10, m -> 20 + m % 2 * 6), flat);
        assertTrue(flat[0], table);
        assertFalse(table.contains("GREW"), table);
    }

    @Test
    void aHeapThatKeepsGrowingAfterTheWarmUpIsNotFlat() {
        boolean[] flat = new boolean[1];
        // 3 MiB of live data more every minute: 24 MiB over the judged eight minutes, past 8 MiB.
        String table = verdict(report(10, m -> 20 + 3 * m), flat);
        assertFalse(flat[0], table);
        assertTrue(table.lines().anyMatch(l -> l.startsWith("| 1 | heap after GC") && l.contains("GREW")), table);
        assertTrue(table.lines().anyMatch(l -> l.startsWith("| 2 | heap after GC") && l.endsWith("flat |")), table);
    }

    @Test
    void whatHappensDuringTheWarmUpIsNotJudged() {
        boolean[] flat = new boolean[1];
        // JIT, first segments: 200 MiB in the first two minutes, then steady.
        String table = verdict(report(10, m -> m < 2 ? 200 : 25), flat);
        assertTrue(flat[0], table);
    }

    @Test
    void threadsMayGrowByFourAtMost() {
        SoakReport report = new SoakReport(0);
        for (long t = 10_000; t <= 300_000; t += 10_000) {
            report.add(1, t, stats(20, 230, 400, t > 240_000 ? 75 : 70));
        }
        boolean[] flat = new boolean[1];
        String table = verdict(report, flat);
        assertFalse(flat[0], table);
        assertTrue(table.contains("| 1 | threads | 70 | 75 | 75 | 4 | GREW by 5 |"), table);
    }

    @Test
    void tooFewSamplesAfterTheWarmUpIsNoVerdict() {
        SoakReport report = new SoakReport(WARMUP_MS);
        report.add(1, 10_000, stats(20, 230, 400, 70));
        report.add(1, 130_000, stats(20, 230, 400, 70));
        boolean[] flat = new boolean[1];
        String table = verdict(report, flat);
        assertFalse(flat[0]);
        assertTrue(table.contains("too few samples"), table);
    }

    @Test
    void heapUsedAddsTheGenerationsAndLeavesMetaspaceOut() {
        String serial = """
                12345:
                 def new generation   total 12352K, used 6997K [0x00000000e0000000, 0x00000000e0d60000)
                  eden space 11008K,  63% used [0x00000000e0000000, 0x00000000e06d5608)
                 tenured generation   total 27300K, used 16419K [0x00000000eaaa0000, 0x00000000ec549000)
                 Metaspace       used 45720K, committed 46110K, reserved 1114112K
                  class space    used 5512K, committed 5760K, reserved 1048576K
                """;
        assertEquals((6997 + 16419) * 1024L, ProcessStats.heapUsed(serial));
        String g1 = """
                 garbage-first heap   total 49152K, used 18432K [0x00000000e0000000, 0x0000000100000000)
                  region size 1024K, 3 young (3072K), 1 survivors (1024K)
                 Metaspace       used 30000K, committed 30500K, reserved 1081344K
                """;
        assertEquals(18432 * 1024L, ProcessStats.heapUsed(g1));
    }

    @Test
    void samplesARunningJvmFromOutside() throws Exception {
        ProcessStats self = ProcessStats.sample(ProcessHandle.current().pid());
        assertTrue(self.heapAfterGcBytes() > 0 && self.heapAfterGcBytes() < Runtime.getRuntime().maxMemory(),
                self.toString());
        assertTrue(self.rssBytes() > self.heapAfterGcBytes(), self.toString());
        assertTrue(self.openFds() > 0 && self.threads() > 1, self.toString());
    }
}
