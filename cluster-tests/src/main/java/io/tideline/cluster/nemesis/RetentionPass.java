package io.tideline.cluster.nemesis;

/**
 * Runs one retention pass of a node's LogManager now, as its scheduler would: with the round's short
 * {@code retention.ms}, every segment older than that but the active one goes. Retention is local, so a pass
 * on a leader can delete past where a lagging follower is.
 */
public record RetentionPass(int node) implements Operation {
    @Override
    public String kind() {
        return "retention-pass";
    }

    @Override
    public void update(ClusterModel model) {
        model.requireNode(node);
    }

    @Override
    public String apply(NemesisContext context) {
        if (!context.cluster().isRunning(node)) {
            return "skipped: node down";
        }
        int deleted = context.cluster().node(node).logManager().cleanupLogs();
        return "deleted " + deleted + " segment(s)";
    }

    @Override
    public String toString() {
        return "retention pass on " + node;
    }
}
