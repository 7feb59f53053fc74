package io.tideline.node.service;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.replication.server.Partition;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.checkpoint.EpochEntry;
import io.tideline.store.log.Log;
import io.tideline.store.segment.LogSegment;
import java.util.Optional;
import java.util.Set;

/**
 * ListOffsets at the leader, for the gRPC client API and the Kafka listener alike: -2 (earliest) is the log
 * start offset, -1 (latest) the high watermark, any other non-negative value a timestamp looked up through the
 * time index (only committed records count). The Kafka listener also asks for Kafka's other special values
 * ({@link #MAX_TIMESTAMP}, {@link #EARLIEST_LOCAL}, {@link #LATEST_TIERED}, {@link #EARLIEST_PENDING_UPLOAD});
 * the gRPC API refuses them before calling here. Stateless.
 */
public final class OffsetLookup {
    public static final long EARLIEST = -2L;
    public static final long LATEST = -1L;
    /** The record with the largest timestamp below the high watermark (Kafka's ListOffsets -3). */
    public static final long MAX_TIMESTAMP = -3L;
    /** Kafka's earliest offset kept locally (-4): everything is local here, so the log start offset. */
    public static final long EARLIEST_LOCAL = -4L;
    /** Kafka's latest tiered offset (-5): nothing is tiered here, so no offset (-1), as Kafka without tiering. */
    public static final long LATEST_TIERED = -5L;
    /** Kafka's earliest offset pending upload to tiered storage (-6): none here, so no offset (-1). */
    public static final long EARLIEST_PENDING_UPLOAD = -6L;

    /**
     * One partition's answer: NONE with the offset, its timestamp and the leader epoch that wrote it (each -1
     * when unknown or nothing matched), or an error with its message.
     */
    public record Found(Errors error, String message, long offset, long timestamp, int leaderEpoch) {
        public static Found error(Errors error, String message) {
            return new Found(error, message, -1L, -1L, -1);
        }

        public static Found none() {
            return new Found(Errors.NONE, null, -1L, -1L, -1);
        }
    }

    private final ReplicaManager replicaManager;
    private final int brokerId;

    public OffsetLookup(ReplicaManager replicaManager, int brokerId) {
        this.replicaManager = replicaManager;
        this.brokerId = brokerId;
    }

    /**
     * Looks {@code timestamp} up at the leader of the partition.
     *
     * @param currentLeaderEpoch the leader epoch the client knows (FENCED_LEADER_EPOCH below the leader's,
     *                           UNKNOWN_LEADER_EPOCH above it), -1 to skip the check
     */
    public Found find(MetadataImage image, String topic, int partitionIndex, long timestamp, int currentLeaderEpoch,
                      Set<TopicPartition> listedTwice) {
        RequestChecks.Check check = RequestChecks.partition(image, topic, partitionIndex, listedTwice);
        if (check.error() != Errors.NONE) {
            return Found.error(check.error(), check.message());
        }
        if (timestamp < EARLIEST_PENDING_UPLOAD) {
            return Found.error(Errors.INVALID_REQUEST, "timestamp " + timestamp + " is neither a time in ms nor one of -1..-6");
        }
        TopicPartition tp = new TopicPartition(topic, partitionIndex);
        Optional<Partition> partition = replicaManager.partition(tp);
        if (partition.isEmpty() && replicaManager.isOffline(tp)) {
            return Found.error(Errors.KAFKA_STORAGE_ERROR, "the log dir of " + tp + " failed on broker " + brokerId);
        }
        if (partition.isEmpty() || !partition.get().isLeader()) {
            return Found.error(Errors.NOT_LEADER_OR_FOLLOWER, "broker " + brokerId + " does not lead " + tp);
        }
        int leaderEpoch = partition.get().metadata().map(m -> m.leaderEpoch())
                .orElse(image.partition(topic, partitionIndex).map(PartitionRecord::getLeaderEpoch).orElse(-1));
        if (currentLeaderEpoch >= 0 && currentLeaderEpoch != leaderEpoch) {
            return Found.error(currentLeaderEpoch < leaderEpoch ? Errors.FENCED_LEADER_EPOCH : Errors.UNKNOWN_LEADER_EPOCH,
                    "leader epoch " + currentLeaderEpoch + " asked, " + leaderEpoch + " here");
        }
        Log log = partition.get().log();
        if (timestamp == EARLIEST || timestamp == EARLIEST_LOCAL) {
            long start = log.logStartOffset();
            return new Found(Errors.NONE, null, start, -1L, epochAt(log, start));
        }
        if (timestamp == LATEST) {
            return new Found(Errors.NONE, null, log.highWatermark(), -1L, leaderEpoch);
        }
        if (timestamp == LATEST_TIERED || timestamp == EARLIEST_PENDING_UPLOAD) {
            return Found.none();
        }
        if (timestamp == MAX_TIMESTAMP) {
            return maxTimestamp(log);
        }
        Optional<LogSegment.TimestampAndOffset> found = log.fetchOffsetByTimestamp(timestamp);
        return found.map(f -> new Found(Errors.NONE, null, f.offset(), f.timestamp(), f.leaderEpoch()))
                .orElse(Found.none());
    }

    /**
     * The offset of the largest timestamp, from each segment's running maximum (no file read). Kafka answers
     * it only below the high watermark; a maximum above it is not committed yet, so nothing is found.
     */
    private static Found maxTimestamp(Log log) {
        long bestTimestamp = -1L;
        long bestOffset = -1L;
        for (LogSegment segment : log.segments()) {
            if (segment.maxTimestampSoFar() > bestTimestamp) {
                bestTimestamp = segment.maxTimestampSoFar();
                bestOffset = segment.offsetOfMaxTimestampSoFar();
            }
        }
        if (bestOffset < 0 || bestOffset < log.logStartOffset() || bestOffset >= log.highWatermark()) {
            return Found.none();
        }
        return new Found(Errors.NONE, null, bestOffset, bestTimestamp, epochAt(log, bestOffset));
    }

    /** The leader epoch that wrote {@code offset}, from the leader epoch cache; -1 when it has none. */
    private static int epochAt(Log log, long offset) {
        int epoch = -1;
        for (EpochEntry e : log.leaderEpochEntries()) {
            if (e.startOffset() > offset) {
                break;
            }
            epoch = e.epoch();
        }
        return epoch;
    }
}
