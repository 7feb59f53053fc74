package io.tideline.cluster.nemesis;

import io.tideline.cluster.harness.LinkKind;
import java.time.Duration;
import java.util.Optional;

/**
 * Cuts the Raft links of whichever node leads the metadata quorum when the step runs (the active controller),
 * leaving its client and replication links alone: a leader that has lost its voters but still leads partitions
 * and still believes, for an election timeout, that it is the controller. The other voters elect a new one; the
 * old one must step down and must not fence, elect or change an ISR on its own.
 *
 * <p>A plan is made without a cluster, so the plan names a node ({@code planned}), which the model counts as
 * down; at run time the leader may be another node. Only the number of nodes down matters to the model's
 * invariants, so that is safe; the step's undo ({@link HealIsolatedLeader}) heals the node actually isolated.
 * If no node leads with every running node's agreement within {@link #FIND_LEADER}, the planned node is
 * isolated instead.
 */
public final class IsolateRaftLeader implements Operation {
    static final Duration FIND_LEADER = Duration.ofSeconds(5);

    private final int planned;
    private volatile int isolated = -1;

    public IsolateRaftLeader(int planned) {
        this.planned = planned;
    }

    public int planned() {
        return planned;
    }

    /** The node whose links this step cut, once it ran; the planned node before. */
    int isolated() {
        int node = isolated;
        return node < 0 ? planned : node;
    }

    @Override
    public String kind() {
        return "isolate-raft-leader";
    }

    @Override
    public void update(ClusterModel model) {
        model.takeDown(planned, new HealIsolatedLeader(this));
    }

    @Override
    public String apply(NemesisContext context) throws InterruptedException {
        long deadline = System.nanoTime() + FIND_LEADER.toNanos();
        Optional<Integer> leader = context.cluster().activeController();
        while (leader.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            leader = context.cluster().activeController();
        }
        int node = leader.orElse(planned);
        isolated = node;
        context.cluster().isolate(node, LinkKind.RAFT);
        return leader.isPresent() ? "isolated the quorum leader " + node : "no agreed quorum leader; isolated " + node;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IsolateRaftLeader other && other.planned == planned;
    }

    @Override
    public int hashCode() {
        return Integer.hashCode(planned) * 31 + 7;
    }

    @Override
    public String toString() {
        return "cut the Raft links of the quorum leader (planned as " + planned + ")";
    }
}
