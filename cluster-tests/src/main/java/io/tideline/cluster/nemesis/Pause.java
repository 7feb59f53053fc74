package io.tideline.cluster.nemesis;

/**
 * Pauses a node: every link to and from it held (nothing crosses, nothing is lost, connections stay open), what
 * the others see of a stopped process; ClusterHarness.pause says how it differs from SIGSTOP. {@link Resume}
 * undoes it. Counted as a node down for the quorum's majority.
 */
public record Pause(int node) implements Operation {
    @Override
    public String kind() {
        return "pause";
    }

    @Override
    public void update(ClusterModel model) {
        model.takeDown(node, new Resume(node));
    }

    @Override
    public String apply(NemesisContext context) {
        context.cluster().pause(node);
        return "paused";
    }

    @Override
    public String toString() {
        return "pause " + node;
    }
}
