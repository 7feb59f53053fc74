package io.tideline.cluster.nemesis;

import java.util.List;

/**
 * Everything a seed decides about a round: the partition's first replicas, the steps, and the steps that heal
 * what is left broken after them (nodes back up, links healed), in the order they run.
 */
public record NemesisPlan(long seed, List<Integer> initialReplicas, List<Operation> steps, List<Operation> healing) {
    public NemesisPlan {
        initialReplicas = List.copyOf(initialReplicas);
        steps = List.copyOf(steps);
        healing = List.copyOf(healing);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("seed " + seed + ": replicas " + initialReplicas + ", " + steps.size()
                + " steps, then " + healing.size() + " to heal\n");
        int i = 1;
        for (Operation step : steps) {
            b.append("  ").append(i++).append(". ").append(step).append('\n');
        }
        for (Operation step : healing) {
            b.append("  ").append(i++).append(". ").append(step).append(" (heal)\n");
        }
        return b.toString();
    }
}
