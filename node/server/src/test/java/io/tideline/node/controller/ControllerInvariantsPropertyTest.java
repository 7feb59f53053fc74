package io.tideline.node.controller;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.node.metadata.ImageReplayer;
import io.tideline.node.metadata.ImageSerde;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.AlterPartition;
import io.tideline.proto.metadata.AlterReassignments;
import io.tideline.proto.metadata.ChangeReason;
import io.tideline.proto.metadata.ControlledShutdown;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.CreatableTopic;
import io.tideline.proto.metadata.CreateTopics;
import io.tideline.proto.metadata.DeleteTopics;
import io.tideline.proto.metadata.ElectLeaders;
import io.tideline.proto.metadata.FenceBroker;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.RegisterBroker;
import io.tideline.proto.metadata.TargetReassignment;
import io.tideline.proto.metadata.UnfenceBroker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Random command sequences against the controller logic. After every command: a leader is in the ISR
 * (or there is none), the ISR is a non-empty subset of the replicas, leader and partition epochs never
 * go down, reassignment sets are consistent; and a second replica fed the same commands holds the
 * same bytes, as does a snapshot round trip. Commands are drawn from the current image (mostly valid,
 * sometimes stale) so the interesting paths are reached.
 */
class ControllerInvariantsPropertyTest {

    @Property(tries = 200)
    void invariantsHoldAndReplicasAgreeAfterEveryCommand(@ForAll long seed, @ForAll @IntRange(min = 1, max = 60) int steps,
                                                         @ForAll boolean unclean) {
        Random random = new Random(seed);
        MetadataController controller = new MetadataController(new ControllerSettings(unclean));
        MetadataImage a = MetadataImage.EMPTY;
        MetadataImage b = MetadataImage.EMPTY;
        Map<String, int[]> epochs = new HashMap<>();
        List<String> trace = new ArrayList<>();
        for (long offset = 1; offset <= steps; offset++) {
            ControllerCommand command = randomCommand(random, a, offset).setTimestampMs(offset * 1000).build();
            trace.add(offset + ": " + command.getCommandCase());
            ControllerResult ra = controller.apply(a, command, offset, 1);
            ControllerResult rb = controller.apply(b, command, offset, 1);
            a = ImageReplayer.replay(a, ra.records(), offset, 1);
            b = ImageReplayer.replay(b, rb.records(), offset, 1);
            String where = "seed " + seed + " after " + trace;
            assertArrayEquals(ImageSerde.serialize(a), ImageSerde.serialize(b), where);
            assertEquals(a, ImageSerde.fromSnapshot(ImageSerde.toSnapshot(a)), where);
            checkInvariants(a, epochs, where);
        }
    }

    private static void checkInvariants(MetadataImage image, Map<String, int[]> epochs, String where) {
        for (TopicImage t : image.topics().values()) {
            for (PartitionRecord p : t.partitions().values()) {
                String name = t.name() + "-" + p.getPartition();
                assertTrue(p.getIsrCount() > 0, name + " has an empty ISR; " + where);
                assertTrue(p.getReplicasList().containsAll(p.getIsrList()), name + " ISR not within replicas; " + where);
                assertTrue(p.getLeader() == -1 || p.getIsrList().contains(p.getLeader()), name + " leader not in ISR; " + where);
                assertEquals(new HashSet<>(p.getReplicasList()).size(), p.getReplicasCount(), name + " duplicate replicas");
                assertTrue(p.getReplicasList().containsAll(p.getAddingReplicasList())
                        && p.getReplicasList().containsAll(p.getRemovingReplicasList()), name + " reassignment sets; " + where);
                String key = t.id() + ":" + p.getPartition();
                int[] last = epochs.get(key);
                if (last != null) {
                    assertTrue(p.getLeaderEpoch() >= last[0], name + " leader epoch went down; " + where);
                    assertTrue(p.getPartitionEpoch() >= last[1], name + " partition epoch went down; " + where);
                }
                epochs.put(key, new int[] {p.getLeaderEpoch(), p.getPartitionEpoch()});
            }
        }
    }

