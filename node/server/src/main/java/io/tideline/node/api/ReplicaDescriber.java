package io.tideline.node.api;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.admin.DescribeReplicasRequest;
import io.tideline.proto.admin.DescribeReplicasResponse;
import io.tideline.proto.admin.FailedReplicaInfo;
import io.tideline.proto.admin.IsrChangeEntry;
import io.tideline.proto.admin.LeaderFollowerView;
import io.tideline.proto.admin.LocalReplicaView;
import io.tideline.proto.admin.ReplicaPartitionRef;
import io.tideline.proto.admin.ReplicaStatesPartition;
import io.tideline.proto.metadata.ControllerQueryResponse;
import io.tideline.proto.metadata.FailedReplicaRecord;
import io.tideline.proto.metadata.PartitionChangeRecord;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.replication.fetcher.FollowerStatusView;
import io.tideline.replication.server.LeaderView;
import io.tideline.replication.server.ReplicaManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Answers DescribeReplicas on one broker: for each partition asked for, what this broker knows locally
 * (its metadata image, its leader view, its own follower state) and, when it leads and is asked, the ISR
 * history from the controller. The client joins the answers of the leader and the replicas' brokers.
 */
final class ReplicaDescriber {
    /**
     * How long the ISR history may take from the controller before the copy in this broker's image is used
     * (the same records, as of this broker's last metadata fetch): well inside the client's request timeout.
     */
    static final long HISTORY_TIMEOUT_MS = 3_000;

    private final int brokerId;
    private final Supplier<MetadataImage> image;
    private final ReplicaManager replicaManager;
    private final ControllerClient controller;

    ReplicaDescriber(int brokerId, Supplier<MetadataImage> image, ReplicaManager replicaManager,
                     ControllerClient controller) {
        this.brokerId = brokerId;
        this.image = image;
        this.replicaManager = replicaManager;
        this.controller = controller;
    }

