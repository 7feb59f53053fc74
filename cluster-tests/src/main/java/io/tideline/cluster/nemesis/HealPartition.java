package io.tideline.cluster.nemesis;

/**
 * Heals every link of a node ({@link PartitionNode}'s undo). It heals all of them, so a replication link of that
 * node the model still counts as cut from an earlier step is healed too; that step's own heal later is then a
 * heal of a healthy link, which the proxy takes as a no-op.
 */
public record HealPartition(int node) implements Operation {
    @Override
    public String kind() {
        return "heal-partition";
    }

    @Override
    public void update(ClusterModel model) {
        model.bringUp(node);
    }

    @Override
    public String apply(NemesisContext context) {
        context.cluster().heal(node);
        return "healed";
    }

    @Override
    public String toString() {
        return "heal the partition of " + node;
    }
}
