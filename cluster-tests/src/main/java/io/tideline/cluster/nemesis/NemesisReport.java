package io.tideline.cluster.nemesis;

import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/** A round as it ran: its seed, every step with its outcome, and how many steps of each kind (waits aside). */
public record NemesisReport(long seed, List<NemesisRunner.Step> steps) {
    public NemesisReport {
        steps = List.copyOf(steps);
    }

    /** Steps per kind ("cut" = 3, "kill" = 1, ...), waits not counted. */
    public SortedMap<String, Integer> counts() {
        SortedMap<String, Integer> counts = new TreeMap<>();
        for (NemesisRunner.Step step : steps) {
            String kind = step.operation().kind();
            if (!kind.equals("wait")) {
                counts.merge(kind, 1, Integer::sum);
            }
        }
        return counts;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("nemesis seed " + seed + ": " + steps.size() + " steps " + counts() + "\n");
        for (NemesisRunner.Step step : steps) {
            b.append("  ").append(step).append('\n');
        }
        return b.toString();
    }
}
