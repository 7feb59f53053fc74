package io.tideline.node.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.GroupImage;
import io.tideline.node.metadata.ImageSerde;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.CommitOffsets;
import io.tideline.proto.metadata.CommittedOffset;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.DeleteGroupOffsets;
import io.tideline.proto.metadata.DeleteGroups;
import io.tideline.proto.metadata.ExpireGroups;
import io.tideline.proto.metadata.GroupMemberRecord;
import io.tideline.proto.metadata.GroupMetadataRecord;
import io.tideline.proto.metadata.GroupOffsetCommit;
import io.tideline.proto.metadata.MetadataSnapshot;
import io.tideline.proto.metadata.StoreGroup;
import io.tideline.proto.metadata.TopicPartitionRef;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The group commands of the controller: docs/kafka-protocol.md, Consumer groups. */
class GroupsControllerTest {
    private final ControllerHarness h = new ControllerHarness(false);

    private static GroupOffsetCommit commit(String group, int generation, String member, String topic, int p, long offset) {
        return GroupOffsetCommit.newBuilder().setGroupId(group).setGeneration(generation).setMemberId(member)
                .addOffsets(CommittedOffset.newBuilder().setTopic(topic).setPartition(p).setOffset(offset)
                        .setLeaderEpoch(-1).setMetadata("md")).build();
    }

    private ControllerResult commits(GroupOffsetCommit... commits) {
        return h.apply(ControllerCommand.newBuilder().setCommitOffsets(CommitOffsets.newBuilder()
                .addAllCommits(List.of(commits))));
    }

    private static GroupMetadataRecord group(String id, int generation, String... members) {
        GroupMetadataRecord.Builder b = GroupMetadataRecord.newBuilder().setGroupId(id).setProtocolType("consumer")
                .setGeneration(generation);
        if (members.length > 0) {
            b.setProtocol("range").setLeader(members[0]);
        }
        for (String m : members) {
            b.addMembers(GroupMemberRecord.newBuilder().setMemberId(m).setClientId("c").setSessionTimeoutMs(10000)
                    .setMetadata(ByteString.copyFromUtf8("sub")).setAssignment(ByteString.copyFromUtf8("asg-" + m)));
        }
        return b.build();
    }

    private ControllerResult store(GroupMetadataRecord g, int expected) {
        return h.apply(ControllerCommand.newBuilder().setStoreGroup(StoreGroup.newBuilder().setGroup(g)
                .setExpectedGeneration(expected)));
    }

    @Test
    void oneEntryCarriesManyCommitsEachJudgedOnItsOwn() {
        store(group("g", 1, "m1"), -1);
        ControllerResult r = commits(commit("g", 1, "m1", "t", 0, 10), commit("g", 2, "m1", "t", 0, 99),
                commit("g", 1, "stranger", "t", 0, 99), commit("g", -1, "", "t", 0, 99), commit("simple", -1, "", "t", 1, 5),
                commit("simple", -1, "", "t", 2, 6));
        assertEquals(List.of(Errors.NONE, Errors.ILLEGAL_GENERATION, Errors.UNKNOWN_MEMBER_ID, Errors.UNKNOWN_MEMBER_ID,
                        Errors.NONE, Errors.NONE),
                r.response().getResultsList().stream().map(i -> Errors.forCode(i.getErrorCode())).toList());
        assertEquals(10, h.image.group("g").orElseThrow().offset("t", 0).orElseThrow().getOffset());
        GroupImage simple = h.image.group("simple").orElseThrow();
        assertEquals(List.of(5L, 6L), simple.offsets().stream().map(CommittedOffset::getOffset).toList());
        assertEquals(h.now, simple.offset("t", 1).orElseThrow().getCommitTimestampMs(), "the command's time");
        assertFalse(simple.hasMembers());
    }

    @Test
    void storeGroupIsFencedByTheExpectedGeneration() {
        assertEquals(Errors.NONE, store(group("g", 1, "a", "b"), -1).error());
        assertEquals(Errors.NOT_COORDINATOR, store(group("g", 2, "a"), -1).error(), "a stale coordinator");
        assertEquals(Errors.ILLEGAL_GENERATION, store(group("g", 1, "a"), 1).error());
        assertEquals(Errors.INVALID_REQUEST, store(group("g", 2, "a", "a"), 1).error());
        assertEquals(Errors.NONE, store(group("g", 2, "a"), 1).error());
        assertEquals(2, h.image.group("g").orElseThrow().generation());
    }

