package io.tideline.store.manager;

import io.tideline.store.checkpoint.OffsetCheckpointFile;
import io.tideline.store.dir.LogDirLock;
import io.tideline.store.segment.LogFileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One log dir as the manager holds it: its lock, its three checkpoint files and its clean-shutdown
 * marker. Not thread-safe; the manager serializes checkpoint writes per directory.
 */
final class LogDirectory implements AutoCloseable {
    final Path path;
    final LogDirLock lock;
    final OffsetCheckpointFile logStartOffsets;
    final OffsetCheckpointFile recoveryPoints;
    final OffsetCheckpointFile highWatermarks;
    final boolean hadCleanShutdown;

    LogDirectory(Path path, LogDirLock lock) {
        this.path = path;
        this.lock = lock;
        this.logStartOffsets = new OffsetCheckpointFile(path.resolve(LogFileNames.LOG_START_OFFSET_CHECKPOINT));
        this.recoveryPoints = new OffsetCheckpointFile(path.resolve(LogFileNames.RECOVERY_POINT_CHECKPOINT));
        this.highWatermarks = new OffsetCheckpointFile(path.resolve(LogFileNames.REPLICATION_OFFSET_CHECKPOINT));
        this.hadCleanShutdown = Files.exists(cleanShutdownMarker());
    }

    Path cleanShutdownMarker() {
        return path.resolve(LogFileNames.CLEAN_SHUTDOWN_MARKER);
    }

    /** Removed once the logs are loaded, so that a crash from now on is seen as unclean. */
    void clearCleanShutdownMarker() throws IOException {
        Files.deleteIfExists(cleanShutdownMarker());
    }

    void writeCleanShutdownMarker() throws IOException {
        io.tideline.common.io.FileUtils.writeAtomically(cleanShutdownMarker(), new byte[0]);
    }

    @Override
    public void close() {
        lock.close();
    }
}
