package io.tideline.store.manager;

import io.tideline.common.TopicPartition;
import io.tideline.common.io.FileUtils;
import io.tideline.common.time.Scheduler;
import io.tideline.store.segment.LogFileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Partition directories renamed for deletion (docs/behaviours.md B131): {@code <topic>-<partition>.<id>.deleted},
 * where {@code <id>} is the topic id the log had. The {@code .deleted} suffix is the one deleted segments get, and
 * such a name is never read as a partition directory (the part after its last '-' is not a number). The tree is
 * unlinked after {@code file.delete.delay.ms}, as deleted segments are, so reads still in flight finish first; one
 * found when the store starts is left over from a crash and is removed at once (nothing holds it open).
 *
 * <p>Thread-safety: safe for concurrent use (no state of its own).
 */
final class DeletedLogDirs {
    private static final Logger log = LoggerFactory.getLogger(DeletedLogDirs.class);

    private final Scheduler scheduler;

    DeletedLogDirs(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    static boolean isDeletedDirName(String name) {
        return name.endsWith(LogFileNames.DELETED_SUFFIX);
    }

    /** The name a partition directory of topic id {@code topicId} gets when it is renamed for deletion. */
    static String deletedDirName(TopicPartition tp, String topicId) {
        return tp.directoryName() + "." + topicId + LogFileNames.DELETED_SUFFIX;
    }

    /**
     * Renames {@code partitionDir} for deletion (the rename fsynced in the log dir) and schedules its removal
     * after {@code delayMs}.
     *
     * @return the new path
     */
    Path renameAndScheduleRemoval(Path partitionDir, TopicPartition tp, String topicId, long delayMs)
            throws IOException {
        Path target = partitionDir.resolveSibling(deletedDirName(tp, topicId));
        // A leftover of the same name can only be an older copy of the same old log: it goes first.
        FileUtils.deleteRecursively(target);
        FileUtils.atomicMoveWithFallback(partitionDir, target);
        scheduler.scheduleOnce("delete-log-dir-" + target.getFileName(), () -> remove(target), Math.max(0, delayMs));
        return target;
    }

    /** Removes the directories renamed for deletion that a previous run left in {@code logDir}. */
    List<Path> removeLeftovers(Path logDir) throws IOException {
        List<Path> removed = new ArrayList<>();
        try (Stream<Path> children = Files.list(logDir)) {
            for (Path child : (Iterable<Path>) children::iterator) {
                if (Files.isDirectory(child) && isDeletedDirName(child.getFileName().toString())) {
                    FileUtils.deleteRecursively(child);
                    removed.add(child);
                }
            }
        }
        if (!removed.isEmpty()) {
            FileUtils.fsyncDirectory(logDir);
            log.info("Removed {} partition directories left renamed for deletion in {}: {}", removed.size(), logDir,
                    removed);
        }
        return removed;
    }

    private static void remove(Path dir) {
        try {
            FileUtils.deleteRecursively(dir);
            log.info("Removed {}", dir);
        } catch (IOException e) {
            log.warn("Removing {} failed ({}); the next start removes it", dir, e.toString());
        }
    }
}
