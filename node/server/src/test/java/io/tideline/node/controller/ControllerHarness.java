package io.tideline.node.controller;

import io.tideline.node.metadata.ImageReplayer;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.AlterPartition;
import io.tideline.proto.metadata.AlterReassignments;
import io.tideline.proto.metadata.ChangeReason;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.CreatableTopic;
import io.tideline.proto.metadata.CreateTopics;
import io.tideline.proto.metadata.FenceBroker;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.RegisterBroker;
import io.tideline.proto.metadata.TargetReassignment;
import io.tideline.proto.metadata.UnfenceBroker;
import java.util.List;

/** Applies commands to the pure controller logic as a state machine would: one Raft index each. */
final class ControllerHarness {
    final MetadataController controller;
    MetadataImage image = MetadataImage.EMPTY;
    long offset;
    long now = 1_000_000L;

    ControllerHarness(boolean unclean) {
        this(new ControllerSettings(unclean));
    }

    ControllerHarness(ControllerSettings settings) {
        controller = new MetadataController(settings);
    }

    ControllerResult apply(ControllerCommand.Builder command) {
        offset++;
        ControllerResult result = controller.apply(image, command.setTimestampMs(now).build(), offset, 1);
        image = ImageReplayer.replay(image, result.records(), offset, 1);
        return result;
    }

    /** Registers and unfences brokers, returning their epochs in order. */
    long[] brokers(int... ids) {
        long[] epochs = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            epochs[i] = apply(ControllerCommand.newBuilder().setRegisterBroker(RegisterBroker.newBuilder()
                    .setBrokerId(ids[i]).setIncarnationId("inc-" + ids[i]))).response().getBrokerEpoch();
            apply(ControllerCommand.newBuilder().setUnfenceBroker(UnfenceBroker.newBuilder()
                    .setBrokerId(ids[i]).setBrokerEpoch(epochs[i])));
        }
        return epochs;
    }

    long epoch(int broker) {
        return image.brokers().get(broker).getBrokerEpoch();
    }

    ControllerResult createTopic(String name, int partitions, int rf) {
        return apply(ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder().addTopics(
                CreatableTopic.newBuilder().setName(name).setNumPartitions(partitions).setReplicationFactor(rf))));
    }

    ControllerResult fence(int broker) {
        return apply(ControllerCommand.newBuilder().setFenceBroker(FenceBroker.newBuilder()
                .setBrokerId(broker).setBrokerEpoch(epoch(broker))));
    }

    ControllerResult unfence(int broker) {
        return apply(ControllerCommand.newBuilder().setUnfenceBroker(UnfenceBroker.newBuilder()
                .setBrokerId(broker).setBrokerEpoch(epoch(broker))));
    }

    PartitionRecord partition(String topic, int p) {
        return image.partition(topic, p).orElseThrow();
    }

    ControllerResult alterIsr(String topic, int p, List<Integer> isr) {
        PartitionRecord current = partition(topic, p);
        return apply(ControllerCommand.newBuilder().setAlterPartition(AlterPartition.newBuilder()
                .setBrokerId(current.getLeader()).setBrokerEpoch(epoch(current.getLeader()))
                .setTopicId(current.getTopicId()).setPartition(p).setLeaderEpoch(current.getLeaderEpoch())
                .setPartitionEpoch(current.getPartitionEpoch()).addAllNewIsr(isr).setReason(ChangeReason.CAUGHT_UP)));
    }

    ControllerResult reassign(String topic, int p, List<Integer> target) {
        return apply(ControllerCommand.newBuilder().setAlterReassignments(AlterReassignments.newBuilder()
                .addReassignments(TargetReassignment.newBuilder().setTopic(topic).setPartition(p).addAllReplicas(target))));
    }

    static int itemError(ControllerResponse response) {
        return response.getResults(0).getErrorCode();
    }
}
