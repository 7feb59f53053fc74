package io.tideline.cluster.nemesis;

import java.util.SortedMap;
import java.util.TreeMap;

/** Rounds, their seeds' range and the steps per kind over a whole nemesis run. Not thread-safe. */
public final class NemesisTally {
    private final SortedMap<String, Integer> counts = new TreeMap<>();
    private int rounds;
    private long acknowledged;
    private long lowestSeed = Long.MAX_VALUE;
    private long highestSeed = Long.MIN_VALUE;

    /** Counts one round that passed, with the acknowledged writes its checker counted. */
    public void add(NemesisReport report, long acknowledgedWrites) {
        rounds++;
        acknowledged += acknowledgedWrites;
        lowestSeed = Math.min(lowestSeed, report.seed());
        highestSeed = Math.max(highestSeed, report.seed());
        report.counts().forEach((kind, n) -> counts.merge(kind, n, Integer::sum));
    }

    public int rounds() {
        return rounds;
    }

    public SortedMap<String, Integer> counts() {
        return new TreeMap<>(counts);
    }

    @Override
    public String toString() {
        return rounds + " round(s) passed" + (rounds == 0 ? "" : ", seeds in [" + lowestSeed + ", " + highestSeed
                + "]") + ", " + acknowledged + " acknowledged writes checked, steps " + counts;
    }
}
