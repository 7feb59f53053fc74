package io.tideline.node.broker;

import static io.tideline.node.broker.Images.broker;
import static io.tideline.node.broker.Images.changed;
import static io.tideline.node.broker.Images.created;
import static io.tideline.node.broker.Images.fence;
import static io.tideline.node.broker.Images.fourBrokers;
import static io.tideline.node.broker.Images.partition;
import static io.tideline.node.broker.Images.removeTopic;
import static io.tideline.node.broker.Images.replay;
import static io.tideline.node.broker.Images.topic;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.ChangeReason;
import io.tideline.proto.metadata.PartitionRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetadataDeltaTest {
    private static final String ORDERS = "T-orders";
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);

    private static final PartitionRecord P0 = partition(ORDERS, 0, List.of(1, 2, 3), List.of(1, 2, 3), 1, 0, 0);
    private static final PartitionRecord P1 = partition(ORDERS, 1, List.of(2, 3, 1), List.of(2, 3, 1), 2, 0, 0);

    /** Brokers 1-4, then topic orders with two partitions at offset 11. */
    private static MetadataImage withOrders() {
        return replay(fourBrokers(), 11, topic("orders", ORDERS), created(P1), created(P0));
    }

    @Test
    void createdTopicGivesLeadAndFollowInPartitionOrder() {
        MetadataImage before = fourBrokers();
        MetadataImage after = withOrders();

        MetadataDelta one = MetadataDelta.compute(1, before, after);
        assertEquals(List.of(new PartitionToLead(ORDERS_0, ORDERS, 0, 0, List.of(1, 2, 3), List.of(1, 2, 3))),
                one.partitionsToLead());
        assertEquals(List.of(new PartitionToFollow(ORDERS_1, ORDERS, 2, 0)), one.partitionsToFollow());
        assertTrue(one.partitionsToStop().isEmpty());
        assertTrue(one.logsToDelete().isEmpty());
        assertEquals(MetadataDelta.FenceChange.NONE, one.fenceChange());
        assertEquals(10, one.previousOffset());
        assertEquals(11, one.offset());

        MetadataDelta three = MetadataDelta.compute(3, before, after);
        assertTrue(three.partitionsToLead().isEmpty());
        assertEquals(List.of(new PartitionToFollow(ORDERS_0, ORDERS, 1, 0), new PartitionToFollow(ORDERS_1, ORDERS, 2, 0)),
                three.partitionsToFollow());

        assertTrue(MetadataDelta.compute(4, before, after).isEmpty(), "broker 4 hosts nothing");
    }

    @Test
    void firstImageFromEmptyListsEveryHostedPartitionAndTheUnfencing() {
        MetadataDelta delta = MetadataDelta.compute(2, MetadataImage.EMPTY, withOrders());
        assertEquals(List.of(ORDERS_1), delta.partitionsToLead().stream().map(PartitionToLead::topicPartition).toList());
        assertEquals(List.of(ORDERS_0), delta.partitionsToFollow().stream().map(PartitionToFollow::topicPartition).toList());
        assertTrue(delta.unfenced());
    }

    @Test
    void unchangedPartitionsAreNotListedAgain() {
        MetadataImage before = withOrders();
        MetadataImage after = replay(before, 12, topic("other", "T-other"),
                created(partition("T-other", 0, List.of(4), List.of(4), 4, 0, 0)));
        MetadataDelta delta = MetadataDelta.compute(1, before, after);
        assertTrue(delta.isEmpty(), delta.toString());
        assertEquals(1, MetadataDelta.compute(4, before, after).partitionsToLead().size());
    }

    @Test
    void isrShrinkAtTheSameLeaderEpochRelistsTheLeaderOnly() {
        MetadataImage before = withOrders();
        PartitionRecord shrunk = partition(ORDERS, 0, List.of(1, 2, 3), List.of(1, 2), 1, 0, 1);
        MetadataImage after = replay(before, 12, changed(shrunk, ChangeReason.LAGGING));

        // The leader needs the new partition epoch for its next AlterPartition.
        assertEquals(List.of(new PartitionToLead(ORDERS_0, ORDERS, 0, 1, List.of(1, 2), List.of(1, 2, 3))),
                MetadataDelta.compute(1, before, after).partitionsToLead());
        assertTrue(MetadataDelta.compute(2, before, after).isEmpty());
        assertTrue(MetadataDelta.compute(3, before, after).isEmpty());
    }

    @Test
    void leaderMoveSwitchesLeadAndFollowWithTheNewEpoch() {
        MetadataImage before = withOrders();
        PartitionRecord moved = partition(ORDERS, 0, List.of(1, 2, 3), List.of(2, 3), 2, 1, 1);
        MetadataImage after = replay(before, 12, changed(moved, ChangeReason.BROKER_FENCED), fence(1, true));

        MetadataDelta oldLeader = MetadataDelta.compute(1, before, after);
        assertTrue(oldLeader.partitionsToLead().isEmpty());
        assertEquals(List.of(new PartitionToFollow(ORDERS_0, ORDERS, 2, 1)), oldLeader.partitionsToFollow());
        assertTrue(oldLeader.fenced());

        MetadataDelta newLeader = MetadataDelta.compute(2, before, after);
        assertEquals(List.of(new PartitionToLead(ORDERS_0, ORDERS, 1, 1, List.of(2, 3), List.of(1, 2, 3))),
                newLeader.partitionsToLead());
        assertTrue(newLeader.partitionsToFollow().isEmpty());
        assertFalse(newLeader.fenced());

        // The other follower learns the new leader and epoch.
        assertEquals(List.of(new PartitionToFollow(ORDERS_0, ORDERS, 2, 1)),
                MetadataDelta.compute(3, before, after).partitionsToFollow());
    }

    @Test
    void offlinePartitionIsFollowedWithoutALeader() {
        MetadataImage before = withOrders();
        PartitionRecord offline = partition(ORDERS, 1, List.of(2, 3, 1), List.of(2), -1, 1, 1);
        MetadataImage after = replay(before, 12, changed(offline, ChangeReason.BROKER_FENCED));
        PartitionToFollow follow = MetadataDelta.compute(3, before, after).partitionsToFollow().get(0);
        assertEquals(PartitionToFollow.NO_LEADER, follow.leaderId());
        assertFalse(follow.hasLeader());
        assertEquals(1, follow.leaderEpoch());
    }

    @Test
    void reassignmentAddsAFollowerThenRemovedReplicaIsStoppedAndDeleted() {
        MetadataImage before = withOrders();
        // In progress: replicas = current + target, adding 4, removing 1 (which leads).
        PartitionRecord inProgress = P0.toBuilder().clearReplicas().addAllReplicas(List.of(1, 2, 3, 4))
                .addAddingReplicas(4).addRemovingReplicas(1).setPartitionEpoch(1).build();
        MetadataImage started = replay(before, 12, changed(inProgress, ChangeReason.REASSIGNMENT));
        assertEquals(List.of(new PartitionToFollow(ORDERS_0, ORDERS, 1, 0)),
                MetadataDelta.compute(4, before, started).partitionsToFollow());
        assertTrue(MetadataDelta.compute(2, before, started).isEmpty());

        // Completed: 4 caught up, replicas = target, leadership handed from 1 to 2.
        PartitionRecord done = partition(ORDERS, 0, List.of(2, 3, 4), List.of(2, 3, 4), 2, 1, 3);
        MetadataImage completed = replay(started, 13, changed(done, ChangeReason.REASSIGNMENT));
        MetadataDelta removed = MetadataDelta.compute(1, started, completed);
        assertEquals(List.of(new PartitionToStop(ORDERS_0, ORDERS)), removed.partitionsToStop());
        assertEquals(List.of(new LogToDelete(ORDERS_0, ORDERS, LogToDelete.Reason.REPLICA_REMOVED)),
                removed.logsToDelete());
        assertTrue(removed.partitionsToLead().isEmpty());
        assertTrue(removed.partitionsToFollow().isEmpty());

        assertEquals(List.of(new PartitionToFollow(ORDERS_0, ORDERS, 2, 1)),
                MetadataDelta.compute(4, started, completed).partitionsToFollow());
        assertEquals(1, MetadataDelta.compute(2, started, completed).partitionsToLead().size());
    }

    @Test
    void deletedTopicStopsAndDeletesEveryHostedReplica() {
        MetadataImage before = withOrders();
        MetadataImage after = replay(before, 12, removeTopic(ORDERS));
        MetadataDelta delta = MetadataDelta.compute(3, before, after);
        assertEquals(List.of(new PartitionToStop(ORDERS_0, ORDERS), new PartitionToStop(ORDERS_1, ORDERS)),
                delta.partitionsToStop());
        assertEquals(List.of(new LogToDelete(ORDERS_0, ORDERS, LogToDelete.Reason.TOPIC_DELETED),
                new LogToDelete(ORDERS_1, ORDERS, LogToDelete.Reason.TOPIC_DELETED)), delta.logsToDelete());
        assertTrue(MetadataDelta.compute(4, before, after).isEmpty());
    }

    @Test
    void topicRecreatedUnderTheSameNameDeletesTheOldLogAndLeadsTheNewOne() {
        MetadataImage before = withOrders();
        MetadataImage after = replay(before, 12, removeTopic(ORDERS), topic("orders", "T-orders-2"),
                created(partition("T-orders-2", 0, List.of(1), List.of(1), 1, 0, 0)));
        MetadataDelta delta = MetadataDelta.compute(1, before, after);
        assertEquals(List.of(new LogToDelete(ORDERS_0, ORDERS, LogToDelete.Reason.TOPIC_DELETED),
                new LogToDelete(ORDERS_1, ORDERS, LogToDelete.Reason.TOPIC_DELETED)), delta.logsToDelete());
        assertEquals(List.of(new PartitionToLead(ORDERS_0, "T-orders-2", 0, 0, List.of(1), List.of(1))),
                delta.partitionsToLead());
    }

    @Test
    void fencingAndUnfencingAreFlagged() {
        MetadataImage before = withOrders();
        MetadataImage fenced = replay(before, 12, fence(4, true));
        assertEquals(MetadataDelta.FenceChange.FENCED, MetadataDelta.compute(4, before, fenced).fenceChange());
        assertEquals(MetadataDelta.FenceChange.NONE, MetadataDelta.compute(3, before, fenced).fenceChange());
        MetadataImage unfenced = replay(fenced, 13, fence(4, false));
        assertTrue(MetadataDelta.compute(4, fenced, unfenced).unfenced());

        // A new broker registers fenced: that is no change from not being registered.
        MetadataImage registered = replay(before, 12, broker(5, true));
        assertEquals(MetadataDelta.FenceChange.NONE, MetadataDelta.compute(5, before, registered).fenceChange());
        assertTrue(MetadataDelta.compute(5, registered, replay(registered, 13, fence(5, false))).unfenced());
    }

    @Test
    void sameImagesAlwaysGiveTheSameDelta() {
        MetadataImage before = fourBrokers();
        MetadataImage after = withOrders();
        assertEquals(MetadataDelta.compute(1, before, after).toString(),
                MetadataDelta.compute(1, before, after).toString());
        assertTrue(MetadataDelta.compute(1, after, after).isEmpty());
    }
}
