package io.tideline.cluster.nemesis;

/** The orderly stop (SIGTERM): controlled shutdown, logs flushed and closed. {@link Restart} undoes it. */
public record Stop(int node) implements Operation {
    @Override
    public String kind() {
        return "stop";
    }

    @Override
    public void update(ClusterModel model) {
        model.takeDown(node, new Restart(node, false));
    }

    @Override
    public String apply(NemesisContext context) {
        context.cluster().stop(node);
        return "stopped";
    }

    @Override
    public String toString() {
        return "stop " + node;
    }
}
