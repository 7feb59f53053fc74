package io.tideline.replication.leader;

import java.util.List;
import java.util.Objects;

/**
 * An ISR change the leader asks the controller to commit (AlterPartition). {@code partitionEpoch} is the
 * epoch the proposal was computed against; the controller refuses it if the partition moved on.
 */
public record IsrProposal(List<Integer> newIsr, String reason, int partitionEpoch) {
    public static final String LAGGING = "LAGGING";
    public static final String CAUGHT_UP = "CAUGHT_UP";

    public IsrProposal {
        newIsr = List.copyOf(newIsr);
        Objects.requireNonNull(reason, "reason");
    }
}
