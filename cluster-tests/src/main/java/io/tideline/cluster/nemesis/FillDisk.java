package io.tideline.cluster.nemesis;

import io.tideline.testsupport.disk.SmallFileSystem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Fills the disk under a node's log dir (a small file system of its own, {@code SmallFileSystem}) until it is full, as
 * another process on the host would: the node's next segment write, index write or checkpoint fails with ENOSPC,
 * so its log dir goes offline and the controller moves its leaderships and ISR places away. Its metadata log is
 * on another disk, so it stays a voter. Counted as a node down; {@link FreeDisk} undoes it.
 */
public record FillDisk(int node) implements Operation {
    /** A disk larger than this is not a test disk: filling it would fill the host's. */
    static final long LARGEST_DISK = 1L << 30;

    @Override
    public String kind() {
        return "fill-disk";
    }

    @Override
    public void update(ClusterModel model) {
        model.takeDown(node, new FreeDisk(node));
    }

    @Override
    public String apply(NemesisContext context) throws IOException {
        Path logs = logDir(context, node);
        long total = Files.getFileStore(logs).getTotalSpace();
        if (total > LARGEST_DISK) {
            throw new IllegalStateException(logs + " is on a file system of " + total + " bytes, not a small test"
                    + " disk of at most " + LARGEST_DISK);
        }
        long written = SmallFileSystem.fill(logs);
        return "filled with " + (written >> 20) + " MiB";
    }

    static Path logDir(NemesisContext context, int node) {
        return context.cluster().dataDir(node).resolve("logs");
    }

    @Override
    public String toString() {
        return "fill the disk of " + node;
    }
}
