package io.tideline.node.controller;

import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.GroupImage;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.CommitOffsets;
import io.tideline.proto.metadata.CommittedOffset;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.DeleteGroupOffsets;
import io.tideline.proto.metadata.DeleteGroups;
import io.tideline.proto.metadata.ExpireGroups;
import io.tideline.proto.metadata.GroupMemberRecord;
import io.tideline.proto.metadata.GroupMetadataRecord;
import io.tideline.proto.metadata.GroupOffsetCommit;
import io.tideline.proto.metadata.ItemResult;
import io.tideline.proto.metadata.MetadataRecord;
import io.tideline.proto.metadata.OffsetCommitRecord;
import io.tideline.proto.metadata.RemoveGroupRecord;
import io.tideline.proto.metadata.RemoveOffsetsRecord;
import io.tideline.proto.metadata.StoreGroup;
import io.tideline.proto.metadata.TopicPartitionRef;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Consumer groups in the quorum (docs/kafka-protocol.md, Consumer groups): committed offsets, each group's
 * metadata after a completed rebalance, deletion and expiry. The coordinator checks membership in its memory
 * first; the checks here are against the image and fence a coordinator that lost the group to another one.
 */
final class GroupHandlers {

    /**
     * One entry holding every commit a coordinator queued meanwhile. Each commit is judged on its own against
     * the image as the earlier commits of the same entry left it.
     */
    ControllerResult commitOffsets(MetadataImage image, CommitOffsets cmd, long ts) {
        ControllerResponse.Builder response = ControllerResponse.newBuilder();
        List<MetadataRecord> records = new ArrayList<>();
        Set<String> created = new HashSet<>();
        for (GroupOffsetCommit commit : cmd.getCommitsList()) {
            Optional<GroupImage> group = image.group(commit.getGroupId());
            Errors error = check(group, commit);
            response.addResults(ItemResult.newBuilder().setName(commit.getGroupId()).setErrorCode(error.code()));
            if (error != Errors.NONE) {
                continue;
            }
            OffsetCommitRecord.Builder record = OffsetCommitRecord.newBuilder().setGroupId(commit.getGroupId());
            for (CommittedOffset o : commit.getOffsetsList()) {
                record.addOffsets(o.toBuilder().setCommitTimestampMs(ts));
            }
            // A simple commit to a group the image does not know yet creates it Empty: give it metadata too,
            // so that the next commit of the same entry sees an existing group.
            if (group.isEmpty() && created.add(commit.getGroupId())) {
                records.add(MetadataRecord.newBuilder().setGroupMetadata(GroupMetadataRecord.newBuilder()
                        .setGroupId(commit.getGroupId()).setGeneration(0).setTimestampMs(ts)).build());
            }
            records.add(MetadataRecord.newBuilder().setOffsetCommit(record).build());
        }
        return ControllerResult.of(response.build(), records);
    }

    private static Errors check(Optional<GroupImage> group, GroupOffsetCommit commit) {
        if (commit.getGroupId().isEmpty()) {
            return Errors.INVALID_GROUP_ID;
        }
        if (commit.getGeneration() < 0) {
            // Kafka's simple commit (kafka-consumer-groups --reset-offsets): allowed while the group has no members.
            return group.isPresent() && group.get().hasMembers() ? Errors.UNKNOWN_MEMBER_ID : Errors.NONE;
        }
        if (group.isEmpty() || group.get().metadata().isEmpty()) {
            return Errors.ILLEGAL_GENERATION;
        }
        GroupMetadataRecord metadata = group.get().metadata().get();
        if (metadata.getMembersList().stream().noneMatch(m -> m.getMemberId().equals(commit.getMemberId()))) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        return metadata.getGeneration() == commit.getGeneration() ? Errors.NONE : Errors.ILLEGAL_GENERATION;
    }

    ControllerResult storeGroup(MetadataImage image, StoreGroup cmd, long ts) {
        GroupMetadataRecord group = cmd.getGroup();
        if (group.getGroupId().isEmpty()) {
            return ControllerResult.error(Errors.INVALID_GROUP_ID, "the group id is empty");
        }
        int current = image.group(group.getGroupId()).map(GroupImage::generation).orElse(-1);
        if (current != cmd.getExpectedGeneration()) {
            return ControllerResult.error(Errors.NOT_COORDINATOR, "group " + group.getGroupId() + " is at generation "
                    + current + " in the metadata, not " + cmd.getExpectedGeneration()
                    + ": another coordinator stored it meanwhile");
        }
        boolean replacement = group.getGeneration() == current
                && replacesStaticMembers(image.group(group.getGroupId()).flatMap(GroupImage::metadata), group);
        if (group.getGeneration() <= current && !replacement) {
            return ControllerResult.error(Errors.ILLEGAL_GENERATION, "group " + group.getGroupId() + " generation "
                    + group.getGeneration() + " is not after the stored " + current);
        }
        Set<String> ids = new LinkedHashSet<>();
        for (GroupMemberRecord m : group.getMembersList()) {
            if (m.getMemberId().isEmpty() || !ids.add(m.getMemberId())) {
                return ControllerResult.error(Errors.INVALID_REQUEST, "group " + group.getGroupId()
                        + " has an empty or repeated member id '" + m.getMemberId() + "'");
            }
        }
        return ControllerResult.of(ControllerResponse.getDefaultInstance(), List.of(MetadataRecord.newBuilder()
                .setGroupMetadata(group.toBuilder().setTimestampMs(ts)).build()));
    }

