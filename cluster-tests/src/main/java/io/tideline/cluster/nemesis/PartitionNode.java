package io.tideline.cluster.nemesis;

/**
 * Cuts every link of a node, both ways: clients, replication and its Raft links, so it is out of the quorum too
 * (its broker is fenced once its session expires, and as a Raft leader it loses its followers) while it keeps
 * running and may still believe it leads. Counted as a node down for the quorum's majority; {@link HealPartition}
 * undoes it.
 */
public record PartitionNode(int node) implements Operation {
    @Override
    public String kind() {
        return "partition";
    }

    @Override
    public void update(ClusterModel model) {
        model.takeDown(node, new HealPartition(node));
    }

    @Override
    public String apply(NemesisContext context) {
        context.cluster().partition(node);
        return "partitioned";
    }

    @Override
    public String toString() {
        return "partition " + node + " from every other node and the clients";
    }
}
