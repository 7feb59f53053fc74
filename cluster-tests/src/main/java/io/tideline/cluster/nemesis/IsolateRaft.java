package io.tideline.cluster.nemesis;

import io.tideline.cluster.harness.LinkKind;

/**
 * Cuts only a node's Raft links, both ways: its voter and its controller client lose the quorum, while its
 * clients and its replication links still work, so as a broker it keeps serving what it leads until its session
 * expires and the controller fences it. Counted as a node down for the quorum's majority; {@link HealRaft}
 * undoes it.
 */
public record IsolateRaft(int node) implements Operation {
    @Override
    public String kind() {
        return "isolate-raft";
    }

    @Override
    public void update(ClusterModel model) {
        model.takeDown(node, new HealRaft(node));
    }

    @Override
    public String apply(NemesisContext context) {
        context.cluster().isolate(node, LinkKind.RAFT);
        return "cut from the quorum";
    }

    @Override
    public String toString() {
        return "cut the Raft links of " + node;
    }
}
