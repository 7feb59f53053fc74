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

    /** A commit, as OffsetCommit and the admin API's alter both send it. @param generation -1 for a simple commit */
    public record OffsetCommit(String groupId, int generation, String memberId, String groupInstanceId,
                               List<PartitionOffset> offsets) {
    }

    /** @param metadata null for none; leaderEpoch -1 when unknown */
    public record PartitionOffset(String topic, int partition, long offset, int leaderEpoch, String metadata) {
    }

    /** The error of the whole commit, else each partition's ({@link #partition}). */
    public record CommitOutcome(Errors error, Map<String, Errors> partitions) {
        public Errors partition(String topic, int partition) {
            return error != Errors.NONE ? error
                    : partitions.getOrDefault(RequestPartitionKey.of(topic, partition), Errors.NONE);
        }
    }

    CompletableFuture<CommitOutcome> commit(OffsetCommit req) {
        Errors error = check(req);
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(new CommitOutcome(error, Map.of()));
        }
        GroupOffsetCommit.Builder commit = GroupOffsetCommit.newBuilder().setGroupId(req.groupId())
                .setGeneration(req.generation()).setMemberId(req.memberId() == null ? "" : req.memberId());
        Map<String, Errors> refused = new LinkedHashMap<>();
        for (PartitionOffset p : req.offsets()) {
            String metadata = p.metadata();
            if (metadata != null && metadata.getBytes(StandardCharsets.UTF_8).length > registry.config.metadataMaxBytes()) {
                refused.put(RequestPartitionKey.of(p.topic(), p.partition()), Errors.OFFSET_METADATA_TOO_LARGE);
                continue;
            }
            if (p.topic() == null || p.topic().isEmpty() || p.partition() < 0) {
                refused.put(RequestPartitionKey.of(p.topic(), p.partition()), Errors.UNKNOWN_TOPIC_OR_PARTITION);
                continue;
            }
            commit.addOffsets(CommittedOffset.newBuilder().setTopic(p.topic()).setPartition(p.partition())
                    .setOffset(p.offset()).setLeaderEpoch(p.leaderEpoch()).setMetadata(metadata == null ? "" : metadata));
        }
        if (commit.getOffsetsCount() == 0) {
            return CompletableFuture.completedFuture(new CommitOutcome(Errors.NONE, refused));
        }
        return batcher.commit(commit.build()).thenApply(outcome -> {
            if (outcome != Errors.NONE) {
                // The quorum's answer holds for every partition it was sent; the refused keep their own error.
                Map<String, Errors> all = new LinkedHashMap<>(refused);
                for (CommittedOffset o : commit.getOffsetsList()) {
                    all.put(RequestPartitionKey.of(o.getTopic(), o.getPartition()), outcome);
                }
                return new CommitOutcome(Errors.NONE, all);
            }
            return new CommitOutcome(Errors.NONE, refused);
        });
    }

    /** Kafka's classic rules: a simple commit (generation < 0) needs an Empty group, else a current member. */
    private Errors check(OffsetCommit req) {
        Errors owner = registry.ownership(req.groupId());
        if (owner != Errors.NONE) {
            return owner;
        }
        boolean simple = req.generation() < 0;
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
            if (req.generation() != g.generation) {
                return Errors.ILLEGAL_GENERATION;
            }
            // A commit shows the member is alive, as a heartbeat does.
            m.lastHeartbeatMs = registry.time.milliseconds();
            return Errors.NONE;
        }
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
