package io.tideline.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.time.MockTime;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The exact lines of {@code perf produce} (Kafka's ProducerPerformance formats) and the pacing of
 * {@code --throughput}, on a mock clock.
 */
class PerfStatsTest {
    private static final int MIB = 1024 * 1024;
    private final MockTime time = new MockTime(0);
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    @Test
    void windowAndTotalLinesHaveKafkasFormat() {
        ProducerPerfStats stats = new ProducerPerfStats(4, 1000, false, out, time);
        stats.record(10, MIB, 100);
        stats.record(20, MIB, 500);
        stats.record(30, MIB, 1000);
        stats.record(40, MIB, 1200);
        time.advance(2000);
        stats.printTotal();
        assertEquals(List.of(
                "3 records sent, 3.0 records/sec (3.00 MB/sec), 20.0 ms avg latency, 30.0 ms max latency.",
                "4 records sent, 2.000000 records/sec (2.00 MB/sec), 25.00 ms avg latency, 40.00 ms max latency, "
                        + "30 ms 50th, 40 ms 95th, 40 ms 99th, 40 ms 99.9th."), lines());
    }

    @Test
    void steadyStateStatsSayWhenTheyStartAndLabelTheirTotal() {
        ProducerPerfStats steady = new ProducerPerfStats(2, 1000, true, out, time);
        steady.quiet();
        steady.record(5, 100, 1000);
        steady.record(7, 100, 2500);
        time.advance(2500);
        steady.printTotal();
        assertEquals(List.of("In steady state.",
                "2 steady state records sent, 0.800000 records/sec (0.00 MB/sec), 6.00 ms avg latency, 7.00 ms max latency, "
                        + "7 ms 50th, 7 ms 95th, 7 ms 99th, 7 ms 99.9th."), lines());
    }

    @Test
    void moreThanHalfAMillionRecordsAreSampledForThePercentiles() {
        // 1,000,000 records keep every second latency: 1, 3, 5, 7, 9 of the ten below.
        ProducerPerfStats stats = new ProducerPerfStats(1_000_000, 60_000, false, out, time);
        for (int latency = 1; latency <= 10; latency++) {
            stats.record(latency, 1, 0);
        }
        time.advance(1000);
        stats.printTotal();
        assertEquals(List.of("10 records sent, 10.000000 records/sec (0.00 MB/sec), 5.50 ms avg latency, 10.00 ms max "
                + "latency, 5 ms 50th, 9 ms 95th, 9 ms 99th, 9 ms 99.9th."), lines());
    }

    @Test
    void throttleSleepsOnlyWhenAheadOfTheRate() {
        Throttle throttle = new Throttle(1000, time);
        throttle.pace(1);
        assertEquals(0, time.milliseconds(), "1 ms ahead is below the least sleep");
        throttle.pace(10);
        assertEquals(10, time.milliseconds(), "record 10 is due at 10 ms");
        throttle.pace(5);
        assertEquals(10, time.milliseconds(), "behind the rate: no sleep");

        Throttle unlimited = new Throttle(-1, time);
        unlimited.pace(1_000_000);
        assertEquals(10, time.milliseconds());
    }

    private List<String> lines() {
        return List.of(bytes.toString(StandardCharsets.UTF_8).split("\n"));
    }
}
