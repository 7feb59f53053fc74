package io.tideline.cluster.nemesis;

import io.tideline.cluster.harness.LinkKind;

/** {@link IsolateRaftLeader}'s undo: heals the Raft links of the node that step actually isolated. */
public record HealIsolatedLeader(IsolateRaftLeader isolation) implements Operation {
    @Override
    public String kind() {
        return "heal-raft";
    }

    @Override
    public void update(ClusterModel model) {
        model.bringUp(isolation.planned());
    }

    @Override
    public String apply(NemesisContext context) {
        int node = isolation.isolated();
        context.cluster().network().heal(context.cluster().linksOf(node, LinkKind.RAFT));
        return "healed " + node;
    }

    @Override
    public String toString() {
        return "heal the Raft links of the isolated quorum leader";
    }
}
