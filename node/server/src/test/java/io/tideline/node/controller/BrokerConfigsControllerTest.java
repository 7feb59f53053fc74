package io.tideline.node.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.ImageReplayer;
import io.tideline.node.metadata.ImageSerde;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.AlterBrokerConfigs;
import io.tideline.proto.metadata.ConfigEntry;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.MetadataSnapshot;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Dynamic broker configs in the controller: validation, the record, replay and the snapshot. */
class BrokerConfigsControllerTest {

    private static ControllerCommand.Builder alter(int brokerId, Map<String, String> set, List<String> delete) {
        AlterBrokerConfigs.Builder b = AlterBrokerConfigs.newBuilder().setBrokerId(brokerId).addAllDelete(delete);
        set.forEach((k, v) -> b.addSet(ConfigEntry.newBuilder().setKey(k).setValue(v)));
        return ControllerCommand.newBuilder().setAlterBrokerConfigs(b);
    }

    @Test
    void aClusterDefaultAndAPerBrokerSetAreCommittedAsWholeSetsAndDeletedKeysGo() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(1, 2);
        ControllerResult set = h.apply(alter(-1, Map.of("log.retention.ms", "5000", "log.retention.bytes", "100"), List.of()));
        assertEquals(Errors.NONE, set.error(), set.response().toString());
        assertEquals(1, set.records().size());
        assertEquals(Map.of("log.retention.ms", "5000", "log.retention.bytes", "100"), h.image.brokerConfigs(-1));
        assertEquals(Map.of(), h.image.brokerConfigs(1));

        assertEquals(Errors.NONE, h.apply(alter(1, Map.of("leader.replication.throttled.rate", "1000"), List.of())).error());
        assertEquals(Map.of("leader.replication.throttled.rate", "1000"), h.image.brokerConfigs(1));
        assertEquals(Map.of(), h.image.brokerConfigs(2), "another broker's set is its own");

        ControllerResult deleted = h.apply(alter(-1, Map.of(), List.of("log.retention.bytes")));
        assertEquals(Errors.NONE, deleted.error());
        assertEquals(Map.of("log.retention.ms", "5000"), h.image.brokerConfigs(-1));
        h.apply(alter(1, Map.of(), List.of("leader.replication.throttled.rate")));
        assertTrue(h.image.allBrokerConfigs().keySet().equals(java.util.Set.of(-1)),
                "an emptied set leaves no entry: " + h.image.allBrokerConfigs());