    CompletableFuture<DescribeReplicasResponse> describe(DescribeReplicasRequest request) {
        MetadataImage current = image.get();
        List<CompletableFuture<ReplicaStatesPartition>> answers = new ArrayList<>();
        for (ReplicaPartitionRef ref : request.getPartitionsList()) {
            answers.add(describe(current, ref, request.getIncludeIsrHistory()));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(v -> {
            DescribeReplicasResponse.Builder b = DescribeReplicasResponse.newBuilder().setBrokerId(brokerId);
            answers.forEach(a -> b.addPartitions(a.join()));
            return b.build();
        });
    }

    private CompletableFuture<ReplicaStatesPartition> describe(MetadataImage image, ReplicaPartitionRef ref,
                                                               boolean includeHistory) {
        ReplicaStatesPartition.Builder b = ReplicaStatesPartition.newBuilder().setTopic(ref.getTopic())
                .setPartition(ref.getPartition()).setLeader(-1).setLeaderEpoch(-1)
                .setLogStartOffset(-1).setHighWatermark(-1).setLogEndOffset(-1).setLeaderSinceMs(-1);
        Optional<TopicImage> topic = image.topic(ref.getTopic());
        PartitionRecord p = topic.map(t -> t.partition(ref.getPartition())).orElse(null);
        if (p == null) {
            return CompletableFuture.completedFuture(b.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                    .setErrorMessage(topic.isEmpty() ? "unknown topic '" + ref.getTopic() + "'"
                            : "topic '" + ref.getTopic() + "' has no partition " + ref.getPartition()).build());
        }
        String topicId = topic.get().id();
        b.setLeader(p.getLeader()).setLeaderEpoch(p.getLeaderEpoch()).addAllReplicas(p.getReplicasList())
                .addAllIsr(p.getIsrList());
        for (int replica : p.getReplicasList()) {
            if (!image.isBrokerUnfenced(replica)) {
                b.addOfflineReplicas(replica);
            }
        }
        for (FailedReplicaRecord f : image.failedReplicas().values()) {
            if (f.getTopicId().equals(topicId) && f.getPartition() == p.getPartition() && !f.getCleared()) {
                b.addFailedReplicas(FailedReplicaInfo.newBuilder().setBrokerId(f.getBrokerId()).setReason(f.getReason())
                        .setSinceMs(f.getSinceMs()));
            }
        }
        TopicPartition tp = new TopicPartition(ref.getTopic(), ref.getPartition());
        replicaManager.followerStatus(tp).ifPresent(s -> b.setLocal(local(s)));
        Optional<LeaderView> leader = replicaManager.leaderView(tp);
        if (leader.isEmpty()) {
            return CompletableFuture.completedFuture(b.build());
        }
        if (!includeHistory) {
            addLeaderView(b, leader.get(), List.of());
            return CompletableFuture.completedFuture(b.build());
        }
        List<PartitionChangeRecord> local = image.recentChanges(topicId, p.getPartition());
        return history(ref, local).thenApply(history -> {
            addLeaderView(b, leader.get(), history);
            history.forEach(c -> b.addIsrHistory(IsrChangeEntry.newBuilder().setTimestampMs(c.getTimestampMs())
                    .setLeader(c.getPartition().getLeader()).setLeaderEpoch(c.getPartition().getLeaderEpoch())
                    .addAllIsr(c.getPartition().getIsrList()).setReason(c.getReason().name()).setDetail(c.getDetail())));
            return b.build();
        });
    }

    /** The controller's ISR history, or this broker's copy when the controller does not answer in time. */
    private CompletableFuture<List<PartitionChangeRecord>> history(ReplicaPartitionRef ref,
                                                                   List<PartitionChangeRecord> local) {
        CompletableFuture<ControllerQueryResponse> query;
        try {
            query = controller.isrChanges(ref.getTopic(), ref.getPartition());
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(local);
        }
        return query.thenApply(r -> r.getErrorCode() == Errors.NONE.code() ? r.getIsrChangesList() : local)
                .completeOnTimeout(local, HISTORY_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .exceptionally(e -> local);
    }

    private static void addLeaderView(ReplicaStatesPartition.Builder b, LeaderView view,
                                      List<PartitionChangeRecord> history) {
        b.setLeads(true).setLogStartOffset(view.logStartOffset()).setHighWatermark(view.highWatermark())
                .setLogEndOffset(view.logEndOffset())
                .setLeaderSinceMs(IsrHistory.leaderSince(history, b.getLeader(), view.leaderEpoch()));
        for (LeaderView.Follower f : view.followers()) {
            b.addFollowers(LeaderFollowerView.newBuilder().setBrokerId(f.brokerId()).setLogEndOffset(f.logEndOffset())
                    .setLagOffsets(f.lagOffsets()).setLagBytes(f.lagBytes())
                    .setCatchUpBytesPerSecond(f.bytesPerSecond()).setCatchUpOffsetsPerSecond(f.offsetsPerSecond())
                    .setInSync(f.inSync()).setIsrSinceMs(IsrHistory.membershipSince(history, f.brokerId(), f.inSync()))
                    .setLastFetchMs(f.lastFetchMs()));
        }
    }

    private static LocalReplicaView local(FollowerStatusView s) {
        LocalReplicaView.Builder v = LocalReplicaView.newBuilder().setStatus(s.status().name())
                .setLogEndOffset(s.logEndOffset()).setSinceMs(s.statusSinceMs())
                .setFailedFetchOffset(-1).setFailedLeaderLogStartOffset(-1).setFailedLeaderLogEndOffset(-1)
                .setRebuildStartOffset(-1).setRebuildTargetOffset(-1).setRebuildCurrentOffset(-1);
        s.failure().ifPresent(f -> v.setReason(f.message()).setSinceMs(f.sinceMs()).setFailedFetchOffset(f.fetchOffset())
                .setFailedLeaderLogStartOffset(f.leaderLogStartOffset())
                .setFailedLeaderLogEndOffset(f.leaderLogEndOffset()));
        s.rebuild().ifPresent(r -> v.setRebuildStartOffset(r.startOffset()).setRebuildTargetOffset(r.targetOffset())
                .setRebuildCurrentOffset(r.currentOffset()));
        return v.build();
    }
}
