package io.tideline.tools.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * The soak's samples and its verdict. A node is flat when, after the warm-up, each figure's mean over the
 * last minute stays within its bound of its mean over the first minute after the warm-up:
 * <ul>
 *   <li>heap after a full GC: at most 10% or 8 MiB more, whichever is larger (live data must not grow
 *       with the traffic that went through);</li>
 *   <li>resident set: at most 10% or 32 MiB more (JIT code, metaspace and mapped index pages settle);</li>
 *   <li>open file descriptors: at most 10% or 16 more (segments roll and are deleted all the time);</li>
 *   <li>threads: at most 4 more.</li>
 * </ul>
 * Not thread-safe; the soak's reporting thread owns it.
 */
final class SoakReport {
    private static final double MIB = 1024 * 1024;

    record Sample(long elapsedMs, ProcessStats stats) {
    }

    /** One figure's bound: growth allowed as a fraction of the first value, or this absolute amount. */
    private record Bound(String name, String unit, double scale, double fraction, double absolute,
                         ToDoubleFunction<ProcessStats> value) {
        double allowed(double first) {
            return Math.max(first * fraction, absolute);
        }
    }

    private static final List<Bound> BOUNDS = List.of(
            new Bound("heap after GC", "MiB", MIB, 0.10, 8 * MIB, s -> s.heapAfterGcBytes()),
            new Bound("RSS", "MiB", MIB, 0.10, 32 * MIB, s -> s.rssBytes()),
            new Bound("open fds", "", 1, 0.10, 16, s -> s.openFds()),
            new Bound("threads", "", 1, 0, 4, s -> s.threads()));

    private final long warmupMs;
    private final Map<Integer, List<Sample>> byNode = new TreeMap<>();

    SoakReport(long warmupMs) {
        this.warmupMs = warmupMs;
    }

    void add(int node, long elapsedMs, ProcessStats stats) {
        byNode.computeIfAbsent(node, n -> new ArrayList<>()).add(new Sample(elapsedMs, stats));
    }

    static String line(int node, long elapsedMs, ProcessStats s) {
        return String.format(Locale.ROOT, "[%5d s] node %d: heap after GC %7.1f MiB   RSS %7.1f MiB   fds %5d   threads %4d",
                elapsedMs / 1000, node, s.heapAfterGcBytes() / MIB, s.rssBytes() / MIB, s.openFds(), s.threads());
    }

    /**
     * Prints, per node and figure, the first and last minute's means after the warm-up, the max, the
     * bound and the verdict, as a markdown table; returns whether every node is flat.
     */
    boolean printVerdict(PrintStream out) {
        boolean allFlat = true;
        out.println("| node | figure | first minute after warm-up | last minute | max | allowed growth | verdict |");
        out.println("| --- | --- | --- | --- | --- | --- | --- |");
        for (Map.Entry<Integer, List<Sample>> e : byNode.entrySet()) {
            List<Sample> after = e.getValue().stream().filter(s -> s.elapsedMs() >= warmupMs).toList();
            if (after.size() < 2) {
                out.println("| " + e.getKey() + " | all | too few samples after the warm-up | | | | unknown |");
                allFlat = false;
                continue;
            }
            long firstEnd = after.get(0).elapsedMs() + 60_000;
            long lastStart = after.get(after.size() - 1).elapsedMs() - 60_000;
            List<Sample> first = after.stream().filter(s -> s.elapsedMs() < firstEnd).toList();
            List<Sample> last = after.stream().filter(s -> s.elapsedMs() > lastStart).toList();
            for (Bound b : BOUNDS) {
                double f = mean(first, b.value());
                double l = mean(last, b.value());
                double max = after.stream().mapToDouble(s -> b.value().applyAsDouble(s.stats())).max().orElse(0);
                boolean flat = l - f <= b.allowed(f);
                allFlat &= flat;
                out.printf(Locale.ROOT, "| %d | %s | %s | %s | %s | %s | %s |%n", e.getKey(), b.name(), fmt(f, b),
                        fmt(l, b), fmt(max, b), fmt(b.allowed(f), b), flat ? "flat" : "GREW by " + fmt(l - f, b));
            }
        }
        return allFlat;
    }

    private static double mean(List<Sample> samples, ToDoubleFunction<ProcessStats> value) {
        return samples.stream().mapToDouble(s -> value.applyAsDouble(s.stats())).average().orElse(0);
    }

    private static String fmt(double v, Bound b) {
        return b.unit().isEmpty() ? String.format(Locale.ROOT, "%.0f", v / b.scale())
                : String.format(Locale.ROOT, "%.1f %s", v / b.scale(), b.unit());
    }
}