    private static GroupMetadataRecord withInstances(GroupMetadataRecord g, String... instanceIds) {
        GroupMetadataRecord.Builder b = g.toBuilder();
        for (int i = 0; i < instanceIds.length; i++) {
            b.setMembers(i, b.getMembers(i).toBuilder().setGroupInstanceId(instanceIds[i]));
        }
        return b.build();
    }

    /** docs/behaviours.md B174: a static member's new member id is stored without a new generation. */
    @Test
    void storeGroupAtTheSameGenerationOnlyReplacesStaticMembersIds() {
        assertEquals(Errors.NONE, store(withInstances(group("g", 1, "a-1", "b-1", "d"), "a", "b", ""), -1).error());
        assertEquals(Errors.NONE, store(withInstances(group("g", 1, "a-1", "b-2", "d"), "a", "b", ""), 1).error(),
                "b's new member id");
        assertEquals(List.of("a-1", "b-2", "d"), h.image.group("g").orElseThrow().metadata().orElseThrow()
                .getMembersList().stream().map(GroupMemberRecord::getMemberId).toList());
        assertEquals(Errors.ILLEGAL_GENERATION, store(withInstances(group("g", 1, "a-1", "b-2", "e"), "a", "b", ""), 1)
                .error(), "a dynamic member cannot be swapped");
        assertEquals(Errors.ILLEGAL_GENERATION, store(withInstances(group("g", 1, "a-1", "b-2", "d", "x"), "a", "b", "",
                "x"), 1).error(), "nor added");
        assertEquals(Errors.ILLEGAL_GENERATION, store(withInstances(group("g", 1, "a-1", "c-1", "d"), "a", "c", ""), 1)
                .error(), "an instance id the group does not hold");
        assertEquals(Errors.ILLEGAL_GENERATION, store(withInstances(group("g", 1, "b-3", "b-4", "d"), "b", "b", ""), 1)
                .error(), "one stored member taken twice");
        assertEquals(Errors.NOT_COORDINATOR, store(withInstances(group("g", 1, "a-1", "b-5", "d"), "a", "b", ""), 0)
                .error(), "the expected generation still fences a stale coordinator");
    }

    @Test
    void deleteGroupsRefusesMembersAndUnknownGroups() {
        store(group("busy", 1, "a"), -1);
        commits(commit("idle", -1, "", "t", 0, 1));
        ControllerResult r = h.apply(ControllerCommand.newBuilder().setDeleteGroups(DeleteGroups.newBuilder()
                .addGroupIds("busy").addGroupIds("idle").addGroupIds("none").addGroupIds("idle")));
        assertEquals(List.of(Errors.NON_EMPTY_GROUP, Errors.NONE, Errors.GROUP_ID_NOT_FOUND, Errors.GROUP_ID_NOT_FOUND),
                r.response().getResultsList().stream().map(i -> Errors.forCode(i.getErrorCode())).toList());
        assertTrue(h.image.group("idle").isEmpty());
        assertTrue(h.image.group("busy").isPresent());
    }

    @Test
    void expiryRemovesOnlyEmptyGroupsIdleForTheRetention() {
        commits(commit("old", -1, "", "t", 0, 1));
        store(group("members", 1, "a"), -1);
        h.now += 1000;
        commits(commit("recent", -1, "", "t", 0, 1));
        ControllerResult r = h.apply(ControllerCommand.newBuilder().setExpireGroups(ExpireGroups.newBuilder()
                .addGroupIds("old").addGroupIds("members").addGroupIds("recent").setRetentionMs(1000)));
        assertEquals(List.of("old"), r.response().getResultsList().stream().map(i -> i.getName()).toList());
        assertTrue(h.image.group("old").isEmpty());
        assertTrue(h.image.group("members").isPresent());
        assertTrue(h.image.group("recent").isPresent());
    }

