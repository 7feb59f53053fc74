package io.tideline.node.group;

import io.tideline.common.errors.Errors;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;

/**
 * The classic group coordinator of one broker (docs/kafka-protocol.md, Consumer groups): membership in memory,
 * committed offsets and each completed rebalance in the metadata quorum. The Kafka APIs of
 * {@code io.tideline.node.kafka.group} call it; every answer is a future or immediate, nothing blocks.
 * Thread-safe.
 */
public final class GroupCoordinator implements AutoCloseable {
    private final GroupRegistry registry;
    private final GroupMembership membership;
    private final GroupOffsets offsets;
    private final GroupAdmin admin;
    private final OffsetDeletion offsetDeletion;
    private final OffsetCommitBatcher batcher;
    private final ImageTracker images;
    private Scheduler.Cancellable upkeep;

    public GroupCoordinator(int nodeId, GroupConfig config, Time time, Scheduler scheduler, ImageTracker images,
                            GroupQuorum quorum) {
        this.images = images;
        this.registry = new GroupRegistry(nodeId, config, time, scheduler, images, quorum);
        this.membership = new GroupMembership(registry);
        this.batcher = new OffsetCommitBatcher(quorum, images, time, scheduler, config.commitQueueMaxBytes(),
                config.commitTimeoutMs());
        this.offsets = new GroupOffsets(registry, batcher);
        this.admin = new GroupAdmin(registry);
        this.offsetDeletion = new OffsetDeletion(registry, admin);
    }

    /** Starts the periodic upkeep (moved groups, expiry). */
    public GroupCoordinator start() {
        long interval = registry.config.retentionCheckIntervalMs();
        upkeep = registry.scheduler.schedule("group-upkeep", admin::maintain, interval, interval);
        return this;
    }

    public ImageTracker images() {
        return images;
    }

    /** NONE when this broker coordinates {@code groupId} in its current image. */
    public Errors ownership(String groupId) {
        return registry.ownership(groupId);
    }

    public CompletableFuture<JoinGroupResponseData> joinGroup(JoinGroupRequestData request, String clientId,
                                                              String clientHost, short version) {
        return membership.join(request, clientId, clientHost, version);
    }

    public CompletableFuture<SyncGroupResponseData> syncGroup(SyncGroupRequestData request) {
        return membership.sync(request);
    }

    public HeartbeatResponseData heartbeat(HeartbeatRequestData request) {
        return membership.heartbeat(request);
    }

    public LeaveGroupResponseData leaveGroup(LeaveGroupRequestData request, short version) {
        return membership.leave(request, version);
    }

    public CompletableFuture<OffsetCommitResponseData> commitOffsets(OffsetCommitRequestData request) {
        return offsets.commit(OffsetCommitMessages.toCommit(request))
                .thenApply(outcome -> OffsetCommitMessages.answer(request, outcome));
    }

    /**
     * The admin API's alterConsumerGroupOffsets: a simple commit (generation -1), which Kafka's rules accept only
     * while the group has no members; a group with members is NON_EMPTY_GROUP (docs/behaviours.md B245).
     */
    public CompletableFuture<GroupOffsets.CommitOutcome> alterOffsets(String groupId,
                                                                      List<GroupOffsets.PartitionOffset> partitions) {
        Errors inactive = admin.requireInactive(groupId);
        if (inactive != Errors.NONE) {
            return CompletableFuture.completedFuture(new GroupOffsets.CommitOutcome(inactive, Map.of()));
        }
        return offsets.commit(new GroupOffsets.OffsetCommit(groupId, -1, "", null, partitions)).thenApply(outcome ->
                // Members that joined between the check and the commit make the simple commit UNKNOWN_MEMBER_ID.
                outcome.error() == Errors.UNKNOWN_MEMBER_ID
                        ? new GroupOffsets.CommitOutcome(Errors.NON_EMPTY_GROUP, Map.of()) : outcome);
    }

    /** @param topics topic -> partitions, or null for every committed offset of the group */
    public GroupOffsets.Fetched fetchOffsets(String groupId, Map<String, List<Integer>> topics) {
        return offsets.fetch(groupId, topics);
    }

    public List<GroupAdmin.Summary> listGroups() {
        return admin.list();
    }

    public GroupAdmin.Described describeGroup(String groupId) {
        return admin.describe(groupId);
    }

    public CompletableFuture<Map<String, Errors>> deleteGroups(List<String> groupIds) {
        return admin.delete(groupIds);
    }

    /** OffsetDelete. @param partitions topic -> partitions */
    public CompletableFuture<OffsetDeletion.Outcome> deleteOffsets(String groupId, Map<String, List<Integer>> partitions) {
        return offsetDeletion.delete(groupId, partitions);
    }

    /** One upkeep pass now; completes with the groups expired. */
    public CompletableFuture<List<String>> runUpkeep() {
        return admin.maintain();
    }

    /** CommitOffsets entries sent to the quorum so far (the group commit's effect, and a metric). */
    public long commitEntriesSent() {
        return batcher.entriesSent();
    }

    @Override
    public void close() {
        GroupRegistry.cancel(upkeep);
        for (ClassicGroup g : List.copyOf(registry.groups().values())) {
            registry.drop(g, Errors.NOT_COORDINATOR);
        }
    }
}
