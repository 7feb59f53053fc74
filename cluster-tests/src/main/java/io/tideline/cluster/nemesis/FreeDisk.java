package io.tideline.cluster.nemesis;

import io.tideline.testsupport.disk.SmallFileSystem;

/**
 * {@link FillDisk}'s undo, as an operator does it: deletes the filler, then restarts the node, since a log dir
 * taken offline stays offline until the broker starts again. The node is killed rather than stopped: a broker
 * whose only log dir failed has nothing to shut down in order. Marked in the history as a restart after a crash.
 */
public record FreeDisk(int node) implements Operation {
    @Override
    public String kind() {
        return "free-disk";
    }

    @Override
    public void update(ClusterModel model) {
        model.bringUp(node);
    }

    @Override
    public String apply(NemesisContext context) throws Exception {
        SmallFileSystem.free(FillDisk.logDir(context, node));
        context.cluster().kill(node);
        context.cluster().restart(node);
        return "freed and restarted";
    }

    @Override
    public String toString() {
        return "free the disk of " + node + " and restart it";
    }
}
