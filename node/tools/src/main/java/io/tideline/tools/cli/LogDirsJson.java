package io.tideline.tools.cli;

import io.tideline.client.BrokerLogDirs;
import io.tideline.client.LogCompaction;
import io.tideline.client.ReplicaRetention;
import io.tideline.common.errors.Errors;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The {@code --output json} documents of {@code log-dirs --describe} and {@code explain-retention}
 * (docs/cli.md). The log-dirs document is Kafka's ({@code brokers[].logDirs[].partitions[]} with
 * {@code partition}, {@code size}, {@code offsetLag}, {@code isFuture}, and {@code version} 1); every field
 * after those is Tideline's. Times are epoch milliseconds. The same stability rules as {@link JsonOutput}.
 */
final class LogDirsJson {
    private LogDirsJson() {
    }

    /** Kafka's top level: the brokers, then the version. */
    record Document(List<Broker> brokers, int version) {
    }

    /** {@code error} and {@code message} are null for a broker that answered (Kafka has neither). */
    record Broker(int broker, List<LogDir> logDirs, String error, String message) {
    }

    /** {@code error}: null (Kafka's "no error"), or an error name such as KAFKA_STORAGE_ERROR. */
    record LogDir(String logDir, String error, List<Partition> partitions, List<DeletedFile> deletedOpenFiles) {
    }

    /** {@code compaction}: the cleaner's view without segments (B193), null when the broker did not evaluate it. */
    record Partition(String partition, long size, long offsetLag, boolean isFuture, int segmentCount,
                     long logStartOffset, long logEndOffset, long highWatermark, List<PendingSegment> pendingUnlink,
                     List<HeldSegment> deletedOpen, Compaction compaction) {
    }

    /**
     * The log cleaner's view of a replica (docs/behaviours.md B193). For a log whose policy lacks compact
     * ({@code compacted} false) the numbers are -1; {@code lastCleaningMs} is -1 when no cleaning ended since the
     * broker started; {@code state} is NO_CLEANER on a broker with log.cleaner.threads=0.
     */
    record Compaction(boolean compacted, String cleanupPolicy, double dirtyRatio, double minCleanableDirtyRatio,
                      long firstDirtyOffset, long firstUncleanableOffset, long cleanableBytes, boolean cleanable,
                      String state, long lastCleaningMs, long compactionDelayMs) {
        static Compaction of(Optional<LogCompaction> found) {
            return found.map(c -> new Compaction(c.compacted(), c.cleanupPolicy(), c.dirtyRatio(),
                    c.minCleanableDirtyRatio(), c.firstDirtyOffset(), c.firstUncleanableOffset(), c.cleanableBytes(),
                    c.cleanable(), c.state(), c.lastCleaningMs(), c.compactionDelayMs())).orElse(null);
        }
    }

    /** explain-retention's {@code compaction}: {@link Compaction}'s fields, then what a cleaning does per segment. */
    record CompactionWithSegments(boolean compacted, String cleanupPolicy, double dirtyRatio,
                                  double minCleanableDirtyRatio, long firstDirtyOffset, long firstUncleanableOffset,
                                  long cleanableBytes, boolean cleanable, String state, long lastCleaningMs,
                                  long compactionDelayMs, List<Verdict> segments) {
        static CompactionWithSegments of(Optional<LogCompaction> found) {
            return found.map(c -> new CompactionWithSegments(c.compacted(), c.cleanupPolicy(), c.dirtyRatio(),
                    c.minCleanableDirtyRatio(), c.firstDirtyOffset(), c.firstUncleanableOffset(), c.cleanableBytes(),
                    c.cleanable(), c.state(), c.lastCleaningMs(), c.compactionDelayMs(), c.segments().stream()
                    .map(v -> new Verdict(v.baseOffset(), v.sizeBytes(), v.verdict())).toList())).orElse(null);
        }
    }

    /** {@code sizeBytes} is -1 for the active segment. */
    record Verdict(long baseOffset, long sizeBytes, String verdict) {
    }

    record PendingSegment(long baseOffset, long sizeBytes, long unlinkAtMs, String file) {
    }

    record HeldSegment(long baseOffset, long sizeBytes, long unlinkedAtMs, String file) {
    }

    record DeletedFile(String path, long bytes, String holder) {
    }

    static Document of(Collection<BrokerLogDirs> brokers) {
        return new Document(brokers.stream().map(LogDirsJson::broker).toList(), 1);
    }

    private static Broker broker(BrokerLogDirs b) {
        List<LogDir> dirs = b.logDirs().stream().map(d -> new LogDir(d.path(),
                d.error() == Errors.NONE ? null : d.error().name(),
                d.replicas().stream().map(r -> new Partition(r.partition().toString(), r.sizeBytes(), r.offsetLag(),
                        r.isFuture(), r.segmentCount(), r.logStartOffset(), r.logEndOffset(), r.highWatermark(),
                        r.pendingUnlink().stream().map(f -> new PendingSegment(f.baseOffset(), f.sizeBytes(), f.atMs(),
                                f.file())).toList(),
                        r.deletedOpen().stream().map(f -> new HeldSegment(f.baseOffset(), f.sizeBytes(), f.atMs(),
                                f.file())).toList(), Compaction.of(r.compaction()))).toList(),
                d.deletedOpenFiles().stream().map(f -> new DeletedFile(f.path(), f.bytes(), f.holder())).toList()))
                .toList();
        return new Broker(b.brokerId(), dirs, b.answered() ? null : b.error().name(), b.answered() ? null : b.message());
    }

    /**
     * {@code explain-retention}; on error the offsets are -1, {@code segments} is empty and {@code compaction} null
     * (null too when the broker did not evaluate it).
     */
    record Retention(String topic, int partition, int broker, String error, String message, String logDir, long nowMs,
                     long nextRetentionPassMs, long retentionCheckIntervalMs, long logStartOffset, long highWatermark,
                     long logEndOffset, long retentionMs, long retentionBytes, long fileDeleteDelayMs,
                     List<Segment> segments, CompactionWithSegments compaction) {
        static Retention of(ReplicaRetention r) {
            return new Retention(r.partition().topic(), r.partition().partition(), r.brokerId(), r.error().name(),
                    r.message() == null ? "" : r.message(), r.logDir(), r.nowMs(), r.nextRetentionPassMs(),
                    r.retentionCheckIntervalMs(), r.logStartOffset(), r.highWatermark(), r.logEndOffset(),
                    r.retentionMs(), r.retentionBytes(), r.fileDeleteDelayMs(), r.segments().stream()
                    .map(s -> new Segment(s.baseOffset(), s.endOffset(), s.sizeBytes(), s.largestTimestamp(), s.status(),
                            s.reasons().stream().map(x -> new Reason(x.kind(), x.rule(), x.atMs(), x.offset(), x.bytes(),
                                    RetentionText.reason(x))).toList())).toList(),
                    CompactionWithSegments.of(r.compaction()));
        }
    }

    record Segment(long baseOffset, long endOffset, long sizeBytes, long largestTimestamp, String status,
                   List<Reason> reasons) {
    }

    /** {@code text} is the sentence the text output prints. */
    record Reason(String kind, String rule, long atMs, long offset, long bytes, String text) {
    }
}
