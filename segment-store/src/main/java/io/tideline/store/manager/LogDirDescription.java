package io.tideline.store.manager;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.store.dir.DeletedOpenFile;
import io.tideline.store.retention.SegmentDeleter.HeldOpen;
import io.tideline.store.retention.SegmentDeleter.PendingUnlink;
import java.nio.file.Path;
import java.util.List;

/**
 * One log dir of this store as Kafka's DescribeLogDirs reports it, with what Tideline adds: per
 * partition its offsets, its segments waiting for their unlink and its files unlinked while a reader
 * held them; per dir the files under it that the process still holds although they are unlinked (the
 * /proc scan of docs/behaviours.md B19, which also sees files of partitions no longer here).
 *
 * @param error NONE, or KAFKA_STORAGE_ERROR for a dir that failed (it then lists nothing)
 */
public record LogDirDescription(Path logDir, Errors error, List<Replica> partitions,
                                List<DeletedOpenFile> deletedOpenFiles) {

    public LogDirDescription {
        partitions = List.copyOf(partitions);
        deletedOpenFiles = List.copyOf(deletedOpenFiles);
    }

    /**
     * One replica in the dir.
     *
     * @param sizeBytes the bytes of its segments' {@code .log} files (Kafka's "size")
     * @param offsetLag Kafka's: how far the log end is behind the high watermark, max(0, HW - LEO); 0 here,
     *                  as there are no future replicas (moves between dirs of one broker)
     */
    public record Replica(TopicPartition topicPartition, long sizeBytes, long offsetLag, boolean isFuture,
                          int segmentCount, long logStartOffset, long logEndOffset, long highWatermark,
                          List<PendingUnlink> pendingUnlink, List<HeldOpen> deletedOpen) {

        public Replica {
            pendingUnlink = List.copyOf(pendingUnlink);
            deletedOpen = List.copyOf(deletedOpen);
        }
    }
}
