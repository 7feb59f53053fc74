package io.tideline.tools.cli;

import io.tideline.common.time.Time;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;

/**
 * The figures {@code perf produce} prints, computed as Kafka 4.4's {@code ProducerPerformance} computes
 * them so that the two tools' lines mean the same:
 *
 * <ul>
 *   <li>a latency is the whole milliseconds from just before {@code send()} to the record's answer,
 *       including any wait for room in the send window;</li>
 *   <li>every reporting interval (checked when an answer arrives) one window line:
 *       {@code 947 records sent, 472.8 records/sec (0.46 MB/sec), 1222.4 ms avg latency, 1885.0 ms max latency.};</li>
 *   <li>at the end one total line over the time since these stats were created:
 *       {@code 50000 records sent, 2336.666978 records/sec (2.28 MB/sec), 11120.88 ms avg latency, 16682.00 ms
 *       max latency, 11781 ms 50th, 16197 ms 95th, 16553 ms 99th, 16673 ms 99.9th.} ("50000 steady state records sent" for
 *       the records after --warmup-records);</li>
 *   <li>percentiles over at most about 500,000 sampled latencies (every n-th answer when there are more
 *       records), each the sorted sample at index {@code (int) (p * samples)};</li>
 *   <li>MB is 2^20 bytes of record values, failed records are not counted.</li>
 * </ul>
 *
 * <p>Thread-safe: answers are recorded on the producer's thread (or on the sending thread when a record
 * fails at once) while the sending thread reads the totals.
 */
final class ProducerPerfStats {
    /** The most latencies kept for the percentiles; more records are sampled down to this. */
    private static final long MAX_SAMPLES = 500_000;
    private static final double MIB = 1024.0 * 1024.0;

    private final PrintStream out;
    private final Time time;
    private final long startMs;
    private final int[] latencies;
    private final long sampling;
    private final long reportingIntervalMs;
    private final boolean steadyState;
    private boolean quiet;
    private long answers;
    private int samples;
    private long count;
    private long bytes;
    private int maxLatency;
    private long totalLatency;
    private long windowStartMs;
    private long windowCount;
    private int windowMaxLatency;
    private long windowTotalLatency;
    private long windowBytes;

    /**
     * @param steadyState true for the stats of the records after the warm-up: their total line says
     *                    "steady state", and the first interval they complete prints "In steady state."
     */
    ProducerPerfStats(long numRecords, long reportingIntervalMs, boolean steadyState, PrintStream out, Time time) {
        this.out = out;
        this.time = time;
        this.startMs = time.milliseconds();
        this.windowStartMs = startMs;
        this.sampling = numRecords / Math.min(numRecords, MAX_SAMPLES);
        this.latencies = new int[(int) (numRecords / sampling) + 1];
        this.reportingIntervalMs = reportingIntervalMs;
        this.steadyState = steadyState;
    }

    /** No window lines: the warm-up's stats print them while the steady-state stats run beside them. */
    synchronized void quiet() {
        quiet = true;
    }

    synchronized void record(int latencyMs, int recordBytes, long nowMs) {
        count++;
        bytes += recordBytes;
        totalLatency += latencyMs;
        maxLatency = Math.max(maxLatency, latencyMs);
        windowCount++;
        windowBytes += recordBytes;
        windowTotalLatency += latencyMs;
        windowMaxLatency = Math.max(windowMaxLatency, latencyMs);
        if (answers % sampling == 0 && samples < latencies.length) {
            latencies[samples++] = latencyMs;
        }
        answers++;
        if (nowMs - windowStartMs >= reportingIntervalMs) {
            if (steadyState && count == windowCount) {
                out.println("In steady state.");
            }
            if (!quiet) {
                printWindow(nowMs);
            }
            windowStartMs = nowMs;
            windowCount = 0;
            windowMaxLatency = 0;
            windowTotalLatency = 0;
            windowBytes = 0;
        }
    }

    synchronized long count() {
        return count;
    }

    private void printWindow(long nowMs) {
        double elapsedMs = nowMs - windowStartMs;
        out.printf(Locale.ROOT, "%d records sent, %.1f records/sec (%.2f MB/sec), %.1f ms avg latency, %.1f ms max latency.%n",
                windowCount, 1000.0 * windowCount / elapsedMs, 1000.0 * windowBytes / elapsedMs / MIB,
                windowTotalLatency / (double) windowCount, (double) windowMaxLatency);
    }

    synchronized void printTotal() {
        double elapsedMs = time.milliseconds() - startMs;
        int[] p = percentiles(0.5, 0.95, 0.99, 0.999);
        out.printf(Locale.ROOT, "%d%s records sent, %f records/sec (%.2f MB/sec), %.2f ms avg latency, %.2f ms max latency, "
                        + "%d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th.%n",
                count, steadyState ? " steady state" : "", 1000.0 * count / elapsedMs, 1000.0 * bytes / elapsedMs / MIB,
                totalLatency / (double) count, (double) maxLatency, p[0], p[1], p[2], p[3]);
    }

    private int[] percentiles(double... ps) {
        Arrays.sort(latencies, 0, samples);
        int[] values = new int[ps.length];
        for (int i = 0; i < ps.length; i++) {
            values[i] = latencies[(int) (ps[i] * samples)];
        }
        return values;
    }
}
