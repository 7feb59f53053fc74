package io.tideline.cluster.nemesis;

/** Ends a {@link Pause}: the held bytes are delivered and the node's links carry on. */
public record Resume(int node) implements Operation {
    @Override
    public String kind() {
        return "resume";
    }

    @Override
    public void update(ClusterModel model) {
        model.bringUp(node);
    }

    @Override
    public String apply(NemesisContext context) {
        context.cluster().resume(node);
        return "resumed";
    }

    @Override
    public String toString() {
        return "resume " + node;
    }
}
