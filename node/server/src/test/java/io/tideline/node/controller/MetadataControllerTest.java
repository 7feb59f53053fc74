package io.tideline.node.controller;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.ImageSerde;
import io.tideline.proto.metadata.AlterConfigs;
import io.tideline.proto.metadata.AlterPartition;
import io.tideline.proto.metadata.ChangeReason;
import io.tideline.proto.metadata.ConfigEntry;
import io.tideline.proto.metadata.ControlledShutdown;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.CreatableTopic;
import io.tideline.proto.metadata.CreateTopics;
import io.tideline.proto.metadata.DeleteTopics;
import io.tideline.proto.metadata.ElectLeaders;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.RegisterBroker;
import io.tideline.proto.metadata.ReplicaAssignment;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MetadataControllerTest {

    @Test
    void registrationStartsFencedWithTheRaftIndexAsEpochAndARetryIsIdempotent() {
        ControllerHarness h = new ControllerHarness(false);
        ControllerResult first = h.apply(ControllerCommand.newBuilder().setRegisterBroker(
                RegisterBroker.newBuilder().setBrokerId(1).setIncarnationId("a")));
        assertEquals(1, first.response().getBrokerEpoch());
        assertTrue(h.image.brokers().get(1).getFenced());
        ControllerResult retry = h.apply(ControllerCommand.newBuilder().setRegisterBroker(
                RegisterBroker.newBuilder().setBrokerId(1).setIncarnationId("a")));
        assertEquals(1, retry.response().getBrokerEpoch());
        assertTrue(retry.records().isEmpty());
    }

    @Test
    void topicCreationPlacesReplicasRoundRobinWithTheFirstReplicaLeading() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(0, 1, 2);
        ControllerResult r = h.createTopic("orders", 6, 3);
        assertEquals(Errors.NONE.code(), ControllerHarness.itemError(r.response()));
        Set<Integer> leaders = new HashSet<>();
        for (int p = 0; p < 6; p++) {
            PartitionRecord partition = h.partition("orders", p);
            assertEquals(3, new HashSet<>(partition.getReplicasList()).size());
            assertEquals(partition.getReplicasList(), partition.getIsrList());
            assertEquals(partition.getReplicas(0), partition.getLeader());
            assertEquals(0, partition.getLeaderEpoch());
            leaders.add(partition.getLeader());
        }
        assertEquals(Set.of(0, 1, 2), leaders, "leadership is spread over every broker");
    }

    @Test
    void topicCreationRefusesBadNamesDuplicatesCollisionsAndTooFewBrokers() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(0, 1);
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION.code(), ControllerHarness.itemError(h.createTopic("bad name", 1, 1).response()));
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION.code(), ControllerHarness.itemError(h.createTopic("..", 1, 1).response()));
        assertEquals(Errors.INVALID_REPLICATION_FACTOR.code(), ControllerHarness.itemError(h.createTopic("t", 1, 3).response()));
        assertEquals(Errors.INVALID_PARTITIONS.code(), ControllerHarness.itemError(h.createTopic("t", 0, 1).response()));
        assertEquals(Errors.NONE.code(), ControllerHarness.itemError(h.createTopic("a.b", 1, 1).response()));
        assertEquals(Errors.TOPIC_ALREADY_EXISTS.code(), ControllerHarness.itemError(h.createTopic("a.b", 1, 1).response()));
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION.code(), ControllerHarness.itemError(h.createTopic("a_b", 1, 1).response()),
                "'.' and '_' collide");
        assertEquals(1, h.image.topics().size());
    }

    private static ControllerResult elect(ControllerHarness h, int electionType, String topic, int partition) {
        return h.apply(ControllerCommand.newBuilder().setElectLeaders(ElectLeaders.newBuilder().setElectionType(electionType)
                .addPartitions(io.tideline.proto.metadata.TopicPartitionRef.newBuilder().setTopic(topic)
                        .setPartition(partition))));
    }

    /**
     * Topic t, one partition on brokers 0 and 1; the follower is fenced, then the leader: offline, with the leader
     * as the last ISR member. Returns {last ISR member, the other replica}.
     */
    private static int[] offlineAfterBothFenced(ControllerHarness h) {
        h.brokers(0, 1);
        h.createTopic("t", 1, 2);
        int last = h.partition("t", 0).getLeader();
        int other = h.partition("t", 0).getReplicasList().stream().filter(r -> r != last).findFirst().orElseThrow();
        h.fence(other);
        h.fence(last);
        assertEquals(-1, h.partition("t", 0).getLeader());
        return new int[] {last, other};
    }

    @Test
    void uncleanElectionGivesALeaderlessPartitionItsFirstLiveReplicaEvenOutOfTheIsr() {
        ControllerHarness h = new ControllerHarness(false);
        int[] lastAndOther = offlineAfterBothFenced(h);
        int last = lastAndOther[0];
        int other = lastAndOther[1];
        assertEquals(List.of(last), h.partition("t", 0).getIsrList(), "the last in-sync replica stays recorded");
        assertEquals(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE.code(),
                ControllerHarness.itemError(elect(h, PartitionHandlers.UNCLEAN, "t", 0).response()));

        h.unfence(other);
        assertEquals(-1, h.partition("t", 0).getLeader(), "a replica out of the ISR does not lead on its own");
        assertEquals(Errors.PREFERRED_LEADER_NOT_AVAILABLE.code(),
                ControllerHarness.itemError(elect(h, 0, "t", 0).response()));
        int epochBefore = h.partition("t", 0).getLeaderEpoch();
        ControllerResult unclean = elect(h, PartitionHandlers.UNCLEAN, "t", 0);
        assertEquals(Errors.NONE.code(), ControllerHarness.itemError(unclean.response()));
        PartitionRecord after = h.partition("t", 0);
        assertEquals(other, after.getLeader());
        assertEquals(List.of(other), after.getIsrList());
        assertEquals(epochBefore + 1, after.getLeaderEpoch(), "a new leader epoch, so the old one's tail is truncated");
        assertEquals(Errors.ELECTION_NOT_NEEDED.code(),
                ControllerHarness.itemError(elect(h, PartitionHandlers.UNCLEAN, "t", 0).response()));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
                ControllerHarness.itemError(elect(h, PartitionHandlers.UNCLEAN, "t", 5).response()));
    }

    /**
     * The controller's own periodic unclean election (UncleanLeaderElector): it plans only partitions with no
     * leader, a live replica and the setting on (topic, else cluster default), and its command, marked
     * only_where_enabled, elects nothing where the setting is off when it is applied.
     */
    @Test
    void thePeriodicUncleanElectionTakesOnlyPartitionsWhereTheSettingIsOn() {
        ControllerHarness h = new ControllerHarness(false);
        int other = offlineAfterBothFenced(h)[1];
        h.unfence(other);
        assertEquals(-1, h.partition("t", 0).getLeader());
        ControllerSettings off = new ControllerSettings(false);
        assertEquals(List.of(), LeaderlessPartitions.uncleanElectable(h.image, off, 1000), "the setting is off");
        ControllerResult refused = h.apply(ControllerCommand.newBuilder().setElectLeaders(ElectLeaders.newBuilder()
                .setElectionType(PartitionHandlers.UNCLEAN).setOnlyWhereEnabled(true).addPartitions(
                        io.tideline.proto.metadata.TopicPartitionRef.newBuilder().setTopic("t").setPartition(0))));
        assertEquals(Errors.ELECTION_NOT_NEEDED.code(), ControllerHarness.itemError(refused.response()));
        assertEquals(-1, h.partition("t", 0).getLeader(), "turned off before the command was applied: still offline");

        h.apply(ControllerCommand.newBuilder().setAlterConfigs(AlterConfigs.newBuilder().setTopic("t")
                .addSet(ConfigEntry.newBuilder().setKey("unclean.leader.election.enable").setValue("true"))));
        var planned = LeaderlessPartitions.uncleanElectable(h.image, off, 1000);
        assertEquals(1, planned.size());
        ControllerResult elected = h.apply(ControllerCommand.newBuilder().setElectLeaders(ElectLeaders.newBuilder()
                .setElectionType(PartitionHandlers.UNCLEAN).setOnlyWhereEnabled(true).addAllPartitions(planned)));
        assertEquals(Errors.NONE.code(), ControllerHarness.itemError(elected.response()));
        assertEquals(other, h.partition("t", 0).getLeader());
        assertEquals(List.of(), LeaderlessPartitions.uncleanElectable(h.image, off, 1000), "it has a leader now");

        // A partition whose replicas are all gone is not planned, setting on or not.
        h.fence(other);
        assertEquals(List.of(), LeaderlessPartitions.uncleanElectable(h.image, new ControllerSettings(true), 1000));
    }

    private static ControllerCommand.Builder createWithMinIsr(String topic, int replicationFactor, String minIsr) {
        return ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder().addTopics(
                CreatableTopic.newBuilder().setName(topic).setNumPartitions(2).setReplicationFactor(replicationFactor)
                        .addConfigs(ConfigEntry.newBuilder().setKey("min.insync.replicas").setValue(minIsr))));
    }

    @Test
    void minInsyncReplicasAboveTheReplicationFactorIsRefusedAtCreateAndAtAlter() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(0, 1, 2);
        ControllerResult tooMany = h.apply(createWithMinIsr("t", 2, "3"));
        assertEquals(Errors.INVALID_CONFIG.code(), ControllerHarness.itemError(tooMany.response()));
        assertEquals("min.insync.replicas 3 is larger than the replication factor 2: acks=all produces could never "
                + "be acknowledged", tooMany.response().getResults(0).getErrorMessage());
        assertTrue(tooMany.records().isEmpty(), "nothing of the topic is written");
        assertTrue(h.image.topic("t").isEmpty());

        assertEquals(Errors.NONE.code(), ControllerHarness.itemError(h.apply(createWithMinIsr("t", 3, "3")).response()));
        ControllerResult alterUp = h.apply(ControllerCommand.newBuilder().setAlterConfigs(AlterConfigs.newBuilder()
                .setTopic("t").addSet(ConfigEntry.newBuilder().setKey("min.insync.replicas").setValue("4"))));
        assertEquals(Errors.INVALID_CONFIG.code(), alterUp.response().getErrorCode());
        assertTrue(alterUp.response().getErrorMessage().contains("replication factor 3"), alterUp.response().toString());
        assertEquals("3", h.image.topic("t").orElseThrow().configs().get("min.insync.replicas"));

        ControllerResult alterDown = h.apply(ControllerCommand.newBuilder().setAlterConfigs(AlterConfigs.newBuilder()
                .setTopic("t").addSet(ConfigEntry.newBuilder().setKey("min.insync.replicas").setValue("2"))));
        assertEquals(Errors.NONE.code(), alterDown.response().getErrorCode());
        assertEquals("2", h.image.topic("t").orElseThrow().configs().get("min.insync.replicas"));
    }

    @Test
    void topicConfigsAreValidatedByTheStoreDefinitions() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(0);
        ControllerResult bad = h.apply(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder().addTopics(
                CreatableTopic.newBuilder().setName("t").setNumPartitions(1).setReplicationFactor(1)
                        .addConfigs(ConfigEntry.newBuilder().setKey("segment.bytes").setValue("5")))));
        assertEquals(Errors.INVALID_CONFIG.code(), ControllerHarness.itemError(bad.response()));
        assertTrue(bad.response().getResults(0).getErrorMessage().contains("segment.bytes"));
        ControllerResult good = h.apply(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder().addTopics(
                CreatableTopic.newBuilder().setName("t").setNumPartitions(1).setReplicationFactor(1)
                        .addConfigs(ConfigEntry.newBuilder().setKey("retention.ms").setValue("1000")))));
        assertEquals(Errors.NONE.code(), ControllerHarness.itemError(good.response()));
        assertEquals("1000", h.image.topic("t").orElseThrow().configs().get("retention.ms"));
    }

    @Test
    void explicitAssignmentsAreValidated() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(0, 1);
        ControllerResult unknownBroker = h.apply(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder()
                .addTopics(CreatableTopic.newBuilder().setName("t").setNumPartitions(-1).setReplicationFactor(-1)
                        .addAssignments(ReplicaAssignment.newBuilder().setPartition(0).addReplicas(0).addReplicas(7)))));
        assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT.code(), ControllerHarness.itemError(unknownBroker.response()));
        ControllerResult gap = h.apply(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder()
                .addTopics(CreatableTopic.newBuilder().setName("t").setNumPartitions(-1).setReplicationFactor(-1)
                        .addAssignments(ReplicaAssignment.newBuilder().setPartition(1).addReplicas(0)))));
        assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT.code(), ControllerHarness.itemError(gap.response()));
        ControllerResult ok = h.apply(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder()
                .addTopics(CreatableTopic.newBuilder().setName("t").setNumPartitions(-1).setReplicationFactor(-1)
                        .addAssignments(ReplicaAssignment.newBuilder().setPartition(0).addReplicas(1).addReplicas(0)))));
        assertEquals(Errors.NONE.code(), ControllerHarness.itemError(ok.response()));
        assertEquals(1, h.partition("t", 0).getLeader());
    }

    @Test
    void fencingMovesLeadershipToALiveIsrMemberWithAHigherEpochAndShrinksTheIsr() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(0, 1, 2);
        h.createTopic("t", 3, 3);
        List<PartitionRecord> before = List.of(h.partition("t", 0), h.partition("t", 1), h.partition("t", 2));
        h.fence(1);
        assertTrue(h.image.brokers().get(1).getFenced());
        for (PartitionRecord old : before) {
            PartitionRecord now = h.partition("t", old.getPartition());
            assertFalse(now.getIsrList().contains(1), "fenced broker left the ISR of " + now);
            assertNotEquals(1, now.getLeader());
            if (old.getLeader() == 1) {
                assertEquals(old.getLeaderEpoch() + 1, now.getLeaderEpoch());
                assertTrue(now.getIsrList().contains(now.getLeader()));
            } else {
                assertEquals(old.getLeader(), now.getLeader());
                assertEquals(old.getLeaderEpoch(), now.getLeaderEpoch(), "an ISR shrink alone keeps the leader epoch");
            }
            assertTrue(now.getPartitionEpoch() > old.getPartitionEpoch());
            assertEquals(ChangeReason.BROKER_FENCED, h.image.recentChanges(now.getTopicId(), now.getPartition())
                    .get(0).getReason());
        }
    }

    @Test
    void withoutUncleanElectionAPartitionWithNoLiveIsrMemberGoesOfflineAndReturnsWithTheMember() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(0, 1);
        h.apply(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder().addTopics(
                CreatableTopic.newBuilder().setName("t").setNumPartitions(-1).setReplicationFactor(-1)
                        .addAssignments(ReplicaAssignment.newBuilder().setPartition(0).addReplicas(0).addReplicas(1)))));
        h.alterIsr("t", 0, List.of(0)); // broker 1 fell out of the ISR
        h.fence(0);
        PartitionRecord offline = h.partition("t", 0);
        assertEquals(-1, offline.getLeader(), "broker 1 is alive but not in the ISR: no clean leader");
        assertEquals(List.of(0), offline.getIsrList(), "the ISR is never emptied");
        assertEquals(1, h.image.offlinePartitionCount());
        h.unfence(0);
        PartitionRecord back = h.partition("t", 0);
        assertEquals(0, back.getLeader());
        assertEquals(offline.getLeaderEpoch() + 1, back.getLeaderEpoch());
        assertEquals(0, h.image.offlinePartitionCount());
    }

    @Test
    void withUncleanElectionAnOutOfSyncReplicaTakesOver() {
        ControllerHarness h = new ControllerHarness(true);
        h.brokers(0, 1);
        h.apply(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder().addTopics(
                CreatableTopic.newBuilder().setName("t").setNumPartitions(-1).setReplicationFactor(-1)
                        .addAssignments(ReplicaAssignment.newBuilder().setPartition(0).addReplicas(0).addReplicas(1)))));
        h.alterIsr("t", 0, List.of(0));
        h.fence(0);
        assertEquals(1, h.partition("t", 0).getLeader());
        assertEquals(List.of(1), h.partition("t", 0).getIsrList());
    }

    @Test
    void staleAlterPartitionIsRefusedAndChangesNothing() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(0, 1, 2);
        h.createTopic("t", 1, 3);
        PartitionRecord p = h.partition("t", 0);
        byte[] before = ImageSerde.serialize(h.image);
        ControllerResult staleLeaderEpoch = h.apply(alter(h, p, p.getLeaderEpoch() - 1, p.getPartitionEpoch(), List.of(p.getLeader())));
        assertEquals(Errors.FENCED_LEADER_EPOCH, staleLeaderEpoch.error());
        ControllerResult stalePartitionEpoch = h.apply(alter(h, p, p.getLeaderEpoch(), p.getPartitionEpoch() + 5, List.of(p.getLeader())));
        assertEquals(Errors.INVALID_UPDATE_VERSION, stalePartitionEpoch.error());
        ControllerResult notASubset = h.apply(alter(h, p, p.getLeaderEpoch(), p.getPartitionEpoch(), List.of(p.getLeader(), 9)));
        assertEquals(Errors.INVALID_REQUEST, notASubset.error());
        assertTrue(staleLeaderEpoch.records().isEmpty() && stalePartitionEpoch.records().isEmpty() && notASubset.records().isEmpty());
        // Only the offset moved.
        assertEquals(h.partition("t", 0), p);
        assertEquals(before.length > 0, ImageSerde.serialize(h.image).length > 0);
        ControllerResult ok = h.apply(alter(h, p, p.getLeaderEpoch(), p.getPartitionEpoch(), List.of(p.getLeader())));
        assertEquals(Errors.NONE, ok.error());
        assertEquals(p.getPartitionEpoch() + 1, h.partition("t", 0).getPartitionEpoch());
    }

    @Test
    void aFencedReplicaCannotJoinTheIsr() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(0, 1);
        h.apply(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder().addTopics(
                CreatableTopic.newBuilder().setName("t").setNumPartitions(-1).setReplicationFactor(-1)
                        .addAssignments(ReplicaAssignment.newBuilder().setPartition(0).addReplicas(0).addReplicas(1)))));
        h.fence(1);
        ControllerResult r = h.alterIsr("t", 0, List.of(0, 1));
        assertEquals(Errors.INELIGIBLE_REPLICA, r.error());
    }

    @Test
    void reassignmentAddsThenCompletesWhenTheNewReplicasAreInSyncMovingLeadershipOffARemovedLeader() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(0, 1, 2, 3);
        h.apply(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder().addTopics(
                CreatableTopic.newBuilder().setName("t").setNumPartitions(-1).setReplicationFactor(-1)
                        .addAssignments(ReplicaAssignment.newBuilder().setPartition(0).addReplicas(0).addReplicas(1)))));
        assertEquals(Errors.NONE.code(), ControllerHarness.itemError(h.reassign("t", 0, List.of(2, 3)).response()));
        PartitionRecord inProgress = h.partition("t", 0);
        assertEquals(List.of(0, 1, 2, 3), inProgress.getReplicasList(), "current + target while in progress");
        assertEquals(List.of(2, 3), inProgress.getTargetReplicasList());
        assertEquals(List.of(2, 3), inProgress.getAddingReplicasList());
        assertEquals(List.of(0, 1), inProgress.getRemovingReplicasList());
        h.alterIsr("t", 0, List.of(0, 1, 2));
        assertEquals(List.of(2, 3), h.partition("t", 0).getAddingReplicasList(), "3 is not in sync yet");
        h.alterIsr("t", 0, List.of(0, 1, 2, 3));
        PartitionRecord done = h.partition("t", 0);
        assertEquals(List.of(2, 3), done.getReplicasList());
        assertEquals(List.of(2, 3), done.getIsrList());
        assertEquals(2, done.getLeader(), "the removed leader handed over to the first target replica");
        assertTrue(done.getLeaderEpoch() > inProgress.getLeaderEpoch());
        assertEquals(0, done.getAddingReplicasCount() + done.getRemovingReplicasCount());
    }

    @Test
    void aReassignmentThatOnlyReordersReplicasCompletesAtOnceWithTheNewPreferredLeader() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(0, 1);
        h.apply(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder().addTopics(
                CreatableTopic.newBuilder().setName("t").setNumPartitions(-1).setReplicationFactor(-1)
                        .addAssignments(ReplicaAssignment.newBuilder().setPartition(0).addReplicas(0).addReplicas(1)))));
        h.reassign("t", 0, List.of(1, 0));
        PartitionRecord p = h.partition("t", 0);
        assertEquals(List.of(1, 0), p.getReplicasList());
        assertEquals(0, p.getTargetReplicasCount() + p.getAddingReplicasCount() + p.getRemovingReplicasCount());
    }

    @Test
    void aNewTargetOverAReassignmentInProgressRemovesTheReplicasItNoLongerAdds() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(0, 1, 2);
        h.apply(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder().addTopics(
                CreatableTopic.newBuilder().setName("t").setNumPartitions(-1).setReplicationFactor(-1)
                        .addAssignments(ReplicaAssignment.newBuilder().setPartition(0).addReplicas(0)))));
        h.reassign("t", 0, List.of(0, 1));
        assertEquals(List.of(1), h.partition("t", 0).getAddingReplicasList());
        // 1 may already hold data, or be all the ISR has: the new target is taken from the current replicas
        // (docs/behaviours.md B65), so 1 stays a replica, as one being removed, until the new target is in sync.
        assertEquals(Errors.NONE.code(), ControllerHarness.itemError(h.reassign("t", 0, List.of(0, 2)).response()));
        PartitionRecord replaced = h.partition("t", 0);
        assertEquals(List.of(0, 1, 2), replaced.getReplicasList());
        assertEquals(List.of(2), replaced.getAddingReplicasList());
        assertEquals(List.of(1), replaced.getRemovingReplicasList());
        assertEquals(List.of(0, 2), replaced.getTargetReplicasList());
        assertTrue(replaced.getReplicasList().containsAll(replaced.getIsrList()));
        h.alterIsr("t", 0, List.of(0, 2));
        PartitionRecord done = h.partition("t", 0);
        assertEquals(List.of(0, 2), done.getReplicasList());
        assertEquals(0, done.getAddingReplicasCount() + done.getRemovingReplicasCount());
    }

    @Test
    void cancellingAReassignmentRestoresTheOldReplicas() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(0, 1, 2);
        h.apply(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder().addTopics(
                CreatableTopic.newBuilder().setName("t").setNumPartitions(-1).setReplicationFactor(-1)
                        .addAssignments(ReplicaAssignment.newBuilder().setPartition(0).addReplicas(0).addReplicas(1)))));
        PartitionRecord original = h.partition("t", 0);
        h.reassign("t", 0, List.of(1, 2));
        assertEquals(Errors.NONE.code(), ControllerHarness.itemError(h.reassign("t", 0, List.of()).response()));
        PartitionRecord reverted = h.partition("t", 0);
        assertEquals(original.getReplicasList(), reverted.getReplicasList());
        assertEquals(original.getIsrList(), reverted.getIsrList());
        assertEquals(0, reverted.getAddingReplicasCount() + reverted.getRemovingReplicasCount());
        assertEquals(Errors.NO_REASSIGNMENT_IN_PROGRESS.code(), ControllerHarness.itemError(h.reassign("t", 0, List.of()).response()));
    }

    @Test
    void controlledShutdownMovesLeadershipAwayBeforeTheBrokerGoes() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(0, 1, 2);
        h.createTopic("t", 3, 3);
        h.apply(ControllerCommand.newBuilder().setControlledShutdown(ControlledShutdown.newBuilder()
                .setBrokerId(0).setBrokerEpoch(h.epoch(0))));
        for (int p = 0; p < 3; p++) {
            assertNotEquals(0, h.partition("t", p).getLeader());
        }
        assertTrue(h.image.brokers().get(0).getInControlledShutdown());
        assertEquals(Errors.NONE.code(), ControllerHarness.itemError(h.createTopic("u", 2, 2).response()));
        assertFalse(h.partition("u", 0).getReplicasList().contains(0), "a stopping broker gets no new replicas");
    }

    @Test
    void preferredLeaderElectionReturnsLeadershipToTheFirstReplica() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(0, 1);
        h.apply(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder().addTopics(
                CreatableTopic.newBuilder().setName("t").setNumPartitions(-1).setReplicationFactor(-1)
                        .addAssignments(ReplicaAssignment.newBuilder().setPartition(0).addReplicas(0).addReplicas(1)))));
        h.fence(0);
        h.unfence(0);
        h.alterIsr("t", 0, List.of(1, 0));
        assertEquals(1, h.partition("t", 0).getLeader());
        ControllerResult r = h.apply(ControllerCommand.newBuilder().setElectLeaders(ElectLeaders.getDefaultInstance()));
        assertEquals(Errors.NONE.code(), ControllerHarness.itemError(r.response()));
        assertEquals(0, h.partition("t", 0).getLeader());
        ControllerResult again = h.apply(ControllerCommand.newBuilder().setElectLeaders(ElectLeaders.getDefaultInstance()));
        assertEquals(Errors.ELECTION_NOT_NEEDED.code(), ControllerHarness.itemError(again.response()));
    }

    @Test
    void deletingATopicRemovesItAndUnknownNamesAreReported() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(0);
        h.createTopic("t", 1, 1);
        ControllerResult r = h.apply(ControllerCommand.newBuilder().setDeleteTopics(DeleteTopics.newBuilder()
                .addNames("t").addNames("nope")));
        assertEquals(Errors.NONE.code(), r.response().getResults(0).getErrorCode());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), r.response().getResults(1).getErrorCode());
        assertTrue(h.image.topics().isEmpty());
    }

    @Test
    void twoReplaysOfTheSameCommandsGiveTheSameBytes() {
        ControllerHarness a = new ControllerHarness(false);
        ControllerHarness b = new ControllerHarness(false);
        for (ControllerHarness h : List.of(a, b)) {
            h.brokers(0, 1, 2);
            h.createTopic("t", 4, 2);
            h.fence(2);
        }
        assertArrayEquals(ImageSerde.serialize(a.image), ImageSerde.serialize(b.image));
        assertEquals(a.image, ImageSerde.fromSnapshot(ImageSerde.toSnapshot(a.image)));
    }

    private static ControllerCommand.Builder alter(ControllerHarness h, PartitionRecord p, int leaderEpoch,
                                                   int partitionEpoch, List<Integer> isr) {
        return ControllerCommand.newBuilder().setAlterPartition(AlterPartition.newBuilder()
                .setBrokerId(p.getLeader()).setBrokerEpoch(h.epoch(p.getLeader())).setTopicId(p.getTopicId())
                .setPartition(p.getPartition()).setLeaderEpoch(leaderEpoch).setPartitionEpoch(partitionEpoch)
                .addAllNewIsr(isr).setReason(ChangeReason.LAGGING));
    }
}
