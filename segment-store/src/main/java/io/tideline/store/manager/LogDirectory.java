package io.tideline.store.manager;

import io.tideline.store.checkpoint.OffsetCheckpointFile;
import io.tideline.store.dir.LogDirLock;
import io.tideline.store.segment.LogFileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

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
    /** What the directory says about the previous run, read before this run writes anything but the lock. */
    final PreviousShutdown previousShutdown;

    /** How the previous run that used a log dir ended, as far as the directory tells. */
    enum PreviousShutdown {
        /** No previous run: nothing the store writes is there (a first start, or a wiped dir). */
        NONE("new directory"),
        /** The clean-shutdown marker is there: recovery is skipped. */
        CLEAN("after a clean shutdown"),
        /** A previous run left data but no marker: logs are recovered from their recovery points. */
        UNCLEAN("after an unclean shutdown");

        private final String description;

        PreviousShutdown(String description) {
            this.description = description;
        }

        /** For the "Loaded N logs from DIR (...)" start-up line. */
        String description() {
            return description;
        }
    }

    LogDirectory(Path path, LogDirLock lock) throws IOException {
        this.path = path;
        this.lock = lock;
        this.logStartOffsets = new OffsetCheckpointFile(path.resolve(LogFileNames.LOG_START_OFFSET_CHECKPOINT));
        this.recoveryPoints = new OffsetCheckpointFile(path.resolve(LogFileNames.RECOVERY_POINT_CHECKPOINT));
        this.highWatermarks = new OffsetCheckpointFile(path.resolve(LogFileNames.REPLICATION_OFFSET_CHECKPOINT));
        this.hadCleanShutdown = Files.exists(cleanShutdownMarker());
        this.previousShutdown = hadCleanShutdown ? PreviousShutdown.CLEAN
                : holdsStoreFiles(path) ? PreviousShutdown.UNCLEAN : PreviousShutdown.NONE;
    }

    /**
     * Whether a previous run wrote here: meta.properties (stamped first thing at every start), a checkpoint,
     * or any other entry apart from the lock this run just took. Files of other tools at the top (e.g. a
     * fresh file system's lost+found) make a new dir count as used; that only changes a log line.
     */
    private static boolean holdsStoreFiles(Path path) throws IOException {
        try (Stream<Path> entries = Files.list(path)) {
            return entries.map(p -> p.getFileName().toString())
                    .anyMatch(name -> !name.equals(LogDirLock.LOCK_FILE_NAME));
        }
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