    private static ControllerCommand.Builder randomCommand(Random random, MetadataImage image, long offset) {
        int broker = random.nextInt(5);
        long epoch = image.broker(broker).map(r -> r.getBrokerEpoch()).orElse(0L);
        if (random.nextInt(10) == 0) {
            epoch += 1; // sometimes stale
        }
        List<PartitionRecord> partitions = new ArrayList<>();
        Map<String, String> names = new HashMap<>();
        for (TopicImage t : image.topics().values()) {
            for (PartitionRecord p : t.partitions().values()) {
                partitions.add(p);
                names.put(p.getTopicId(), t.name());
            }
        }
        switch (random.nextInt(11)) {
            case 0, 1:
                return ControllerCommand.newBuilder().setRegisterBroker(RegisterBroker.newBuilder().setBrokerId(broker)
                        .setIncarnationId("i" + random.nextInt(3)).setRack(random.nextBoolean() ? "" : "r" + broker % 2));
            case 2:
                return ControllerCommand.newBuilder().setUnfenceBroker(UnfenceBroker.newBuilder().setBrokerId(broker).setBrokerEpoch(epoch));
            case 3:
                return ControllerCommand.newBuilder().setFenceBroker(FenceBroker.newBuilder().setBrokerId(broker).setBrokerEpoch(epoch));
            case 4:
                return ControllerCommand.newBuilder().setControlledShutdown(ControlledShutdown.newBuilder().setBrokerId(broker).setBrokerEpoch(epoch));
            case 5:
                return ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder().addTopics(CreatableTopic.newBuilder()
                        .setName("t" + random.nextInt(4)).setNumPartitions(1 + random.nextInt(3)).setReplicationFactor(1 + random.nextInt(3))));
            case 6:
                return ControllerCommand.newBuilder().setDeleteTopics(DeleteTopics.newBuilder().addNames("t" + random.nextInt(4)));
            case 7:
                return ControllerCommand.newBuilder().setElectLeaders(ElectLeaders.getDefaultInstance());
            default:
                if (partitions.isEmpty()) {
                    return ControllerCommand.newBuilder().setElectLeaders(ElectLeaders.getDefaultInstance());
                }
                PartitionRecord p = partitions.get(random.nextInt(partitions.size()));
                List<Integer> subset = new ArrayList<>();
                for (int r : p.getReplicasList()) {
                    if (r == p.getLeader() || random.nextBoolean()) {
                        subset.add(r);
                    }
                }
                if (random.nextBoolean()) {
                    int leader = Math.max(p.getLeader(), 0);
                    return ControllerCommand.newBuilder().setAlterPartition(AlterPartition.newBuilder()
                            .setBrokerId(leader).setBrokerEpoch(image.broker(leader).map(r -> r.getBrokerEpoch()).orElse(0L))
                            .setTopicId(p.getTopicId()).setPartition(p.getPartition())
                            .setLeaderEpoch(p.getLeaderEpoch() - (random.nextInt(8) == 0 ? 1 : 0))
                            .setPartitionEpoch(p.getPartitionEpoch()).addAllNewIsr(subset).setReason(ChangeReason.LAGGING));
                }
                List<Integer> target = new ArrayList<>();
                for (int r = 0; r < 5 && random.nextInt(3) > 0; r++) {
                    if (image.brokers().containsKey(r) && random.nextBoolean()) {
                        target.add(r);
                    }
                }
                return ControllerCommand.newBuilder().setAlterReassignments(AlterReassignments.newBuilder()
                        .addReassignments(TargetReassignment.newBuilder().setTopic(names.get(p.getTopicId()))
                                .setPartition(p.getPartition()).addAllReplicas(target)));
        }
    }
}
