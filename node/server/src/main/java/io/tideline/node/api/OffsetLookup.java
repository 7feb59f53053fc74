package io.tideline.node.api;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.client.ListOffsetsPartition;
import io.tideline.proto.client.ListOffsetsPartitionResponse;
import io.tideline.replication.server.Partition;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.log.Log;
import io.tideline.store.segment.LogSegment;
import java.util.Optional;
import java.util.Set;

/**
 * ListOffsets at the leader: -2 (earliest) is the log start offset, -1 (latest) the high watermark, any
 * other non-negative value a timestamp looked up through the time index (only committed records count).
 */
final class OffsetLookup {
    static final long EARLIEST = -2L;
    static final long LATEST = -1L;

    private final ReplicaManager replicaManager;
    private final MetadataResponses metadata;
    private final int brokerId;

    OffsetLookup(ReplicaManager replicaManager, MetadataResponses metadata, int brokerId) {
        this.replicaManager = replicaManager;
        this.metadata = metadata;
        this.brokerId = brokerId;
    }

    ListOffsetsPartitionResponse lookup(MetadataImage image, ListOffsetsPartition p, Set<TopicPartition> listedTwice) {
        ListOffsetsPartitionResponse.Builder b = ListOffsetsPartitionResponse.newBuilder().setTopic(p.getTopic())
                .setPartition(p.getPartition()).setOffset(-1).setTimestamp(-1)
                .setCurrentLeader(metadata.leaderHint(image, p.getTopic(), p.getPartition()));
        RequestChecks.Check check = RequestChecks.partition(image, p.getTopic(), p.getPartition(), listedTwice);
        if (check.error() != Errors.NONE) {
            return b.setErrorCode(check.error().code()).setErrorMessage(check.message()).build();
        }
        if (p.getTimestamp() < EARLIEST) {
            return b.setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("timestamp must be -2 (earliest), -1 (latest) or a time in ms, got "
                            + p.getTimestamp()).build();
        }
        TopicPartition tp = new TopicPartition(p.getTopic(), p.getPartition());
        Optional<Partition> partition = replicaManager.partition(tp);
        if (partition.isEmpty() && replicaManager.isOffline(tp)) {
            return b.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code())
                    .setErrorMessage("the log dir of " + tp + " failed on broker " + brokerId).build();
        }
        if (partition.isEmpty() || !partition.get().isLeader()) {
            return b.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code())
                    .setErrorMessage("broker " + brokerId + " does not lead " + tp).build();
        }
        Log log = partition.get().log();
        if (p.getTimestamp() == EARLIEST) {
            return b.setErrorCode(Errors.NONE.code()).setOffset(log.logStartOffset()).build();
        }
        if (p.getTimestamp() == LATEST) {
            return b.setErrorCode(Errors.NONE.code()).setOffset(log.highWatermark()).build();
        }
        Optional<LogSegment.TimestampAndOffset> found = log.fetchOffsetByTimestamp(p.getTimestamp());
        b.setErrorCode(Errors.NONE.code());
        found.ifPresent(f -> b.setOffset(f.offset()).setTimestamp(f.timestamp()));
        return b.build();
    }
}
