package io.tideline.cluster.nemesis;

import java.time.Duration;

/**
 * Sets one node's wall clock {@code offsetMs} ahead of the others' (behind when negative), as a host whose clock
 * drifted or was set by hand: record timestamps it stamps, its retention and, as the controller, its session
 * deadlines all read that clock. {@link UnskewClock} puts it right.
 */
public record SkewClock(int node, long offsetMs) implements Operation {
    @Override
    public String kind() {
        return "skew-clock";
    }

    @Override
    public void update(ClusterModel model) {
        model.skewClock(node, new UnskewClock(node));
    }

    @Override
    public String apply(NemesisContext context) {
        context.cluster().skewClock(node, Duration.ofMillis(offsetMs));
        return "skewed";
    }

    @Override
    public String toString() {
        return "skew " + node + "'s clock by " + (offsetMs >= 0 ? "+" : "") + offsetMs + " ms";
    }
}
