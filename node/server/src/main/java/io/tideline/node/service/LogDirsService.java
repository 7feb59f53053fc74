package io.tideline.node.service;

import io.tideline.common.TopicPartition;
import io.tideline.store.manager.LogDirDescription;
import io.tideline.store.manager.LogManager;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * DescribeLogDirs for this broker's own dirs (Kafka's: each broker answers for its own dirs, so clients ask every
 * broker they want, B61): per dir its error, per replica its size, offset lag and offsets. Reads the store only.
 * Stateless; thread-safe.
 */
public final class LogDirsService {
    private final LogManager logManager;

    public LogDirsService(LogManager logManager) {
        this.logManager = Objects.requireNonNull(logManager, "logManager");
    }

    /** Every dir of this broker, with the replicas {@code wanted} accepts. */
    public List<LogDirDescription> describeLogDirs(Predicate<TopicPartition> wanted) {
        return logManager.describeLogDirs(wanted);
    }
}
