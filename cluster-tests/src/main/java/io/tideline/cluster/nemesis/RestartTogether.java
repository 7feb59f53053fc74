package io.tideline.cluster.nemesis;

import java.util.List;

/**
 * Starts crashed nodes again in parallel ({@link KillTogether}'s undo): together they hold the majority, so none
 * of them could finish starting alone.
 */
public record RestartTogether(List<Integer> nodes) implements Operation {
    public RestartTogether {
        nodes = List.copyOf(nodes);
    }

    @Override
    public String kind() {
        return "restart-together";
    }

    @Override
    public void update(ClusterModel model) {
        nodes.forEach(model::bringUp);
    }

    @Override
    public String apply(NemesisContext context) throws Exception {
        context.cluster().restartTogether(nodes);
        return "restarted";
    }

    @Override
    public String toString() {
        return "restart " + nodes + " together";
    }
}
