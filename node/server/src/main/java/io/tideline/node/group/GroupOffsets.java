package io.tideline.node.group;

import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.GroupImage;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.CommittedOffset;
import io.tideline.proto.metadata.GroupOffsetCommit;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;

/**
 * OffsetCommit and OffsetFetch. Commits are checked against the group in memory as Kafka checks them, then go
 * through the {@link OffsetCommitBatcher} into the quorum; fetches read the image, which holds every commit
 * this coordinator acknowledged (the batcher answers only once the local image has it).
 */
public final class GroupOffsets {
    /** Kafka's answer for a partition without a committed offset. */
    static final long NO_OFFSET = -1L;

    private final GroupRegistry registry;
    private final OffsetCommitBatcher batcher;

    GroupOffsets(GroupRegistry registry, OffsetCommitBatcher batcher) {
        this.registry = registry;
        this.batcher = batcher;
    }

    CompletableFuture<OffsetCommitResponseData> commit(OffsetCommitRequestData req) {
        Errors error = check(req);
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(answer(req, p -> error));
        }
        GroupOffsetCommit.Builder commit = GroupOffsetCommit.newBuilder().setGroupId(req.groupId())
                .setGeneration(req.generationIdOrMemberEpoch()).setMemberId(req.memberId() == null ? "" : req.memberId());
        Map<String, Errors> refused = new LinkedHashMap<>();
        for (OffsetCommitRequestData.OffsetCommitRequestTopic t : req.topics()) {
            for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                String metadata = p.committedMetadata();
                if (metadata != null && metadata.getBytes(StandardCharsets.UTF_8).length > registry.config.metadataMaxBytes()) {
                    refused.put(RequestPartitionKey.of(t.name(), p.partitionIndex()), Errors.OFFSET_METADATA_TOO_LARGE);
                    continue;
                }
                if (t.name() == null || t.name().isEmpty() || p.partitionIndex() < 0) {
                    refused.put(RequestPartitionKey.of(t.name(), p.partitionIndex()), Errors.UNKNOWN_TOPIC_OR_PARTITION);
                    continue;
                }
                commit.addOffsets(CommittedOffset.newBuilder().setTopic(t.name()).setPartition(p.partitionIndex())
                        .setOffset(p.committedOffset()).setLeaderEpoch(p.committedLeaderEpoch())
                        .setMetadata(metadata == null ? "" : metadata));
            }
        }
        if (commit.getOffsetsCount() == 0) {
            return CompletableFuture.completedFuture(answer(req, p -> refused.getOrDefault(p, Errors.NONE)));
        }
        return batcher.commit(commit.build())
                .thenApply(outcome -> answer(req, p -> refused.getOrDefault(p, outcome)));
    }

    /** Kafka's classic rules: a simple commit (generation < 0) needs an Empty group, else a current member. */
    private Errors check(OffsetCommitRequestData req) {
        Errors owner = registry.ownership(req.groupId());
        if (owner != Errors.NONE) {
            return owner;
        }
        boolean simple = req.generationIdOrMemberEpoch() < 0;
        GroupRegistry.Lookup found = registry.find(req.groupId(), simple);
        if (found.error() != Errors.NONE) {
            return found.error();
        }
        if (found.group() == null) {
            return Errors.ILLEGAL_GENERATION;
        }
        ClassicGroup g = found.group();
        synchronized (g) {
            if (g.is(GroupState.DEAD)) {
                return Errors.COORDINATOR_NOT_AVAILABLE;
            }
            if (simple && g.is(GroupState.EMPTY)) {
                return Errors.NONE;
            }
            // A static member's old incarnation is fenced here too (docs/behaviours.md B175).
            String instanceId = req.groupInstanceId();
            String holder = instanceId == null ? null : g.staticMembers.get(instanceId);
            if (instanceId != null && holder == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            if (holder != null && !holder.equals(req.memberId())) {
                return Errors.FENCED_INSTANCE_ID;
            }
            if (g.is(GroupState.COMPLETING_REBALANCE)) {
                return Errors.REBALANCE_IN_PROGRESS;
            }
            GroupMember m = g.members.get(req.memberId());
            if (m == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            if (req.generationIdOrMemberEpoch() != g.generation) {
                return Errors.ILLEGAL_GENERATION;
            }
            // A commit shows the member is alive, as a heartbeat does.
            m.lastHeartbeatMs = registry.time.milliseconds();
            return Errors.NONE;
        }
    }

    private static OffsetCommitResponseData answer(OffsetCommitRequestData req,
                                                   java.util.function.Function<String, Errors> errorOf) {
        OffsetCommitResponseData response = new OffsetCommitResponseData();
        for (OffsetCommitRequestData.OffsetCommitRequestTopic t : req.topics()) {
            OffsetCommitResponseTopic topic = new OffsetCommitResponseTopic().setName(t.name());
            for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                topic.partitions().add(new OffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex())
                        .setErrorCode(errorOf.apply(RequestPartitionKey.of(t.name(), p.partitionIndex())).code()));
            }
            response.topics().add(topic);
        }
        return response;
    }

    /** One group's committed offsets: every one when {@code topics} is null, else those asked for. */
    public record Fetched(Errors error, List<FetchedTopic> topics) {
    }

    public record FetchedTopic(String name, List<FetchedPartition> partitions) {
    }

    public record FetchedPartition(int partition, long offset, int leaderEpoch, String metadata) {
    }

    /** @param topics topic -> partitions, null for all */
    Fetched fetch(String groupId, Map<String, List<Integer>> topics) {
        Errors owner = registry.ownership(groupId);
        if (owner != Errors.NONE) {
            return new Fetched(owner, List.of());
        }
        MetadataImage image = registry.images.image();
        Optional<GroupImage> group = image.group(groupId);
        List<FetchedTopic> out = new ArrayList<>();
        if (topics == null) {
            Map<String, List<FetchedPartition>> byTopic = new LinkedHashMap<>();
            group.ifPresent(g -> g.offsets().forEach(o -> byTopic.computeIfAbsent(o.getTopic(), k -> new ArrayList<>())
                    .add(fetched(o))));
            byTopic.forEach((name, partitions) -> out.add(new FetchedTopic(name, partitions)));
        } else {
            topics.forEach((name, partitions) -> {
                List<FetchedPartition> list = new ArrayList<>();
                for (int p : partitions) {
                    list.add(group.flatMap(g -> g.offset(name, p)).map(GroupOffsets::fetched)
                            .orElse(new FetchedPartition(p, NO_OFFSET, -1, "")));
                }
                out.add(new FetchedTopic(name, list));
            });
        }
        return new Fetched(Errors.NONE, out);
    }

    private static FetchedPartition fetched(CommittedOffset o) {
        return new FetchedPartition(o.getPartition(), o.getOffset(), o.getLeaderEpoch(), o.getMetadata());
    }
}