        ControllerResult unchanged = h.apply(alter(-1, Map.of("log.retention.ms", "5000"), List.of("log.roll.ms")));
        assertEquals(Errors.NONE, unchanged.error());
        assertEquals(List.of(), unchanged.records(), "no change, no record");
    }

    @Test
    void aKeyThatCannotChangeDynamicallyIsRefusedNamingEveryOneAndNothingIsCommitted() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(1);
        ControllerResult r = h.apply(alter(1, Map.of("log.retention.ms", "1", "log.dirs", "/tmp/x",
                "log.retention.check.interval.ms", "10"), List.of()));
        assertEquals(Errors.INVALID_CONFIG, r.error());
        assertEquals("Cannot update these configs dynamically: [log.dirs, log.retention.check.interval.ms]",
                r.response().getErrorMessage());
        assertEquals(List.of(), r.records());
        assertEquals(Map.of(), h.image.brokerConfigs(1));

        ControllerResult deleteStatic = h.apply(alter(-1, Map.of(), List.of("num.io.threads")));
        assertEquals(Errors.INVALID_CONFIG, deleteStatic.error());
        assertEquals("Cannot update these configs dynamically: [num.io.threads]", deleteStatic.response().getErrorMessage());
    }

    @Test
    void aBadValueIsRefusedWithTheStaticKeysValidatorNamingTheKey() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(1);
        ControllerResult notANumber = h.apply(alter(-1, Map.of("log.retention.ms", "soon"), List.of()));
        assertEquals(Errors.INVALID_CONFIG, notANumber.error());
        assertTrue(notANumber.response().getErrorMessage().contains("log.retention.ms"), notANumber.response().toString());
        ControllerResult belowRange = h.apply(alter(-1, Map.of("follower.replication.throttled.rate", "0"), List.of()));
        assertEquals(Errors.INVALID_CONFIG, belowRange.error());
        assertTrue(belowRange.response().getErrorMessage().contains("follower.replication.throttled.rate"),
                belowRange.response().toString());
        ControllerResult badType = h.apply(alter(1, Map.of("log.message.timestamp.type", "WallClock"), List.of()));
        assertEquals(Errors.INVALID_CONFIG, badType.error());
        assertEquals(Map.of(), h.image.brokerConfigs(-1));
        assertEquals(Map.of(), h.image.brokerConfigs(1));
    }

    @Test
    void theClusterDefaultUncleanElectionDecidesForTopicsWithoutTheirOwnOverTheStaticValue() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(0, 1);
        h.createTopic("follows", 1, 2);
        h.apply(ControllerCommand.newBuilder().setCreateTopics(io.tideline.proto.metadata.CreateTopics.newBuilder()
                .addTopics(io.tideline.proto.metadata.CreatableTopic.newBuilder().setName("strict").setNumPartitions(1)
                        .setReplicationFactor(2).addConfigs(ConfigEntry.newBuilder()
                                .setKey("unclean.leader.election.enable").setValue("false")))));
        assertEquals(Errors.NONE, h.apply(alter(-1, Map.of("unclean.leader.election.enable", "true"), List.of())).error());

        // Both replicas go; the one that went first is out of the ISR when it returns.
        int last = h.partition("follows", 0).getLeader();
        int other = 1 - last;
        h.fence(other);
        h.fence(last);
        assertEquals(-1, h.partition("follows", 0).getLeader());
        h.unfence(other);
        assertEquals(other, h.partition("follows", 0).getLeader(), "the dynamic default allows it out of the ISR");
        assertEquals(List.of(other), h.partition("follows", 0).getIsrList());
        assertEquals(-1, h.partition("strict", 0).getLeader(), "the topic's own false beats the default");

        // Deleting the default brings back the static false: the next election is clean again.
        h.apply(alter(-1, Map.of(), List.of("unclean.leader.election.enable")));
        h.unfence(last);
        h.fence(other);
        assertEquals(-1, h.partition("follows", 0).getLeader(),
                "the live replica is out of the ISR, and static false allows no unclean leader");
    }

    @Test
    void uncleanElectionForOneBrokerIsRefusedBecauseTheControllerReadsOnlyTheDefault() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(1);
        ControllerResult r = h.apply(alter(1, Map.of("unclean.leader.election.enable", "true",
                "min.insync.replicas", "2"), List.of()));
        assertEquals(Errors.INVALID_CONFIG, r.error());
        assertEquals("Cannot set [unclean.leader.election.enable] for broker 1: the controller quorum elects leaders "
                + "and reads only the cluster-wide default (--entity-default) and its static value "
                + "(docs/behaviours.md B58)", r.response().getErrorMessage());
        assertEquals(List.of(), r.records(), "nothing of the request, min.insync.replicas neither");
        assertEquals(Errors.NONE, h.apply(alter(1, Map.of("min.insync.replicas", "2"), List.of())).error(),
                "min.insync.replicas is a broker's own");
        assertEquals(Errors.INVALID_CONFIG, h.apply(alter(-1, Map.of("min.insync.replicas", "0"), List.of())).error());
        assertEquals(Errors.INVALID_CONFIG, h.apply(alter(-1, Map.of("unclean.leader.election.enable", "maybe"),
                List.of())).error());
    }

    @Test
    void anUnregisteredBrokerIsBrokerNotAvailableAndANegativeIdOtherThanTheDefaultIsInvalidRequest() {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(1, 2);
        ControllerResult unknown = h.apply(alter(7, Map.of("log.retention.ms", "1"), List.of()));
        assertEquals(Errors.BROKER_NOT_AVAILABLE, unknown.error());
        assertEquals("broker 7 is not registered in the cluster (registered: [1, 2])", unknown.response().getErrorMessage());
        assertEquals(Errors.INVALID_REQUEST, h.apply(alter(-2, Map.of("log.retention.ms", "1"), List.of())).error());
        assertEquals(Map.of(), h.image.allBrokerConfigs());
    }

    @Test
    void brokerConfigsSurviveTheSnapshotRoundTripAndReplayGivesTheSameImage() throws Exception {
        ControllerHarness h = new ControllerHarness(false);
        h.brokers(1, 2);
        h.createTopic("t", 1, 1);
        h.apply(alter(-1, Map.of("log.retention.ms", "5000"), List.of()));
        h.apply(alter(2, Map.of("log.retention.ms", "9000", "follower.replication.throttled.rate", "2048"), List.of()));

        MetadataSnapshot snapshot = ImageSerde.toSnapshot(h.image);
        assertEquals(List.of(-1, 2), snapshot.getBrokerConfigsList().stream().map(r -> r.getBrokerId()).toList(),
                "sorted by broker id, the default first");
        MetadataImage restored = ImageSerde.fromSnapshot(MetadataSnapshot.parseFrom(snapshot.toByteString()));
        assertEquals(h.image, restored);
        assertEquals(Map.of("log.retention.ms", "9000", "follower.replication.throttled.rate", "2048"),
                restored.brokerConfigs(2));
        assertEquals(Map.of("log.retention.ms", "5000"), restored.brokerConfigs(-1));

        // Replay onto the restored image goes on as on the original: a delete of the default empties it.
        ControllerResult delete = new MetadataController(new ControllerSettings(false)).apply(restored,
                alter(-1, Map.of(), List.of("log.retention.ms")).build(), h.offset + 1, 1);
        MetadataImage after = ImageReplayer.replay(restored, delete.records(), h.offset + 1, 1);
        assertEquals(Map.of(), after.brokerConfigs(-1));
        assertEquals(Map.of("log.retention.ms", "9000", "follower.replication.throttled.rate", "2048"),
                after.brokerConfigs(2));
        assertEquals(after, ImageSerde.fromSnapshot(ImageSerde.toSnapshot(after)));
    }
}
