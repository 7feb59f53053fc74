package io.tideline.node.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.AlterBrokerConfigs;
import io.tideline.proto.metadata.AlterConfigs;
import io.tideline.proto.metadata.AlterPartition;
import io.tideline.proto.metadata.AlterReassignments;
import io.tideline.proto.metadata.ConfigEntry;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.CreatableTopic;
import io.tideline.proto.metadata.CreatePartitions;
import io.tideline.proto.metadata.CreatePartitionsItem;
import io.tideline.proto.metadata.CreateTopics;
import io.tideline.proto.metadata.DeleteTopics;
import io.tideline.proto.metadata.ElectLeaders;
import io.tideline.proto.metadata.Endpoint;
import io.tideline.proto.metadata.FenceBroker;
import io.tideline.proto.metadata.RegisterBroker;
import io.tideline.proto.metadata.ReplicaAssignment;
import io.tideline.proto.metadata.TargetReassignment;
import io.tideline.proto.metadata.TopicPartitionRef;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The controller refuses commands that would grow the image without bound or make apply's work unbounded,
 * before it allocates anything (docs/behaviours.md B100-B104).
 */
class CommandBoundsTest {
    private static final String LONG = "x".repeat(CommandChecks.MAX_STRING_LENGTH + 1);

    private static ControllerHarness cluster(ControllerSettings settings) {
        ControllerHarness h = new ControllerHarness(settings);
        h.brokers(0, 1, 2);
        return h;
    }

    private static ControllerHarness cluster() {
        return cluster(ControllerSettings.DEFAULT);
    }

    private static ControllerResult createPartitions(ControllerHarness h, String topic, int total) {
        return h.apply(ControllerCommand.newBuilder().setCreatePartitions(CreatePartitions.newBuilder()
                .addTopics(CreatePartitionsItem.newBuilder().setName(topic).setTotalCount(total))));
    }

    private static void assertRefusedAndUnchanged(ControllerHarness h, ControllerResult r, Errors expected) {
        MetadataImage before = h.image;
        assertEquals(expected, r.error(), r.response().toString());
        assertTrue(r.records().isEmpty(), "a refused command has no records");
        assertEquals(before.topics(), h.image.topics());
    }

    @Test
    void aTopicOfMaxIntPartitionsIsAPolicyViolationAndChangesNothing() {
        ControllerHarness h = cluster();
        ControllerResult r = h.createTopic("huge", Integer.MAX_VALUE, 1);
        assertRefusedAndUnchanged(h, r, Errors.POLICY_VIOLATION);
        assertTrue(r.response().getErrorMessage().startsWith("Excessively large number of partitions per request"),
                r.response().getErrorMessage());
        assertTrue(h.image.topics().isEmpty());
    }

