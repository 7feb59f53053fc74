package io.tideline.store.manager;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.store.dir.DeletedOpenFile;
import io.tideline.store.dir.DeletedOpenFilesScanner;
import io.tideline.store.log.Log;
import io.tideline.store.retention.RetentionExplanation;
import io.tideline.store.retention.SegmentDeleter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What the store tells an operator about its log dirs: each dir with its replicas (DescribeLogDirs), why a
 * partition's segments are still on disk, and the files deleted but still held open. Reads the manager's live
 * maps; takes no lock.
 */
final class LogDirReports {
    private final DeletedOpenFilesScanner deletedFilesScanner = new DeletedOpenFilesScanner();
    private final List<LogDirectory> dirs;
    private final Set<Path> offlineDirs;
    private final Map<TopicPartition, Log> logs;
    private final Map<TopicPartition, LogDirectory> logDirOf;
    private final SegmentDeleter deleter;

    LogDirReports(List<LogDirectory> dirs, Set<Path> offlineDirs, Map<TopicPartition, Log> logs,
                  Map<TopicPartition, LogDirectory> logDirOf, SegmentDeleter deleter) {
        this.dirs = dirs;
        this.offlineDirs = offlineDirs;
        this.logs = logs;
        this.logDirOf = logDirOf;
        this.deleter = deleter;
    }

    List<DeletedOpenFile> deletedButOpenFiles(List<Path> paths) {
        return deletedFilesScanner.scan(paths);
    }

    /** See {@link LogManager#explainRetention}. */
    Optional<RetentionExplanation> explainRetention(TopicPartition tp, long nowMs, long nextPassMs, long intervalMs) {
        Log l = logs.get(tp);
        LogDirectory d = logDirOf.get(tp);
        if (l == null || d == null) {
            return Optional.empty();
        }
        return Optional.of(RetentionExplainer.explain(l, d.path, deleter, nowMs, nextPassMs, intervalMs));
    }

    /** See {@link LogManager#describeLogDirs}. */
    List<LogDirDescription> describeLogDirs(Predicate<TopicPartition> include) {
        List<LogDirDescription> out = new ArrayList<>();
        for (LogDirectory d : dirs) {
            if (offlineDirs.contains(d.path)) {
                out.add(new LogDirDescription(d.path, Errors.KAFKA_STORAGE_ERROR, List.of(), List.of()));
                continue;
            }
            List<LogDirDescription.Replica> replicas = new ArrayList<>();
            logDirOf.forEach((tp, dir) -> {
                Log l = logs.get(tp);
                if (dir == d && l != null && include.test(tp)) {
                    long hw = l.highWatermark();
                    long leo = l.logEndOffset();
                    replicas.add(new LogDirDescription.Replica(tp, l.size(), Math.max(0, hw - leo), false,
                            l.numberOfSegments(), l.logStartOffset(), leo, hw, deleter.pending(tp),
                            deleter.heldOpen(tp)));
                }
            });
            replicas.sort(Comparator.comparing(LogDirDescription.Replica::topicPartition));
            out.add(new LogDirDescription(d.path, Errors.NONE, replicas, deletedFilesScanner.scan(List.of(d.path))));
        }
        return out;
    }
}
