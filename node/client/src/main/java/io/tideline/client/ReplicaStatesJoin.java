package io.tideline.client;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.admin.FailedReplicaInfo;
import io.tideline.proto.admin.IsrChangeEntry;
import io.tideline.proto.admin.LeaderFollowerView;
import io.tideline.proto.admin.LocalReplicaView;
import io.tideline.proto.admin.ReplicaStatesPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Joins the DescribeReplicas answers of a partition's brokers into one {@link PartitionReplicas}: the
 * metadata image says who the replicas are, which brokers are fenced and which replicas were reported
 * failed; the leader says how far each follower is; each follower says whether it is FAILED or REBUILDING.
 * The state rules, in order (docs/replication.md, "Replica states"): the leader is IN_SYNC; a replica on a
 * fenced broker, or one whose broker did not answer, is OFFLINE; one that says it is FAILED (or, when it
 * did not say, the controller's failed record) is FAILED; REBUILDING; in the ISR is IN_SYNC; else LAGGING.
 */
final class ReplicaStatesJoin {
    private ReplicaStatesJoin() {
    }

    /**
     * @param image      the image part to trust: the leader's answer when it gave one, else any broker's
     * @param leader     the leader's answer (it leads the partition), or null
     * @param locals     each answering broker's own view of its replica (brokers that follow it)
     * @param unanswered brokers that did not answer, with why
     */
    static PartitionReplicas join(TopicPartition tp, ReplicaStatesPartition image, ReplicaStatesPartition leader,
                                  Map<Integer, LocalReplicaView> locals, Map<Integer, String> unanswered) {
        Errors imageError = Errors.forCode(image.getErrorCode());
        if (imageError != Errors.NONE) {
            return new PartitionReplicas(tp, imageError, AdminProtos.message(imageError, image.getErrorMessage()), -1, -1,
                    -1, -1, -1, List.of(), List.of());
        }
        int leaderId = image.getLeader();
        Errors error = Errors.NONE;
        String message = "";
        if (leader == null) {
            error = Errors.LEADER_NOT_AVAILABLE;
            message = leaderId < 0 ? "the partition has no leader"
                    : unanswered.containsKey(leaderId) ? "the leader, broker " + leaderId + ", did not answer: "
                    + unanswered.get(leaderId) : "broker " + leaderId + " does not lead it yet";
        }
        List<Integer> isr = leader != null ? leader.getIsrList() : image.getIsrList();
        List<ReplicaDescription> replicas = new ArrayList<>();
        for (int r : image.getReplicasList()) {
            LeaderFollowerView view = leader == null ? null : leader.getFollowersList().stream()
                    .filter(f -> f.getBrokerId() == r).findFirst().orElse(null);
            replicas.add(describe(r, image, leader, view, locals.get(r), unanswered.get(r), isr));
        }
        List<PartitionReplicas.IsrChange> history = new ArrayList<>();
        if (leader != null) {
            for (IsrChangeEntry e : leader.getIsrHistoryList()) {
                history.add(new PartitionReplicas.IsrChange(e.getTimestampMs(), e.getLeader(), e.getLeaderEpoch(),
                        List.copyOf(e.getIsrList()), e.getReason()));
            }
        }
        return new PartitionReplicas(tp, error, message, leaderId, image.getLeaderEpoch(),
                leader == null ? -1 : leader.getLogStartOffset(), leader == null ? -1 : leader.getHighWatermark(),
                leader == null ? -1 : leader.getLogEndOffset(), List.copyOf(replicas), List.copyOf(history));
    }

    private static ReplicaDescription describe(int r, ReplicaStatesPartition image, ReplicaStatesPartition leader,
                                               LeaderFollowerView view, LocalReplicaView local, String unanswered,
                                               List<Integer> isr) {
        long leo = view != null ? view.getLogEndOffset() : local != null ? local.getLogEndOffset() : -1;
        long lagOffsets = view != null ? Math.max(0, view.getLagOffsets()) : -1;
        long lagBytes = view != null ? view.getLagBytes() : -1;
        double bytesRate = view != null ? view.getCatchUpBytesPerSecond() : 0;
        double offsetsRate = view != null ? view.getCatchUpOffsetsPerSecond() : 0;
        long isrSince = view != null ? view.getIsrSinceMs() : -1;
        if (r == image.getLeader() && leader != null) {
            return new ReplicaDescription(r, ReplicaState.IN_SYNC, "leader", leader.getLeaderSinceMs(),
                    leader.getLogEndOffset(), 0, 0, 0, 0);
        }
        if (image.getOfflineReplicasList().contains(r)) {
            return new ReplicaDescription(r, ReplicaState.OFFLINE, "broker " + r
                    + " is fenced: it stopped heartbeating, is shutting down or is not registered",
                    isr.contains(r) ? -1 : isrSince, leo, lagOffsets, lagBytes, 0, 0);
        }
        if (unanswered != null) {
            return new ReplicaDescription(r, ReplicaState.OFFLINE, "broker " + r + " did not answer: " + unanswered, -1,
                    leo, lagOffsets, lagBytes, bytesRate, offsetsRate);
        }
        if (local != null && "FAILED".equals(local.getStatus())) {
            return new ReplicaDescription(r, ReplicaState.FAILED, local.getReason(), local.getSinceMs(), leo, lagOffsets,
                    lagBytes, 0, 0, Optional.of(new ReplicaDescription.Failure(local.getFailedFetchOffset(),
                    local.getFailedLeaderLogStartOffset(), local.getFailedLeaderLogEndOffset())), Optional.empty());
        }
        Optional<FailedReplicaInfo> reported = image.getFailedReplicasList().stream()
                .filter(f -> f.getBrokerId() == r).findFirst();
        if (local == null && reported.isPresent()) {
            return new ReplicaDescription(r, ReplicaState.FAILED, reported.get().getReason(), reported.get().getSinceMs(),
                    leo, lagOffsets, lagBytes, 0, 0);
        }
        if (local != null && "REBUILDING".equals(local.getStatus())) {
            ReplicaDescription.Rebuild progress = new ReplicaDescription.Rebuild(local.getRebuildStartOffset(),
                    local.getRebuildTargetOffset(), local.getRebuildCurrentOffset());
            return new ReplicaDescription(r, ReplicaState.REBUILDING, String.format(java.util.Locale.ROOT,
                    "rebuilding from %d to %d: at %d (%.1f%%)", progress.startOffset(), progress.targetOffset(),
                    progress.currentOffset(), progress.percent()), local.getSinceMs(), leo, lagOffsets, lagBytes,
                    bytesRate, offsetsRate, Optional.empty(), Optional.of(progress));
        }
        if (isr.contains(r)) {
            return new ReplicaDescription(r, ReplicaState.IN_SYNC, "", isrSince, leo, lagOffsets, lagBytes, bytesRate,
                    offsetsRate);
        }
        String reason = view == null ? "out of the ISR" : view.getLogEndOffset() < 0
                ? "out of the ISR; it has not fetched from this leader yet"
                : "out of the ISR, behind by " + lagOffsets + " offsets (" + lagBytes + " bytes)";
        return new ReplicaDescription(r, ReplicaState.LAGGING, reason, isrSince, leo, lagOffsets, lagBytes, bytesRate,
                offsetsRate);
    }
}
