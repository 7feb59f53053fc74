package io.tideline.node.api;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.service.LogDirsService;
import io.tideline.node.service.RequestChecks;
import io.tideline.proto.admin.CompactionSegmentVerdict;
import io.tideline.proto.admin.CompactionState;
import io.tideline.proto.admin.DeletedOpenFileInfo;
import io.tideline.proto.admin.DescribeLogDirsRequest;
import io.tideline.proto.admin.DescribeLogDirsResponse;
import io.tideline.proto.admin.ExplainRetentionRequest;
import io.tideline.proto.admin.ExplainRetentionResponse;
import io.tideline.proto.admin.LogDirInfo;
import io.tideline.proto.admin.LogDirReplica;
import io.tideline.proto.admin.LogDirSegmentFile;
import io.tideline.proto.admin.RetentionReasonInfo;
import io.tideline.proto.admin.SegmentRetentionInfo;
import io.tideline.store.cleaner.CleanerLogState;
import io.tideline.store.cleaner.LogToClean;
import io.tideline.store.config.LogConfig;
import io.tideline.store.dir.DeletedOpenFile;
import io.tideline.store.manager.LogDirDescription;
import io.tideline.store.manager.LogManager;
import io.tideline.store.retention.RetentionExplanation;
import io.tideline.store.retention.RetentionReason;
import io.tideline.store.retention.SegmentDeleter.HeldOpen;
import io.tideline.store.retention.SegmentDeleter.PendingUnlink;
import io.tideline.store.retention.SegmentRetention;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two admin calls about this broker's own storage: DescribeLogDirs (Kafka's, each broker answers for
 * its own dirs, so clients ask every broker they want) and ExplainRetention (why each segment of the local
 * replica is still on disk). Both read the store only; the answers are built from
 * {@link LogManager#describeLogDirs} and {@link LogManager#explainRetention}, and both carry the log cleaner's
 * view of each replica from {@link LogManager#describeCleaning} (docs/behaviours.md B193). Stateless, thread-safe.
 */
final class LogDirsAdmin {
    private static final Logger log = LoggerFactory.getLogger(LogDirsAdmin.class);

    private final int brokerId;
    private final Supplier<MetadataImage> image;
    private final LogManager logManager;
    private final LogDirsService logDirs;

    LogDirsAdmin(int brokerId, Supplier<MetadataImage> image, LogManager logManager, LogDirsService logDirs) {
        this.brokerId = brokerId;
        this.image = Objects.requireNonNull(image, "image");
        this.logManager = Objects.requireNonNull(logManager, "logManager");
        this.logDirs = Objects.requireNonNull(logDirs, "logDirs");
    }

    DescribeLogDirsResponse describeLogDirs(DescribeLogDirsRequest request) {
        Set<String> topics = new HashSet<>(request.getTopicsList());
        DescribeLogDirsResponse.Builder b = DescribeLogDirsResponse.newBuilder().setBrokerId(brokerId);
        for (LogDirDescription dir : logDirs.describeLogDirs(tp -> topics.isEmpty() || topics.contains(tp.topic()))) {
            LogDirInfo.Builder d = LogDirInfo.newBuilder().setLogDir(dir.logDir().toString())
                    .setErrorCode(dir.error().code());
            if (dir.error() != Errors.NONE) {
                d.setErrorMessage("log dir " + dir.logDir() + " is offline on broker " + brokerId);
            }
            for (LogDirDescription.Replica r : dir.partitions()) {
                LogDirReplica.Builder p = LogDirReplica.newBuilder().setTopic(r.topicPartition().topic())
                        .setPartition(r.topicPartition().partition()).setSizeBytes(r.sizeBytes())
                        .setOffsetLag(r.offsetLag()).setIsFuture(r.isFuture()).setSegmentCount(r.segmentCount())
                        .setLogStartOffset(r.logStartOffset()).setLogEndOffset(r.logEndOffset())
                        .setHighWatermark(r.highWatermark());
                // Without segments: log-dirs answers for every replica of the broker, and stays small (B193).
                compaction(r.topicPartition(), false).ifPresent(p::setCompaction);
                for (PendingUnlink u : r.pendingUnlink()) {
                    p.addPendingUnlink(LogDirSegmentFile.newBuilder().setBaseOffset(u.baseOffset())
                            .setSizeBytes(u.sizeBytes()).setAtMs(u.unlinkAtMs()).setFile(u.file().toString()));
                }
                for (HeldOpen h : r.deletedOpen()) {
                    p.addDeletedOpen(LogDirSegmentFile.newBuilder().setBaseOffset(h.baseOffset())
                            .setSizeBytes(h.sizeBytes()).setAtMs(h.unlinkedAtMs()).setFile(h.file().toString()));
                }
                d.addReplicas(p);
            }
            for (DeletedOpenFile f : dir.deletedOpenFiles()) {
                d.addDeletedOpenFiles(DeletedOpenFileInfo.newBuilder().setPath(f.path().toString()).setBytes(f.bytes())
                        .setHolder(f.holder()));
            }
            b.addLogDirs(d);
        }
        return b.build();
    }

    ExplainRetentionResponse explainRetention(ExplainRetentionRequest request) {
        ExplainRetentionResponse.Builder b = ExplainRetentionResponse.newBuilder().setBrokerId(brokerId);
        RequestChecks.Check check = RequestChecks.partition(image.get(), request.getTopic(), request.getPartition(),
                Set.of());
        if (check.error() != Errors.NONE) {
            return b.setErrorCode(check.error().code()).setErrorMessage(check.message()).build();
        }
        TopicPartition tp = new TopicPartition(request.getTopic(), request.getPartition());
        Optional<RetentionExplanation> found = logManager.explainRetention(tp);
        if (found.isEmpty()) {
            return b.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code())
                    .setErrorMessage("broker " + brokerId + " holds no replica of " + tp).build();
        }
        RetentionExplanation e = found.get();
        b.setLogDir(e.logDir().toString()).setNowMs(e.nowMs()).setNextRetentionPassMs(e.nextRetentionPassMs())
                .setRetentionCheckIntervalMs(e.retentionCheckIntervalMs()).setLogStartOffset(e.logStartOffset())
                .setHighWatermark(e.highWatermark()).setLogEndOffset(e.logEndOffset()).setRetentionMs(e.retentionMs())
                .setRetentionBytes(e.retentionBytes()).setFileDeleteDelayMs(e.fileDeleteDelayMs());
        for (SegmentRetention s : e.segments()) {
            SegmentRetentionInfo.Builder sb = SegmentRetentionInfo.newBuilder().setBaseOffset(s.baseOffset())
                    .setEndOffset(s.endOffset()).setSizeBytes(s.sizeBytes()).setLargestTimestamp(s.largestTimestamp())
                    .setStatus(s.status().name());
            for (RetentionReason r : s.reasons()) {
                sb.addReasons(RetentionReasonInfo.newBuilder().setKind(r.kind().name()).setRule(r.kind().rule())
                        .setAtMs(r.atMs()).setOffset(r.offset()).setBytes(r.bytes()));
            }
            b.addSegments(sb);
        }
        compaction(tp, true).ifPresent(b::setCompaction);
        return b.build();
    }

    /**
     * The cleaner's view of one replica (B193), or empty when the log is gone or could not be evaluated: an
     * IOException of one log leaves only that replica's field unset, so one bad log never fails the answer.
     */
    private Optional<CompactionState> compaction(TopicPartition tp, boolean withSegments) {
        Optional<LogConfig> config = logManager.getLog(tp).map(l -> l.config());
        if (config.isEmpty()) {
            return Optional.empty();
        }
        LogConfig c = config.get();
        CompactionState.Builder b = CompactionState.newBuilder().setCompacted(c.compact())
                .setCleanupPolicy(String.join(",", c.cleanupPolicy()))
                .setMinCleanableDirtyRatio(c.minCleanableDirtyRatio());
        if (!c.compact()) {
            return Optional.of(b.setDirtyRatio(-1).setFirstDirtyOffset(-1).setFirstUncleanableOffset(-1)
                    .setCleanableBytes(-1).setLastCleaningMs(-1).build());
        }
        Optional<CleanerLogState> found;
        try {
            found = logManager.describeCleaning(tp);
        } catch (IOException | UncheckedIOException e) {
            log.warn("Cannot describe the cleaning of {}: {}", tp, e.toString());
            return Optional.empty();
        }
        if (found.isEmpty()) {
            if (logManager.cleaner().isPresent()) {
                return Optional.empty(); // the log was deleted between the two reads
            }
            // log.cleaner.threads=0: the log is compacted by its policy but nothing cleans it (B180).
            return Optional.of(b.setState("NO_CLEANER").setDirtyRatio(-1).setFirstDirtyOffset(-1)
                    .setFirstUncleanableOffset(-1).setCleanableBytes(-1).setLastCleaningMs(-1).build());
        }
        CleanerLogState s = found.get();
        b.setDirtyRatio(s.dirtyRatio()).setFirstDirtyOffset(s.firstDirtyOffset())
                .setFirstUncleanableOffset(s.firstUncleanableOffset()).setCleanableBytes(s.cleanableBytes())
                .setCleanable(s.cleanable()).setState(s.state()).setLastCleaningMs(s.lastCleaningMs())
                .setCompactionDelayMs(s.compactionDelayMs());
        if (withSegments) {
            for (LogToClean.SegmentVerdict v : s.segments()) {
                b.addSegments(CompactionSegmentVerdict.newBuilder().setBaseOffset(v.baseOffset())
                        .setSizeBytes(v.sizeBytes()).setVerdict(v.verdict()));
            }
        }
        return Optional.of(b.build());
    }
}