    @Test
    void deleteGroupOffsetsRemovesOnlyTheNamedOffsetsAndSurvivesASnapshot() throws Exception {
        commits(commit("g", -1, "", "t", 0, 10), commit("g", -1, "", "t", 1, 11), commit("g", -1, "", "u", 0, 20));
        ControllerResult r = h.apply(ControllerCommand.newBuilder().setDeleteGroupOffsets(DeleteGroupOffsets.newBuilder()
                .setGroupId("g").addPartitions(key("t", 0)).addPartitions(key("t", 0)).addPartitions(key("t", 7))
                .addPartitions(key("none", 0))));
        assertEquals(Errors.NONE, r.error(), "a partition without an offset is not an error");
        assertEquals(1, r.records().size());
        assertEquals(1, r.records().get(0).getRemoveOffsets().getPartitionsCount(), "only what the image holds, once");
        GroupImage g = h.image.group("g").orElseThrow();
        assertTrue(g.offset("t", 0).isEmpty());
        assertEquals(List.of(11L, 20L), g.offsets().stream().map(CommittedOffset::getOffset).toList());
        assertEquals(h.image, ImageSerde.fromSnapshot(MetadataSnapshot.parseFrom(ImageSerde.toSnapshot(h.image)
                .toByteString())));

        ControllerResult nothing = h.apply(ControllerCommand.newBuilder().setDeleteGroupOffsets(
                DeleteGroupOffsets.newBuilder().setGroupId("g").addPartitions(key("t", 0))));
        assertEquals(Errors.NONE, nothing.error());
        assertTrue(nothing.records().isEmpty(), "deleting again writes nothing");
        assertEquals(Errors.GROUP_ID_NOT_FOUND, h.apply(ControllerCommand.newBuilder().setDeleteGroupOffsets(
                DeleteGroupOffsets.newBuilder().setGroupId("absent").addPartitions(key("t", 0)))).error());

        ControllerResult last = h.apply(ControllerCommand.newBuilder().setDeleteGroupOffsets(DeleteGroupOffsets
                .newBuilder().setGroupId("g").addPartitions(key("t", 1)).addPartitions(key("u", 0))));
        assertEquals(List.of("g"), last.response().getResultsList().stream().map(i -> i.getName()).toList());
        assertTrue(h.image.group("g").isEmpty(), "no members and no offsets left: the group is gone");

        store(group("busy", 1, "a"), -1);
        commits(commit("busy", 1, "a", "t", 0, 1));
        h.apply(ControllerCommand.newBuilder().setDeleteGroupOffsets(DeleteGroupOffsets.newBuilder()
                .setGroupId("busy").addPartitions(key("t", 0))));
        assertTrue(h.image.group("busy").orElseThrow().offsets().isEmpty());
        assertTrue(h.image.group("busy").orElseThrow().hasMembers(), "a group with members stays");
    }

    private static TopicPartitionRef key(String topic, int partition) {
        return TopicPartitionRef.newBuilder().setTopic(topic).setPartition(partition).build();
    }

    @Test
    void groupsSurviveASnapshotRoundTrip() throws Exception {
        store(group("g", 3, "a", "b"), -1);
        commits(commit("g", 3, "a", "t", 1, 11), commit("g", 3, "b", "t", 0, 10), commit("s", -1, "", "u", 0, 5));
        MetadataSnapshot snapshot = ImageSerde.toSnapshot(h.image);
        assertEquals(List.of("g", "s"), snapshot.getGroupsList().stream().map(g -> g.getGroupId()).toList());
        MetadataImage restored = ImageSerde.fromSnapshot(MetadataSnapshot.parseFrom(snapshot.toByteString()));
        assertEquals(h.image, restored);
        GroupImage g = restored.group("g").orElseThrow();
        assertEquals(3, g.generation());
        assertEquals("asg-b", g.metadata().orElseThrow().getMembers(1).getAssignment().toStringUtf8());
        assertEquals(List.of(0, 1), g.offsets().stream().map(CommittedOffset::getPartition).toList(), "sorted");
        h.image = restored;
        assertEquals(Errors.NONE, commits(commit("g", 3, "a", "t", 1, 12)).response().getResults(0).getErrorCode() == 0
                ? Errors.NONE : Errors.UNKNOWN_SERVER_ERROR, "replay goes on from the restored image");
    }
}
