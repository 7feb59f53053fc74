package io.tideline.node.service;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.replication.fetcher.FollowerStatusView;
import io.tideline.replication.follower.RebuildProgress;
import io.tideline.replication.follower.ReplicaStatus;
import io.tideline.replication.server.ReplicaManager;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Answers RebuildReplica on the broker of the replica to rebuild: the replica must be this broker's, a
 * follower, and FAILED; then it truncates fully and copies the leader's log from its log start offset (the
 * rebuild path of replica.fetch.out.of.range.policy=rebuild), and its failure report is cleared at the
 * controller. Checked in this order: the partition exists (UNKNOWN_TOPIC_OR_PARTITION), the broker is one of
 * its replicas (REPLICA_NOT_AVAILABLE), it is this broker (NOT_LEADER_OR_FOLLOWER), it does not lead
 * (INVALID_REQUEST), there is a leader (LEADER_NOT_AVAILABLE), it is FAILED (INVALID_REQUEST). The answer comes
 * once the rebuild has begun (docs/behaviours.md, "Rebuilding a replica").
 */
public final class ReplicaRebuilder {
    private final int brokerId;
    private final Supplier<MetadataImage> image;
    private final ReplicaManager replicaManager;

    /** A refusal (offsets -1 then), or NONE with the offsets the copy starts at and aims for. */
    public record Rebuild(ApiError error, long startOffset, long targetOffset) {
    }

    public ReplicaRebuilder(int brokerId, Supplier<MetadataImage> image, ReplicaManager replicaManager) {
        this.brokerId = brokerId;
        this.image = image;
        this.replicaManager = replicaManager;
    }

    /** Rebuilds the replica of {@code topic}-{@code partition} on broker {@code replica}, which must be this one. */
    public Rebuild rebuild(String topicName, int partition, int replica) {
        String name = topicName + "-" + partition;
        MetadataImage current = image.get();
        Optional<TopicImage> topic = current.topic(topicName);
        PartitionRecord p = topic.map(t -> t.partition(partition)).orElse(null);
        if (p == null) {
            return refuse(Errors.UNKNOWN_TOPIC_OR_PARTITION, topic.isEmpty() ? "unknown topic '" + topicName
                    + "'" : "topic '" + topicName + "' has no partition " + partition);
        }
        if (!p.getReplicasList().contains(replica)) {
            return refuse(Errors.REPLICA_NOT_AVAILABLE, "broker " + replica + " is not a replica of " + name
                    + " (replicas " + p.getReplicasList() + ")");
        }
        if (replica != brokerId) {
            // Not this broker's replica: the client asks another broker only when broker N is unreachable.
            return refuse(Errors.NOT_LEADER_OR_FOLLOWER, "the rebuild of broker " + replica + "'s replica of " + name
                    + " was sent to broker " + brokerId + "; it goes to broker " + replica);
        }
        if (p.getLeader() == replica) {
            return refuse(Errors.INVALID_REQUEST, "broker " + replica + " leads " + name
                    + ": the leader is IN_SYNC, not FAILED; only a FAILED replica is rebuilt");
        }
        TopicPartition tp = new TopicPartition(topicName, partition);
        Optional<FollowerStatusView> status = replicaManager.followerStatus(tp);
        if (p.getLeader() < 0 || status.isEmpty()) {
            return refuse(Errors.LEADER_NOT_AVAILABLE, name + " has no leader for broker " + replica
                    + " to rebuild from");
        }
        if (status.get().status() != ReplicaStatus.FAILED) {
            String state = status.get().status() == ReplicaStatus.REBUILDING ? "already REBUILDING"
                    : p.getIsrList().contains(replica) ? "IN_SYNC" : "LAGGING (fetching)";
            return refuse(Errors.INVALID_REQUEST, "replica " + replica + " of " + name + " is " + state
                    + ", not FAILED; only a FAILED replica is rebuilt");
        }
        RebuildProgress[] started = new RebuildProgress[1];
        Errors error = replicaManager.requestRebuild(tp, progress -> started[0] = progress);
        if (error != Errors.NONE) {
            // It changed between the check and the request (a leader change, a stop): say what it is now.
            return refuse(error == Errors.INVALID_REQUEST ? Errors.INVALID_REQUEST : Errors.LEADER_NOT_AVAILABLE,
                    "replica " + replica + " of " + name + " could not be rebuilt: " + error);
        }
        return new Rebuild(ApiError.NONE, started[0].startOffset(), started[0].targetOffset());
    }

    private static Rebuild refuse(Errors error, String message) {
        return new Rebuild(new ApiError(error, message), 0, 0);
    }
}
