package io.tideline.cluster.nemesis;

/** A crash (kill -9 in one JVM): no controlled shutdown, logs released unflushed. {@link Restart} undoes it. */
public record Kill(int node) implements Operation {
    @Override
    public String kind() {
        return "kill";
    }

    @Override
    public void update(ClusterModel model) {
        model.takeDown(node, new Restart(node, true));
    }

    @Override
    public String apply(NemesisContext context) {
        context.cluster().kill(node);
        return "killed";
    }

    @Override
    public String toString() {
        return "kill " + node;
    }
}
