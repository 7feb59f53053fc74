package io.tideline.cluster.nemesis;

/**
 * One step of a nemesis sequence: a fault (cut a link, kill a node, ...), an undo of one (heal, restart), an
 * operator's action (DeleteRecords, a reassignment, a retention pass) or a wait. Each kind is one small
 * immutable class whose {@code toString()} is the step as the report prints it ("kill 2", "cut [3->1
 * replication]"), so a printed sequence reads as what was done.
 *
 * <p>A step has two effects, kept apart so the generator can plan a sequence without a cluster: on the
 * {@link ClusterModel} ({@link #update}: which nodes are down and which links broken, and the invariants that
 * go with them) and on the real cluster ({@link #apply}).
 */
public interface Operation {

    /** The kind counted in the report: "cut", "kill", "delete-records", ... */
    String kind();

    /**
     * What this step does to the model; throws {@link IllegalStateException} when it would break one of the
     * model's invariants (a majority of the quorum down, a node killed twice, a heal of a healthy link).
     */
    void update(ClusterModel model);

    /**
     * Applies the step to the cluster and returns what happened, one line for the report ("deleted 3
     * segments", "REASSIGNMENT_IN_PROGRESS"). Refusals the cluster gives as results are outcomes, not
     * exceptions; an exception means the step itself could not be carried out (a node that did not restart).
     */
    String apply(NemesisContext context) throws Exception;
}
