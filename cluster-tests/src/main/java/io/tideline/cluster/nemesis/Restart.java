package io.tideline.cluster.nemesis;

/**
 * Starts a killed or stopped node again over its directories, ports and proxies; returns once it serves.
 * {@code afterCrash} says which it was (the history checker lets a high watermark come back lower only after a
 * crash, docs/behaviours.md B77).
 */
public record Restart(int node, boolean afterCrash) implements Operation {
    @Override
    public String kind() {
        return "restart";
    }

    @Override
    public void update(ClusterModel model) {
        model.bringUp(node);
    }

    @Override
    public String apply(NemesisContext context) throws Exception {
        context.cluster().restart(node);
        return "restarted";
    }

    @Override
    public String toString() {
        return "restart " + node;
    }
}
