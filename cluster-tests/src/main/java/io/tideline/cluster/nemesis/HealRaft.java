package io.tideline.cluster.nemesis;

import io.tideline.cluster.harness.LinkKind;

/** Heals a node's Raft links, both ways ({@link IsolateRaft}'s undo); its other links stay as they are. */
public record HealRaft(int node) implements Operation {
    @Override
    public String kind() {
        return "heal-raft";
    }

    @Override
    public void update(ClusterModel model) {
        model.bringUp(node);
    }

    @Override
    public String apply(NemesisContext context) {
        context.cluster().network().heal(context.cluster().linksOf(node, LinkKind.RAFT));
        return "healed";
    }

    @Override
    public String toString() {
        return "heal the Raft links of " + node;
    }
}
