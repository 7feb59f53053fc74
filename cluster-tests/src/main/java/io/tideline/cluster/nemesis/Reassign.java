package io.tideline.cluster.nemesis;

import io.tideline.client.ReassignmentResult;
import io.tideline.common.errors.TidelineException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * alterPartitionReassignments of the round's partition to {@code replicas} (the first the preferred leader). The
 * move runs in the cluster after the call returns; one to a node that is down stays in progress until it is
 * back, and a new target replaces a move in progress (docs/behaviours.md B65).
 */
public record Reassign(List<Integer> replicas) implements Operation {
    public Reassign {
        replicas = List.copyOf(replicas);
    }

    @Override
    public String kind() {
        return "reassign";
    }

    @Override
    public void update(ClusterModel model) {
        replicas.forEach(model::requireNode);
    }

    @Override
    public String apply(NemesisContext context) {
        try {
            ReassignmentResult r = context.admin()
                    .alterPartitionReassignments(Map.of(context.partition(), Optional.of(replicas)))
                    .get(context.partition());
            return r.isSuccess() ? "accepted" : r.error() + " " + r.message();
        } catch (TidelineException e) {
            return e.error() + " " + e.getMessage();
        }
    }

    @Override
    public String toString() {
        return "reassign to " + replicas;
    }
}