    /**
     * Whether {@code next} is the stored generation with only static members' ids changed: a static member that
     * rejoined under a new member id without a rebalance (docs/behaviours.md B174). Every member of {@code next}
     * is a stored member, by member id, or takes the place of the stored member of its group.instance.id.
     */
    private static boolean replacesStaticMembers(Optional<GroupMetadataRecord> stored, GroupMetadataRecord next) {
        if (stored.isEmpty() || stored.get().getMembersCount() != next.getMembersCount()) {
            return false;
        }
        Set<String> ids = new HashSet<>();
        Map<String, String> byInstance = new HashMap<>();
        for (GroupMemberRecord m : stored.get().getMembersList()) {
            ids.add(m.getMemberId());
            if (!m.getGroupInstanceId().isEmpty()) {
                byInstance.put(m.getGroupInstanceId(), m.getMemberId());
            }
        }
        Set<String> taken = new HashSet<>();
        for (GroupMemberRecord m : next.getMembersList()) {
            String place = ids.contains(m.getMemberId()) ? m.getMemberId() : byInstance.get(m.getGroupInstanceId());
            if (place == null || !taken.add(place)) {
                return false;
            }
        }
        return true;
    }

    ControllerResult deleteGroups(MetadataImage image, DeleteGroups cmd) {
        ControllerResponse.Builder response = ControllerResponse.newBuilder();
        List<MetadataRecord> records = new ArrayList<>();
        Map<String, Boolean> removed = new HashMap<>();
        for (String id : cmd.getGroupIdsList()) {
            Optional<GroupImage> group = image.group(id);
            Errors error;
            if (group.isEmpty() || removed.containsKey(id)) {
                error = Errors.GROUP_ID_NOT_FOUND;
            } else if (group.get().hasMembers()) {
                error = Errors.NON_EMPTY_GROUP;
            } else {
                error = Errors.NONE;
                removed.put(id, true);
                records.add(MetadataRecord.newBuilder().setRemoveGroup(RemoveGroupRecord.newBuilder().setGroupId(id))
                        .build());
            }
            response.addResults(ItemResult.newBuilder().setName(id).setErrorCode(error.code()));
        }
        return ControllerResult.of(response.build(), records);
    }

    /**
     * OffsetDelete after the coordinator's check of its members' subscriptions. Only offsets the image holds are
     * named in the record, so replay never removes what is not there; the answer is NONE for the others too, as
     * Kafka answers a partition without a committed offset.
     */
    ControllerResult deleteGroupOffsets(MetadataImage image, DeleteGroupOffsets cmd) {
        Optional<GroupImage> group = image.group(cmd.getGroupId());
        if (group.isEmpty()) {
            return ControllerResult.error(Errors.GROUP_ID_NOT_FOUND, "no group " + cmd.getGroupId());
        }
        RemoveOffsetsRecord.Builder removed = RemoveOffsetsRecord.newBuilder().setGroupId(cmd.getGroupId());
        Set<String> seen = new HashSet<>();
        for (TopicPartitionRef k : cmd.getPartitionsList()) {
            if (group.get().offset(k.getTopic(), k.getPartition()).isPresent()
                    && seen.add(k.getTopic() + "\u0000" + k.getPartition())) {
                removed.addPartitions(k);
            }
        }
        if (removed.getPartitionsCount() == 0) {
            return ControllerResult.of(ControllerResponse.getDefaultInstance(), List.of());
        }
        // A group with neither members nor offsets left is gone, as Kafka's coordinator then removes it; the
        // result names it so that the coordinator forgets it too.
        if (!group.get().hasMembers() && removed.getPartitionsCount() == group.get().offsets().size()) {
            return ControllerResult.of(ControllerResponse.newBuilder().addResults(ItemResult.newBuilder()
                    .setName(cmd.getGroupId())).build(), List.of(MetadataRecord.newBuilder()
                    .setRemoveGroup(RemoveGroupRecord.newBuilder().setGroupId(cmd.getGroupId())).build()));
        }
        return ControllerResult.of(ControllerResponse.getDefaultInstance(),
                List.of(MetadataRecord.newBuilder().setRemoveOffsets(removed).build()));
    }

    /** The coordinator names the groups; this decides on the image and the command's time alone. */
    ControllerResult expireGroups(MetadataImage image, ExpireGroups cmd, long ts) {
        if (cmd.getRetentionMs() <= 0) {
            return ControllerResult.error(Errors.INVALID_REQUEST, "retention_ms must be positive");
        }
        ControllerResponse.Builder response = ControllerResponse.newBuilder();
        List<MetadataRecord> records = new ArrayList<>();
        for (String id : new LinkedHashSet<>(cmd.getGroupIdsList())) {
            Optional<GroupImage> group = image.group(id);
            if (group.isPresent() && !group.get().hasMembers()
                    && ts - group.get().lastActivityMs() >= cmd.getRetentionMs()) {
                records.add(MetadataRecord.newBuilder().setRemoveGroup(RemoveGroupRecord.newBuilder().setGroupId(id))
                        .build());
                response.addResults(ItemResult.newBuilder().setName(id));
            }
        }
        return ControllerResult.of(response.build(), records);
    }
}
