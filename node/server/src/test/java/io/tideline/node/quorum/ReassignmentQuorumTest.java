package io.tideline.node.quorum;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.metadata.ImageSerde;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.AlterPartition;
import io.tideline.proto.metadata.BrokerHeartbeatResponse;
import io.tideline.proto.metadata.ChangeReason;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.CreatableTopic;
import io.tideline.proto.metadata.MetadataSnapshot;
import io.tideline.proto.metadata.PartitionChangeRecord;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.ReplicaAssignment;
import io.tideline.proto.metadata.TargetReassignment;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partition changes through three real voters: stale AlterPartition requests are refused without a
 * trace, and reassignments (KIP-455) complete, survive a controller failover and can be cancelled.
 * The brokers are only registrations here; the test sends what a partition leader would send once its
 * followers caught up.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReassignmentQuorumTest {
    private static final long SESSION_TIMEOUT_MS = 9000;
    private static final String TOPIC = "orders";

    @TempDir
    Path dir;

    private QuorumTestCluster cluster;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.closeAndAssertNoFaults();
        }
    }

    @Test
    void staleAlterPartitionIsRefusedAndChangesNothing() throws Exception {
        cluster = QuorumTestCluster.start(dir, 3);
        ControllerClient client = cluster.client();
        Map<Integer, Long> epochs = cluster.registerAndUnfence(client, 0, 1, 2);
        PartitionRecord created = createPartition(client, List.of(0, 1));
        assertEquals(0, created.getLeader());

        // Broker 0 stops heartbeating: fenced, its leadership moves to 1 under a new leader epoch. As a
        // zombie it still believes it leads at the old epoch.
        for (long t = 0; t <= SESSION_TIMEOUT_MS; t += 1000) {
            cluster.time.advance(1000);
            for (int alive : List.of(1, 2)) {
                BrokerHeartbeatResponse hb = client.heartbeat(alive, epochs.get(alive), Long.MAX_VALUE, false).get();
                assertEquals(Errors.NONE.code(), hb.getErrorCode(), hb.toString());
            }
        }
        cluster.awaitDutiesSettled();
        cluster.awaitAllImages("leadership moved to 1", img -> img.partition(TOPIC, 0).orElseThrow().getLeader() == 1);
        MetadataImage before = cluster.awaitIdenticalImages();
        PartitionRecord current = before.partition(TOPIC, 0).orElseThrow();
        assertTrue(current.getLeaderEpoch() > created.getLeaderEpoch(), created + " -> " + current);

        ControllerResponse zombie = client.alterPartition(alterPartition(current, 0, epochs.get(0))
                .setLeaderEpoch(created.getLeaderEpoch()).setPartitionEpoch(created.getPartitionEpoch())
                .addAllNewIsr(List.of(0)).setReason(ChangeReason.LAGGING).build()).get();
        assertEquals(Errors.FENCED_LEADER_EPOCH.code(), zombie.getErrorCode(), zombie.toString());
        assertNothingChangedBut(before, zombie.getOffset());

        // The real leader, at the right leader epoch, but built on a partition state it no longer has.
        MetadataImage beforeSecond = cluster.awaitIdenticalImages();
        ControllerResponse outdated = client.alterPartition(alterPartition(current, 1, epochs.get(1))
                .setPartitionEpoch(current.getPartitionEpoch() - 1)
                .addAllNewIsr(List.of(1, 0)).setReason(ChangeReason.CAUGHT_UP).build()).get();
        assertEquals(Errors.INVALID_UPDATE_VERSION.code(), outdated.getErrorCode(), outdated.toString());
        assertNothingChangedBut(beforeSecond, outdated.getOffset());
        assertTrue(outdated.getOffset() > zombie.getOffset());
    }

    @Test
    void reassignmentCompletesWhenTheAddedReplicasJoinTheIsr() throws Exception {
        cluster = QuorumTestCluster.start(dir, 3);
        ControllerClient client = cluster.client();
        Map<Integer, Long> epochs = cluster.registerAndUnfence(client, 0, 1, 2, 3);
        PartitionRecord created = createPartition(client, List.of(0, 1));

        PartitionRecord inProgress = startReassignment(client, List.of(2, 3));
        PartitionRecord caughtUp2 = expandIsr(client, inProgress, epochs, List.of(0, 1, 2));
        assertEquals(List.of(2, 3), caughtUp2.getAddingReplicasList(), "3 is not in sync yet: " + caughtUp2);
        cluster.awaitAllImages("2 in the ISR", img -> img.partition(TOPIC, 0).orElseThrow().getIsrList().contains(2));

        expandIsr(client, caughtUp2, epochs, List.of(0, 1, 2, 3));
        assertCompleted(client, created);
    }

    @Test
    void reassignmentSurvivesTheControllerFailingInTheMiddle() throws Exception {
        cluster = QuorumTestCluster.start(dir, 3);
        ControllerClient client = cluster.client();
        Map<Integer, Long> epochs = cluster.registerAndUnfence(client, 0, 1, 2, 3);
        PartitionRecord created = createPartition(client, List.of(0, 1));
        PartitionRecord inProgress = startReassignment(client, List.of(2, 3));
        PartitionRecord caughtUp2 = expandIsr(client, inProgress, epochs, List.of(0, 1, 2));
        cluster.awaitAllImages("2 in the ISR", img -> img.partition(TOPIC, 0).orElseThrow().equals(caughtUp2));

        int killed = cluster.awaitLeader().nodeId();
        cluster.kill(killed);
        QuorumServer newLeader = cluster.awaitLeader();
        assertNotEquals(killed, newLeader.nodeId());
        assertEquals(caughtUp2, newLeader.image().partition(TOPIC, 0).orElseThrow(),
                "the reassignment is still in progress on the new controller");

        // Brokers heartbeat on through the failover, so the client's reads meet the new leader first.
        for (Map.Entry<Integer, Long> b : epochs.entrySet()) {
            BrokerHeartbeatResponse hb = client.heartbeat(b.getKey(), b.getValue(), Long.MAX_VALUE, false).get();
            assertEquals(Errors.NONE.code(), hb.getErrorCode(), hb.toString());
        }
        // The same client, whose last command went to the dead voter, gets the next one through within
        // a retry or two, not after two 3 s attempt timeouts: reads go through a client of their own.
        ControllerResponse r = client.alterPartition(alterPartition(caughtUp2, 0, epochs.get(0))
                .addAllNewIsr(List.of(0, 1, 2, 3)).setReason(ChangeReason.CAUGHT_UP).build()).get(4, TimeUnit.SECONDS);
        assertEquals(Errors.NONE.code(), r.getErrorCode(), r.toString());
        MetadataImage done = assertCompleted(client, created);

        QuorumServer restarted = cluster.startVoter(killed);
        MetadataImage caughtUp = cluster.awaitIdenticalImages();
        assertTrue(caughtUp.offset() >= done.offset());
        byte[] bytes = ImageSerde.serialize(restarted.image());
        for (QuorumServer s : cluster.live()) {
            assertArrayEquals(bytes, ImageSerde.serialize(s.image()), "voter " + s.nodeId() + " at " + s.image().offset());
        }
        assertEquals(done.partition(TOPIC, 0), restarted.image().partition(TOPIC, 0));
    }

    @Test
    void cancelledReassignmentRestoresTheOldReplicasInTheirOrder() throws Exception {
        cluster = QuorumTestCluster.start(dir, 3);
        ControllerClient client = cluster.client();
        Map<Integer, Long> epochs = cluster.registerAndUnfence(client, 0, 1, 2, 3);
        // Not in id order, so that a cancel that merely sorted would show.
        PartitionRecord created = createPartition(client, List.of(1, 0));
        assertEquals(1, created.getLeader());

        ControllerResponse started = client.alterReassignments(List.of(target(List.of(2, 3, 0)))).get();
        assertEquals(Errors.NONE.code(), started.getResults(0).getErrorCode(), started.toString());
        cluster.awaitAllImages("reassignment started", img -> img.partition(TOPIC, 0).orElseThrow().getAddingReplicasCount() > 0);
        PartitionRecord inProgress = cluster.awaitIdenticalImages().partition(TOPIC, 0).orElseThrow();
        assertEquals(List.of(1, 0, 2, 3), inProgress.getReplicasList());
        // Half way: 2 caught up, 3 did not.
        PartitionRecord half = expandIsr(client, inProgress, epochs, List.of(1, 0, 2));
        assertEquals(List.of(2, 3), half.getAddingReplicasList());

        ControllerResponse cancel = client.alterReassignments(List.of(target(List.of()))).get();
        assertEquals(Errors.NONE.code(), cancel.getResults(0).getErrorCode(), cancel.toString());
        cluster.awaitAllImages("reassignment cancelled", img -> img.partition(TOPIC, 0).orElseThrow().getAddingReplicasCount() == 0);
        PartitionRecord reverted = cluster.awaitIdenticalImages().partition(TOPIC, 0).orElseThrow();
        assertEquals(created.getReplicasList(), reverted.getReplicasList(), "the old replicas, in their order");
        assertEquals(List.of(1, 0), reverted.getIsrList(), "the abandoned replica left the ISR");
        assertEquals(1, reverted.getLeader());
        assertEquals(0, reverted.getAddingReplicasCount() + reverted.getRemovingReplicasCount() + reverted.getTargetReplicasCount(),
                reverted.toString());
        assertTrue(reverted.getPartitionEpoch() > half.getPartitionEpoch());

        ControllerResponse again = client.alterReassignments(List.of(target(List.of()))).get();
        assertEquals(Errors.NO_REASSIGNMENT_IN_PROGRESS.code(), again.getResults(0).getErrorCode(), again.toString());
        cluster.awaitAllImages("past the second cancel", img -> img.offset() >= again.getOffset());
        assertEquals(reverted, cluster.awaitIdenticalImages().partition(TOPIC, 0).orElseThrow());
    }

    // ------------------------------------------------------------------ helpers

    /** Creates {@value #TOPIC} with one partition on exactly these replicas; returns it as every voter sees it. */
    private PartitionRecord createPartition(ControllerClient client, List<Integer> replicas) throws Exception {
        ControllerResponse r = client.createTopics(List.of(CreatableTopic.newBuilder().setName(TOPIC)
                .setNumPartitions(-1).setReplicationFactor(-1)
                .addAssignments(ReplicaAssignment.newBuilder().setPartition(0).addAllReplicas(replicas)).build()), false).get();
        assertEquals(Errors.NONE.code(), r.getErrorCode(), r.toString());
        assertEquals(Errors.NONE.code(), r.getResults(0).getErrorCode(), r.toString());
        cluster.awaitAllImages("topic " + TOPIC, img -> img.topic(TOPIC).isPresent());
        PartitionRecord p = cluster.awaitIdenticalImages().partition(TOPIC, 0).orElseThrow();
        assertEquals(replicas, p.getReplicasList());
        assertEquals(replicas, p.getIsrList());
        return p;
    }

    /** Starts a reassignment to {@code target}, replicas [0, 1] before; returns the in-progress state. */
    private PartitionRecord startReassignment(ControllerClient client, List<Integer> target) throws Exception {
        ControllerResponse r = client.alterReassignments(List.of(target(target))).get();
        assertEquals(Errors.NONE.code(), r.getErrorCode(), r.toString());
        assertEquals(Errors.NONE.code(), r.getResults(0).getErrorCode(), r.toString());
        cluster.awaitAllImages("reassignment started", img -> img.offset() >= r.getOffset());
        PartitionRecord p = cluster.awaitIdenticalImages().partition(TOPIC, 0).orElseThrow();
        assertEquals(List.of(0, 1, 2, 3), p.getReplicasList(), "current + target while in progress: " + p);
        assertEquals(List.of(2, 3), p.getAddingReplicasList());
        assertEquals(List.of(0, 1), p.getRemovingReplicasList());
        assertEquals(List.of(0, 1), p.getIsrList(), "the new replicas are not in sync yet");
        assertEquals(0, p.getLeader());
        return p;
    }

    /** What the partition leader sends once followers caught up: an ISR change at its current epochs. */
    private PartitionRecord expandIsr(ControllerClient client, PartitionRecord current, Map<Integer, Long> epochs,
                                      List<Integer> isr) throws Exception {
        ControllerResponse r = client.alterPartition(alterPartition(current, current.getLeader(), epochs.get(current.getLeader()))
                .addAllNewIsr(isr).setReason(ChangeReason.CAUGHT_UP).build()).get();
        assertEquals(Errors.NONE.code(), r.getErrorCode(), r.toString());
        assertTrue(r.getPartition().getPartitionEpoch() > current.getPartitionEpoch(), r.toString());
        return r.getPartition();
    }

    /** Replicas [2, 3] only, an ISR within them, 2 leading under a newer epoch; every voter agrees. */
    private MetadataImage assertCompleted(ControllerClient client, PartitionRecord created) throws Exception {
        cluster.awaitAllImages("reassignment completed", img -> img.partition(TOPIC, 0).orElseThrow().getAddingReplicasCount() == 0);
        MetadataImage image = cluster.awaitIdenticalImages();
        PartitionRecord done = image.partition(TOPIC, 0).orElseThrow();
        assertEquals(List.of(2, 3), done.getReplicasList(), done.toString());
        assertTrue(!done.getIsrList().isEmpty() && List.of(2, 3).containsAll(done.getIsrList()), done.toString());
        assertEquals(2, done.getLeader(), "the removed leader handed over: " + done);
        assertTrue(done.getLeaderEpoch() > created.getLeaderEpoch(), created + " -> " + done);
        assertEquals(0, done.getAddingReplicasCount() + done.getRemovingReplicasCount() + done.getTargetReplicasCount());
        List<PartitionChangeRecord> changes = client.isrChanges(TOPIC, 0).get().getIsrChangesList();
        assertEquals(ChangeReason.REASSIGNMENT, changes.get(changes.size() - 1).getReason(), changes.toString());
        return image;
    }

    /** Every live voter past {@code offset} holds {@code before} with nothing but its offset and term moved. */
    private void assertNothingChangedBut(MetadataImage before, long offset) {
        assertTrue(offset > before.offset(), "the refusal took an index: " + offset + " vs " + before.offset());
        cluster.awaitAllImages("past the refused command", img -> img.offset() >= offset);
        MetadataSnapshot expected = withoutPosition(before);
        for (QuorumServer s : cluster.live()) {
            MetadataImage now = s.image();
            assertEquals(before.partition(TOPIC, 0), now.partition(TOPIC, 0), "voter " + s.nodeId());
            assertEquals(expected, withoutPosition(now), "voter " + s.nodeId() + " changed more than its offset");
        }
    }

    private static MetadataSnapshot withoutPosition(MetadataImage image) {
        return ImageSerde.toSnapshot(image).toBuilder().clearOffset().clearTerm().build();
    }

    private static AlterPartition.Builder alterPartition(PartitionRecord p, int sender, long senderEpoch) {
        return AlterPartition.newBuilder().setBrokerId(sender).setBrokerEpoch(senderEpoch).setTopicId(p.getTopicId())
                .setPartition(p.getPartition()).setLeaderEpoch(p.getLeaderEpoch()).setPartitionEpoch(p.getPartitionEpoch());
    }

    private static TargetReassignment target(List<Integer> replicas) {
        return TargetReassignment.newBuilder().setTopic(TOPIC).setPartition(0).addAllReplicas(replicas).build();
    }
}
