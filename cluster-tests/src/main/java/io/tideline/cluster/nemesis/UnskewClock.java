package io.tideline.cluster.nemesis;

import java.time.Duration;

/** Puts a node's wall clock right again ({@link SkewClock}'s undo). */
public record UnskewClock(int node) implements Operation {
    @Override
    public String kind() {
        return "unskew-clock";
    }

    @Override
    public void update(ClusterModel model) {
        model.unskewClock(node);
    }

    @Override
    public String apply(NemesisContext context) {
        context.cluster().skewClock(node, Duration.ZERO);
        return "put right";
    }

    @Override
    public String toString() {
        return "put " + node + "'s clock right";
    }
}
