package io.tideline.cluster.nemesis;

import java.util.List;

/**
 * Crashes several nodes at once, more than the quorum can lose: the metadata quorum has no majority, so no
 * leader can be elected, no ISR can change and no broker can register until {@link RestartTogether} brings them
 * back. Acknowledged records must survive it as they survive single crashes.
 */
public record KillTogether(List<Integer> nodes) implements Operation {
    public KillTogether {
        nodes = List.copyOf(nodes);
    }

    @Override
    public String kind() {
        return "kill-together";
    }

    @Override
    public void update(ClusterModel model) {
        model.loseQuorum(nodes, new RestartTogether(nodes));
    }

    @Override
    public String apply(NemesisContext context) {
        nodes.forEach(context.cluster()::kill);
        return "killed; the quorum has no majority";
    }

    @Override
    public String toString() {
        return "kill " + nodes + " at once";
    }
}
