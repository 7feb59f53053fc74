package io.tideline.client;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import java.util.List;
import java.util.Optional;

/**
 * One broker's answer to describeLogDirs (Kafka's DescribeLogDirs), or why there is none: {@code error}
 * is BROKER_NOT_AVAILABLE or REQUEST_TIMED_OUT when the broker did not answer, and {@code logDirs} is then
 * empty. Times are epoch milliseconds.
 */
public record BrokerLogDirs(int brokerId, Errors error, String message, List<LogDir> logDirs) {

    public BrokerLogDirs {
        logDirs = List.copyOf(logDirs);
    }

    public boolean answered() {
        return error == Errors.NONE;
    }

    /** A log dir: NONE, or KAFKA_STORAGE_ERROR when it failed (then it lists nothing). */
    public record LogDir(String path, Errors error, String message, List<Replica> replicas,
                         List<DeletedFile> deletedOpenFiles) {
        public LogDir {
            replicas = List.copyOf(replicas);
            deletedOpenFiles = List.copyOf(deletedOpenFiles);
        }
    }

    /**
     * A replica in a log dir: Kafka's size, offsetLag and isFuture, then Tideline's offsets, segments
     * waiting for their unlink ({@code atMs}: when) and segments unlinked while a reader still holds
     * them ({@code atMs}: when they were unlinked), and the cleaner's view without segments (B193; empty when
     * the broker could not evaluate it, or is of a version that does not answer it).
     */
    public record Replica(TopicPartition partition, long sizeBytes, long offsetLag, boolean isFuture, int segmentCount,
                          long logStartOffset, long logEndOffset, long highWatermark, List<SegmentFile> pendingUnlink,
                          List<SegmentFile> deletedOpen, Optional<LogCompaction> compaction) {
        public Replica {
            pendingUnlink = List.copyOf(pendingUnlink);
            deletedOpen = List.copyOf(deletedOpen);
        }
    }

    public record SegmentFile(long baseOffset, long sizeBytes, long atMs, String file) {
    }

    /** A file under the dir the broker holds open although it is unlinked; {@code holder} fd, mmap or fd+mmap. */
    public record DeletedFile(String path, long bytes, String holder) {
    }
}