    @Test
    void tenThousandPartitionsInOneRequestAreAllowedAndOneMoreIsNot() {
        ControllerHarness h = cluster();
        ControllerResult over = h.apply(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder()
                .addTopics(CreatableTopic.newBuilder().setName("a").setNumPartitions(5_000).setReplicationFactor(1))
                .addTopics(CreatableTopic.newBuilder().setName("b").setNumPartitions(5_001).setReplicationFactor(1))));
        assertRefusedAndUnchanged(h, over, Errors.POLICY_VIOLATION);
        ControllerResult exactly = h.createTopic("a", CommandChecks.MAX_PARTITIONS_PER_REQUEST, 3);
        assertEquals(Errors.NONE.code(), ControllerHarness.itemError(exactly.response()));
        assertEquals(CommandChecks.MAX_PARTITIONS_PER_REQUEST, h.image.partitionCount());
    }

    @Test
    void createPartitionsToMaxIntIsAPolicyViolationAndChangesNothing() {
        ControllerHarness h = cluster();
        h.createTopic("small", 1, 1);
        ControllerResult r = createPartitions(h, "small", Integer.MAX_VALUE);
        assertRefusedAndUnchanged(h, r, Errors.POLICY_VIOLATION);
        assertEquals(1, h.image.topics().get("small").partitions().size());
    }

    @Test
    void createPartitionsAddingMoreThanTheRequestBoundIsAPolicyViolation() {
        ControllerHarness h = cluster();
        h.createTopic("small", 1, 1);
        ControllerResult r = createPartitions(h, "small", CommandChecks.MAX_PARTITIONS_PER_REQUEST + 2);
        assertRefusedAndUnchanged(h, r, Errors.POLICY_VIOLATION);
        assertEquals(Errors.NONE.code(), ControllerHarness.itemError(
                createPartitions(h, "small", CommandChecks.MAX_PARTITIONS_PER_REQUEST + 1).response()));
    }

    @Test
    void theClusterNeverHoldsMoreThanMaxPartitions() {
        ControllerHarness h = cluster(new ControllerSettings(false, 10));
        assertEquals(Errors.NONE.code(), ControllerHarness.itemError(h.createTopic("a", 6, 1).response()));
        ControllerResult tooMany = h.createTopic("b", 5, 1);
        assertEquals(Errors.POLICY_VIOLATION.code(), ControllerHarness.itemError(tooMany.response()));
        assertTrue(tooMany.response().getResults(0).getErrorMessage().contains("max.partitions (10)"),
                tooMany.response().toString());
        assertEquals(Errors.NONE.code(), ControllerHarness.itemError(h.createTopic("b", 4, 1).response()));
        assertEquals(Errors.POLICY_VIOLATION.code(), ControllerHarness.itemError(createPartitions(h, "a", 7).response()));
        assertEquals(10, h.image.partitionCount());
    }

    @Test
    void topicsOfOneRequestCountTowardsMaxPartitionsTogether() {
        ControllerHarness h = cluster(new ControllerSettings(false, 10));
        ControllerResult r = h.apply(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder()
                .addTopics(CreatableTopic.newBuilder().setName("a").setNumPartitions(6).setReplicationFactor(1))
                .addTopics(CreatableTopic.newBuilder().setName("b").setNumPartitions(6).setReplicationFactor(1))));
        assertEquals(Errors.NONE.code(), r.response().getResults(0).getErrorCode());
        assertEquals(Errors.POLICY_VIOLATION.code(), r.response().getResults(1).getErrorCode());
        assertEquals(6, h.image.partitionCount());
    }

    @Test
    void anAssignmentListingMoreReplicasThanBrokersIsRefusedBeforeItIsHashed() {
        ControllerHarness h = cluster();
        ReplicaAssignment.Builder a = ReplicaAssignment.newBuilder().setPartition(0);
        for (int i = 0; i < 5_000; i++) {
            a.addReplicas(i);
        }
        ControllerResult r = h.apply(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder()
                .addTopics(CreatableTopic.newBuilder().setName("t").setNumPartitions(-1).setReplicationFactor(-1)
                        .addAssignments(a))));
        assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT.code(), ControllerHarness.itemError(r.response()));
        assertTrue(h.image.topics().isEmpty());
    }

    @Test
    void aReplicationFactorAboveKafkasInt16IsRefused() {
        ControllerHarness h = cluster();
        assertRefusedAndUnchanged(h, h.createTopic("t", 1, 40_000), Errors.INVALID_REPLICATION_FACTOR);
    }

    @Test
    void stringsLongerThanKafkasStringBoundAreRefusedInEveryCommand() {
        ControllerHarness h = cluster();
        List<ControllerCommand.Builder> commands = List.of(
                ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder().addTopics(
                        CreatableTopic.newBuilder().setName(LONG).setNumPartitions(1).setReplicationFactor(1))),
                ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder().addTopics(
                        CreatableTopic.newBuilder().setName("t").setNumPartitions(1).setReplicationFactor(1)
                                .addConfigs(ConfigEntry.newBuilder().setKey("retention.ms").setValue(LONG)))),
                ControllerCommand.newBuilder().setDeleteTopics(DeleteTopics.newBuilder().addNames(LONG)),
                ControllerCommand.newBuilder().setAlterConfigs(AlterConfigs.newBuilder().setTopic("t")
                        .addSet(ConfigEntry.newBuilder().setKey(LONG).setValue("1"))),
                ControllerCommand.newBuilder().setAlterBrokerConfigs(AlterBrokerConfigs.newBuilder().setBrokerId(-1)
                        .addDelete(LONG)),
                ControllerCommand.newBuilder().setRegisterBroker(RegisterBroker.newBuilder().setBrokerId(7)
                        .setIncarnationId("i").setRack(LONG)),
                ControllerCommand.newBuilder().setElectLeaders(ElectLeaders.newBuilder()
                        .addPartitions(TopicPartitionRef.newBuilder().setTopic(LONG))));
        for (ControllerCommand.Builder c : commands) {
            ControllerResult r = h.apply(c);
            assertEquals(Errors.INVALID_REQUEST, r.error(), c.getCommandCase() + ": " + r.response());
            assertTrue(r.records().isEmpty());
        }
        assertEquals(3, h.image.brokers().size());
    }

    @Test
    void negativeBrokerAndReplicaIdsAreRefused() {
        ControllerHarness h = cluster();
        assertEquals(Errors.INVALID_REQUEST, h.apply(ControllerCommand.newBuilder().setRegisterBroker(
                RegisterBroker.newBuilder().setBrokerId(-5).setIncarnationId("i"))).error());
        assertEquals(Errors.INVALID_REQUEST, h.apply(ControllerCommand.newBuilder().setFenceBroker(
                FenceBroker.newBuilder().setBrokerId(Integer.MIN_VALUE))).error());
        assertEquals(Errors.INVALID_REQUEST, h.apply(ControllerCommand.newBuilder().setAlterBrokerConfigs(
                AlterBrokerConfigs.newBuilder().setBrokerId(-2))).error());
        assertEquals(Errors.INVALID_REQUEST, h.apply(ControllerCommand.newBuilder().setAlterPartition(
                AlterPartition.newBuilder().setBrokerId(0).setTopicId("x").setPartition(-1))).error());
        assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT, h.apply(ControllerCommand.newBuilder().setAlterReassignments(
                AlterReassignments.newBuilder().addReassignments(TargetReassignment.newBuilder().setTopic("t")
                        .addReplicas(0).addReplicas(-1)))).error());
        assertEquals(Errors.INVALID_REQUEST, h.apply(ControllerCommand.newBuilder().setRegisterBroker(
                RegisterBroker.newBuilder().setBrokerId(9).addEndpoints(Endpoint.newBuilder().setPort(70_000)))).error());
        assertEquals(3, h.image.brokers().size());
    }

    @Test
    void tooManyItemsInOneUserRequestAreAPolicyViolation() {
        ControllerHarness h = cluster();
        List<String> names = Collections.nCopies(CommandChecks.MAX_ITEMS_PER_REQUEST + 1, "t");
        assertEquals(Errors.POLICY_VIOLATION, h.apply(ControllerCommand.newBuilder().setDeleteTopics(
                DeleteTopics.newBuilder().addAllNames(names))).error());
    }

    @Test
    void anEmptyOrUnknownCommandIsAnInvalidRequest() {
        ControllerHarness h = cluster();
        assertEquals(Errors.INVALID_REQUEST, h.apply(ControllerCommand.newBuilder()).error());
    }

    @Test
    void everyCommandOfTheControllersOwnTestsPassesTheChecks() {
        CommandChecks checks = new CommandChecks(ControllerSettings.DEFAULT);
        assertNull(checks.check(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder().addTopics(
                CreatableTopic.newBuilder().setName("orders").setNumPartitions(6).setReplicationFactor(3)
                        .addConfigs(ConfigEntry.newBuilder().setKey("retention.ms").setValue("1000")))).build()));
        assertNull(checks.check(ControllerCommand.newBuilder().setAlterBrokerConfigs(
                AlterBrokerConfigs.newBuilder().setBrokerId(-1)).build()));
        assertNull(checks.check(ControllerCommand.newBuilder().setElectLeaders(ElectLeaders.newBuilder()).build()));
    }
}
