package io.tideline.store.manager;

import io.tideline.common.TopicPartition;
import io.tideline.store.checkpoint.OffsetCheckpointFile;
import io.tideline.store.log.Log;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the three offset checkpoints of each log dir (log start offsets, recovery points, high watermarks) from
 * the logs in it. Thread-safe: writes of one dir are serialized on the dir.
 */
final class LogCheckpoints {
    /** Under {@link LogManager}'s name: its lines, whichever class writes them. */
    private static final Logger log = LoggerFactory.getLogger(LogManager.class);

    private final Map<TopicPartition, Log> logs;
    private final Map<TopicPartition, LogDirectory> logDirOf;
    /** Takes a dir offline: (dir, reason). */
    private final BiConsumer<Path, String> markLogDirOffline;

    LogCheckpoints(Map<TopicPartition, Log> logs, Map<TopicPartition, LogDirectory> logDirOf,
                   BiConsumer<Path, String> markLogDirOffline) {
        this.logs = logs;
        this.logDirOf = logDirOf;
        this.markLogDirOffline = markLogDirOffline;
    }

    void writeLogStartOffsets(List<LogDirectory> dirs) {
        for (LogDirectory dir : dirs) {
            write(dir, dir.logStartOffsets, Log::logStartOffset);
        }
    }

    void writeRecoveryPointsAndHighWatermarks(List<LogDirectory> dirs) {
        for (LogDirectory dir : dirs) {
            if (write(dir, dir.recoveryPoints, Log::recoveryPoint)) {
                write(dir, dir.highWatermarks, Log::highWatermark);
            }
        }
    }

    /**
     * Writes one checkpoint of {@code dir}; false when the write failed, and then the dir is offline: a
     * checkpoint that cannot be written is a disk fault like a failed append (docs/behaviours.md B140), and a
     * dir left online would get a clean-shutdown marker over stale checkpoints.
     */
    boolean write(LogDirectory dir, OffsetCheckpointFile file, ToLongFunction<Log> value) {
        try {
            // The offsets are read under the dir's lock too: two writers (the periodic one and a DeleteRecords)
            // that read outside it could write in the reverse order, the older offsets last, and a crash then
            // would bring back a start offset already moved past (B78).
            synchronized (dir) {
                Map<TopicPartition, Long> offsets = new HashMap<>();
                logDirOf.forEach((tp, d) -> {
                    Log l = logs.get(tp);
                    if (d == dir && l != null) {
                        offsets.put(tp, value.applyAsLong(l));
                    }
                });
                file.write(offsets);
            }
            return true;
        } catch (ClosedByInterruptException e) {
            // The node is stopping and interrupted this thread (B146): the stop writes the checkpoints again.
            log.warn("Writing {} was interrupted; it is not written, and log dir {} stays online", file, dir.path);
            return false;
        } catch (IOException | UncheckedIOException e) {
            log.error("Writing {} failed; taking log dir {} offline", file, dir.path, e);
            // Outside the dir's lock: taking a dir offline takes the manager's, and close() holds that one
            // while it writes checkpoints.
            markLogDirOffline.accept(dir.path, "writing " + file.file().getFileName() + " failed: " + e);
            return false;
        }
    }
}
