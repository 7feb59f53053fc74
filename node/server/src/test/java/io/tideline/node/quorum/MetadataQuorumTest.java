package io.tideline.node.quorum;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.node.controller.ControllerSettings;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.metadata.ImageSerde;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.AlterPartition;
import io.tideline.proto.metadata.BrokerHeartbeat;
import io.tideline.proto.metadata.BrokerHeartbeatResponse;
import io.tideline.proto.metadata.ChangeReason;
import io.tideline.proto.metadata.ControllerQuery;
import io.tideline.proto.metadata.ControllerQueryResponse;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.CreatableTopic;
import io.tideline.proto.metadata.Endpoint;
import io.tideline.proto.metadata.PartitionChangeRecord;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.ReplicaAssignment;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three voters in one JVM: registration and heartbeats, session expiry and leader moves, offline
 * partitions, leases across a controller failover, restart from snapshot + log, corrupt snapshots.
 * Raft runs on real time; the controller duties run on the cluster's mock clock, so "nine seconds
 * without a heartbeat" is a loop of clock jumps, not a sleep.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MetadataQuorumTest {
    private static final long SESSION_TIMEOUT_MS = 9000;

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
    void registeredBrokersAreUnfencedByHeartbeatsAndEveryVoterHoldsTheSameImage() throws Exception {
        cluster = QuorumTestCluster.start(dir, 3);
        List<Long> appliedOffsets = new CopyOnWriteArrayList<>();
        // Records what it sees; an assertion failing on Ratis' apply thread would stop the voter instead.
        cluster.voter(1).stateMachine().addListener((previous, current, records) -> appliedOffsets.add(current.offset()));
        ControllerClient client = cluster.client();
        Map<Integer, Long> epochs = registerAndUnfence(client, 1, 2, 3);

        MetadataImage image = cluster.awaitIdenticalImages();
        assertEquals(3, image.brokers().size(), cluster.dump());
        for (int id = 1; id <= 3; id++) {
            assertFalse(image.brokers().get(id).getFenced(), "broker " + id + " unfenced");
            assertEquals(epochs.get(id), image.brokers().get(id).getBrokerEpoch());
        }

        // A heartbeat with a stale epoch is refused and changes nothing.
        BrokerHeartbeatResponse stale = client.heartbeat(1, epochs.get(1) - 1, Long.MAX_VALUE, false).get();
        assertEquals(Errors.STALE_BROKER_EPOCH.code(), stale.getErrorCode());

        // Bytes that are no command: refused, and the image offset still follows the log.
        long before = cluster.awaitLeader().image().offset();
        try (RaftClient raw = RaftClient.newBuilder().setProperties(new RaftProperties())
                .setRaftGroup(QuorumIds.group(QuorumTestCluster.CLUSTER_ID, cluster.voters())).build()) {
            RaftClientReply reply = raw.io().send(Message.valueOf(ByteString.copyFrom(new byte[] {(byte) 0xff, (byte) 0xff, 0x01})));
            ControllerResponse response = RatisMessages.commandResponse(reply);
            assertEquals(Errors.INVALID_REQUEST.code(), response.getErrorCode(), response.toString());
            assertTrue(response.getOffset() > before);
            cluster.awaitAllImages("offset past the garbage entry", img -> img.offset() >= response.getOffset());
        }
        MetadataImage after = cluster.awaitIdenticalImages();
        assertEquals(image.brokers(), after.brokers(), "a refused command changes nothing");

        // Image fetches: the whole image for a stale offset, nothing for the current one.
        QuorumServer leader = cluster.awaitLeader();
        ControllerQueryResponse fetched = client.fetchImage(-1).get();
        assertTrue(fetched.getIsLeader() && fetched.hasImage(), fetched.toString());
        assertEquals(ImageSerde.toSnapshot(after), fetched.getImage());
        assertFalse(client.fetchImage(fetched.getImage().getOffset()).get().hasImage());

        // A follower's state machine does not answer heartbeats: they are the leader's soft state.
        QuorumServer follower = cluster.live().stream().filter(s -> s != leader).findFirst().orElseThrow();
        ControllerQuery hb = ControllerQuery.newBuilder().setHeartbeat(BrokerHeartbeat.newBuilder()
                .setBrokerId(1).setBrokerEpoch(epochs.get(1)).setMetadataOffset(Long.MAX_VALUE)).build();
        Message answer = follower.stateMachine().query(RatisMessages.of(hb)).get();
        assertEquals(Errors.NOT_CONTROLLER.code(),
                ControllerQueryResponse.parseFrom(answer.getContent().toByteArray()).getErrorCode());

        // Listeners saw every applied change in log order.
        cluster.awaitTrue("listener caught up", () -> !appliedOffsets.isEmpty()
                && appliedOffsets.get(appliedOffsets.size() - 1) == cluster.voter(1).image().offset());
        assertEquals(appliedOffsets.stream().sorted().distinct().toList(), appliedOffsets);

        cluster.awaitTrue("one active controller", () -> activeControllers() == 1);
        for (QuorumServer s : cluster.live()) {
            assertEquals(0, (int) cluster.gauge(s.nodeId(), QuorumMetrics.FENCED_BROKER_COUNT));
            assertEquals(s.image().offset(), (long) cluster.gauge(s.nodeId(), QuorumMetrics.LAST_APPLIED_RECORD_OFFSET));
        }
    }

    @Test
    void brokerWithoutHeartbeatsIsFencedAndItsLeadershipsMoveToLiveIsrMembers() throws Exception {
        cluster = QuorumTestCluster.start(dir, 3);
        ControllerClient client = cluster.client();
        Map<Integer, Long> epochs = registerAndUnfence(client, 1, 2, 3);
        createTopic(client, CreatableTopic.newBuilder().setName("orders").setNumPartitions(6).setReplicationFactor(2).build());
        MetadataImage created = cluster.awaitIdenticalImages();
        Map<Integer, PartitionRecord> ledBy3 = new HashMap<>();
        created.topic("orders").orElseThrow().partitions().forEach((p, r) -> {
            if (r.getLeader() == 3) {
                ledBy3.put(p, r);
            }
        });
        assertFalse(ledBy3.isEmpty(), "round robin gives broker 3 some leaderships: " + cluster.dump());

        heartbeatFor(client, Map.of(1, epochs.get(1), 2, epochs.get(2)), SESSION_TIMEOUT_MS + 1000);
        cluster.awaitDutiesSettled();
        cluster.awaitAllImages("broker 3 fenced", img -> img.brokers().get(3).getFenced());

        MetadataImage image = cluster.awaitIdenticalImages();
        assertFalse(image.brokers().get(1).getFenced());
        assertFalse(image.brokers().get(2).getFenced());
        String topicId = image.topic("orders").orElseThrow().id();
        for (PartitionRecord p : image.topic("orders").orElseThrow().partitions().values()) {
            assertFalse(p.getIsrList().contains(3) && p.getIsrCount() > 1, "3 left the ISR of " + p);
            assertNotEquals(3, p.getLeader(), "3 leads nothing: " + p);
            PartitionRecord old = ledBy3.get(p.getPartition());
            if (old != null) {
                assertTrue(p.getLeader() == 1 || p.getLeader() == 2, "a live broker took over " + p);
                assertTrue(p.getIsrList().contains(p.getLeader()), "the new leader is in the ISR: " + p);
                assertTrue(p.getLeaderEpoch() > old.getLeaderEpoch(), "the leader epoch went up: " + old + " -> " + p);
                List<PartitionChangeRecord> changes = client.isrChanges("orders", p.getPartition()).get().getIsrChangesList();
                assertEquals(ChangeReason.BROKER_FENCED, changes.get(changes.size() - 1).getReason(), changes.toString());
                assertEquals(image.recentChanges(topicId, p.getPartition()), changes);
            }
        }
        for (QuorumServer s : cluster.live()) {
            assertEquals(1, (int) cluster.gauge(s.nodeId(), QuorumMetrics.FENCED_BROKER_COUNT));
            assertEquals(6, (int) cluster.gauge(s.nodeId(), QuorumMetrics.GLOBAL_PARTITION_COUNT));
            assertEquals(0, (int) cluster.gauge(s.nodeId(), QuorumMetrics.OFFLINE_PARTITIONS_COUNT));
        }
    }

    @Test
    void partitionWhoseIsrHasNoLiveMemberGoesOfflineAndReturnsWithItsBroker() throws Exception {
        cluster = QuorumTestCluster.start(dir, 3);
        ControllerClient client = cluster.client();
        Map<Integer, Long> epochs = registerAndUnfence(client, 1, 2, 3);
        createTopic(client, CreatableTopic.newBuilder().setName("ledger").setNumPartitions(-1).setReplicationFactor(-1)
                .addAssignments(ReplicaAssignment.newBuilder().setPartition(0).addAllReplicas(List.of(3, 1))).build());
        MetadataImage created = cluster.awaitIdenticalImages();
        PartitionRecord p0 = created.partition("ledger", 0).orElseThrow();
        assertEquals(3, p0.getLeader());
        // The leader drops its follower from the ISR: only broker 3 holds all the data now.
        ControllerResponse shrink = client.alterPartition(AlterPartition.newBuilder().setBrokerId(3).setBrokerEpoch(epochs.get(3))
                .setTopicId(p0.getTopicId()).setPartition(0).setLeaderEpoch(p0.getLeaderEpoch())
                .setPartitionEpoch(p0.getPartitionEpoch()).addNewIsr(3).setReason(ChangeReason.LAGGING).build()).get();
        assertEquals(Errors.NONE.code(), shrink.getErrorCode(), shrink.toString());

        heartbeatFor(client, Map.of(1, epochs.get(1), 2, epochs.get(2)), SESSION_TIMEOUT_MS + 1000);
        cluster.awaitDutiesSettled();
        cluster.awaitAllImages("ledger-0 offline", img -> img.partition("ledger", 0).orElseThrow().getLeader() == -1);
        MetadataImage offline = cluster.awaitIdenticalImages();
        PartitionRecord down = offline.partition("ledger", 0).orElseThrow();
        assertEquals(List.of(3), down.getIsrList(), "the ISR is never emptied: " + down);
        for (QuorumServer s : cluster.live()) {
            assertEquals(1, (int) cluster.gauge(s.nodeId(), QuorumMetrics.OFFLINE_PARTITIONS_COUNT));
        }

        // Broker 3 comes back: heartbeats, gets unfenced, and leads again under a new epoch.
        cluster.awaitTrue("broker 3 unfenced", () -> !client.heartbeat(3, epochs.get(3), offline.offset(), false).get().getFenced());
        cluster.awaitAllImages("ledger-0 back online", img -> img.partition("ledger", 0).orElseThrow().getLeader() == 3);
        PartitionRecord back = cluster.awaitIdenticalImages().partition("ledger", 0).orElseThrow();
        assertTrue(back.getLeaderEpoch() > down.getLeaderEpoch(), down + " -> " + back);
        for (QuorumServer s : cluster.live()) {
            assertEquals(0, (int) cluster.gauge(s.nodeId(), QuorumMetrics.OFFLINE_PARTITIONS_COUNT));
        }
    }

    @Test
    void controlledShutdownMovesLeadershipsBeforeTheBrokerIsReadyToStop() throws Exception {
        cluster = QuorumTestCluster.start(dir, 3);
        ControllerClient client = cluster.client();
        Map<Integer, Long> epochs = registerAndUnfence(client, 1, 2, 3);
        createTopic(client, CreatableTopic.newBuilder().setName("orders").setNumPartitions(6).setReplicationFactor(2).build());
        // Only broker 3 can lead this one: it stays its leader, and must not hold up the shutdown.
        createTopic(client, CreatableTopic.newBuilder().setName("solo").setNumPartitions(-1).setReplicationFactor(-1)
                .addAssignments(ReplicaAssignment.newBuilder().setPartition(0).addReplicas(3)).build());
        MetadataImage created = cluster.awaitIdenticalImages();
        assertTrue(created.topic("orders").orElseThrow().partitions().values().stream().anyMatch(p -> p.getLeader() == 3));

        cluster.awaitTrue("broker 3 ready to stop", () -> {
            BrokerHeartbeatResponse hb = client.heartbeat(3, epochs.get(3), Long.MAX_VALUE, true).get();
            return hb.getErrorCode() == Errors.NONE.code() && hb.getShutdownReady();
        });
        cluster.awaitDutiesSettled();
        MetadataImage image = cluster.awaitIdenticalImages();
        assertTrue(image.brokers().get(3).getInControlledShutdown(), cluster.dump());
        for (PartitionRecord p : image.topic("orders").orElseThrow().partitions().values()) {
            assertNotEquals(3, p.getLeader(), "leadership moved: " + p);
            assertTrue(p.getIsrList().contains(p.getLeader()), p.toString());
        }
        assertEquals(3, image.partition("solo", 0).orElseThrow().getLeader(), "no other broker could take it");
    }

    @Test
    void controllerFailoverGivesEveryBrokerAFreshLease() throws Exception {
        cluster = QuorumTestCluster.start(dir, 3);
        ControllerClient client = cluster.client();
        Map<Integer, Long> epochs = registerAndUnfence(client, 1, 2, 3);
        cluster.awaitIdenticalImages();

        // Nobody heartbeats for most of a session; then the controller dies.
        cluster.time.advance(SESSION_TIMEOUT_MS - 2000);
        cluster.awaitDutiesSettled();
        QuorumServer oldLeader = cluster.awaitLeader();
        cluster.kill(oldLeader.nodeId());
        QuorumServer newLeader = cluster.awaitLeader();
        assertNotEquals(oldLeader.nodeId(), newLeader.nodeId());

        // Past the old leases, well within the new ones: nobody is fenced for the failover's sake.
        cluster.time.advance(4000);
        cluster.awaitDutiesSettled();
        MetadataImage image = newLeader.image();
        for (int id = 1; id <= 3; id++) {
            assertFalse(image.brokers().get(id).getFenced(), "broker " + id + " keeps its session\n" + cluster.dump());
        }

        // The new leases do expire for a broker that stays silent.
        heartbeatFor(client, Map.of(1, epochs.get(1), 2, epochs.get(2)), SESSION_TIMEOUT_MS - 4000 + 1000);
        cluster.awaitDutiesSettled();
        cluster.awaitAllImages("broker 3 fenced after its new lease", img -> img.brokers().get(3).getFenced());
        assertFalse(cluster.awaitIdenticalImages().brokers().get(1).getFenced());
        cluster.awaitTrue("one active controller", () -> activeControllers() == 1);
    }

    @Test
    void restartedVoterRebuildsAByteIdenticalImageFromSnapshotAndLog() throws Exception {
        cluster = QuorumTestCluster.start(dir, 3);
        ControllerClient client = cluster.client();
        Map<Integer, Long> epochs = registerAndUnfence(client, 1, 2, 3);
        createTopic(client, CreatableTopic.newBuilder().setName("before").setNumPartitions(3).setReplicationFactor(3).build());
        cluster.awaitIdenticalImages();

        int victim = cluster.live().stream().filter(s -> !s.isLeader()).findFirst().orElseThrow().nodeId();
        long snapshotIndex = cluster.voter(victim).takeSnapshot();
        assertTrue(SnapshotFile.latest(cluster.snapshotDir(victim)).isPresent(), "snapshot written");
        cluster.kill(victim);

        // The survivors move on: a topic, a fencing, and a snapshot on the leader.
        createTopic(client, CreatableTopic.newBuilder().setName("while-down").setNumPartitions(2).setReplicationFactor(2).build());
        heartbeatFor(client, Map.of(1, epochs.get(1), 2, epochs.get(2)), SESSION_TIMEOUT_MS + 1000);
        cluster.awaitDutiesSettled();
        cluster.awaitAllImages("broker 3 fenced", img -> img.brokers().get(3).getFenced());
        cluster.awaitLeader().takeSnapshot();

        QuorumServer restarted = cluster.startVoter(victim);
        assertTrue(restarted.image().offset() >= snapshotIndex, "started from its snapshot, not from scratch");
        MetadataImage image = cluster.awaitIdenticalImages();
        assertTrue(image.topic("while-down").isPresent());
        assertTrue(image.offset() > snapshotIndex);
        byte[] bytes = ImageSerde.serialize(restarted.image());
        for (QuorumServer s : cluster.live()) {
            assertArrayEquals(bytes, ImageSerde.serialize(s.image()), "voter " + s.nodeId() + " at " + s.image().offset());
        }
    }

    @Test
    void voterWithWipedStorageGetsTheLeadersSnapshotOnceTheLogIsPurged() throws Exception {
        // Small log segments and purging up to the snapshot: the leader soon lacks the entries a new
        // voter would need, so it has to ship its snapshot (the follower reinitializes from it).
        cluster = QuorumTestCluster.start(dir, 3, ControllerSettings.DEFAULT, b -> b
                .ratisProperty("raft.server.log.segment.size.max", "16KB")
                .ratisProperty("raft.server.log.preallocated.size", "16KB")
                .ratisProperty("raft.server.log.purge.upto.snapshot.index", "true")
                .ratisProperty("raft.server.log.purge.gap", "1"));
        ControllerClient client = cluster.client();
        registerAndUnfence(client, 1);
        cluster.awaitIdenticalImages();
        int victim = cluster.live().stream().filter(s -> !s.isLeader()).findFirst().orElseThrow().nodeId();
        cluster.kill(victim);
        deleteRecursively(cluster.storageDir(victim));

        // Enough entries to close several segments, then a snapshot that lets the leader purge them.
        List<CompletableFuture<ControllerResponse>> pending = new ArrayList<>();
        String padding = "x".repeat(400);
        for (int i = 0; i < 150; i++) {
            pending.add(client.registerBroker(100 + i, "incarnation-" + i,
                    List.of(Endpoint.newBuilder().setName("CLIENT").setHost(padding).setPort(i + 1).build()), ""));
        }
        for (CompletableFuture<ControllerResponse> f : pending) {
            assertEquals(Errors.NONE.code(), f.get().getErrorCode());
        }
        QuorumServer leader = cluster.awaitLeader();
        leader.takeSnapshot();
        cluster.awaitTrue("leader log purged", () -> leader.raftLogStartIndex() > 0);

        QuorumServer fresh = cluster.startVoter(victim);
        MetadataImage image = cluster.awaitIdenticalImages();
        assertEquals(151, image.brokers().size());
        assertTrue(SnapshotFile.latest(cluster.snapshotDir(victim)).isPresent(), "the installed snapshot is on disk");
        SnapshotFile.readVerified(SnapshotFile.latest(cluster.snapshotDir(victim)).orElseThrow());
        assertArrayEquals(ImageSerde.serialize(leader.image()), ImageSerde.serialize(fresh.image()));
    }

    @Test
    void corruptSnapshotIsRefusedAtStart() throws Exception {
        cluster = QuorumTestCluster.start(dir, 3);
        ControllerClient client = cluster.client();
        registerAndUnfence(client, 1);
        cluster.awaitIdenticalImages();
        int victim = cluster.live().stream().filter(s -> !s.isLeader()).findFirst().orElseThrow().nodeId();
        cluster.voter(victim).takeSnapshot();
        cluster.kill(victim);

        File snapshot = SnapshotFile.latest(cluster.snapshotDir(victim)).orElseThrow();
        try (RandomAccessFile f = new RandomAccessFile(snapshot, "rw")) {
            long pos = f.length() / 2;
            f.seek(pos);
            int b = f.read();
            f.seek(pos);
            f.write(b ^ 0x10);
        }
        QuorumServer voter = cluster.newVoter(victim);
        IOException e = assertThrows(IOException.class, voter::start);
        voter.close();
        assertTrue(e.getMessage().contains("corrupt") && e.getMessage().contains(snapshot.getName()), e.getMessage());
        cluster.faults.clear();
    }

    // ------------------------------------------------------------------ helpers

    private static void deleteRecursively(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** Registers the brokers and heartbeats each until it is unfenced; returns their epochs. */
    private Map<Integer, Long> registerAndUnfence(ControllerClient client, int... brokerIds) throws Exception {
        Map<Integer, Long> epochs = new HashMap<>();
        for (int id : brokerIds) {
            ControllerResponse r = client.registerBroker(id, "incarnation-" + id,
                    List.of(Endpoint.newBuilder().setName("CLIENT").setHost("localhost").setPort(9090 + id).build()), "").get();
            assertEquals(Errors.NONE.code(), r.getErrorCode(), r.toString());
            epochs.put(id, r.getBrokerEpoch());
        }
        for (int id : brokerIds) {
            long epoch = epochs.get(id);
            cluster.awaitTrue("broker " + id + " unfenced", () -> {
                BrokerHeartbeatResponse hb = client.heartbeat(id, epoch, epoch, false).get();
                return hb.getErrorCode() == Errors.NONE.code() && !hb.getFenced();
            });
        }
        return epochs;
    }

    private void createTopic(ControllerClient client, CreatableTopic topic) throws Exception {
        ControllerResponse r = client.createTopics(List.of(topic), false).get();
        assertEquals(Errors.NONE.code(), r.getErrorCode(), r.toString());
        assertEquals(Errors.NONE.code(), r.getResults(0).getErrorCode(), r.toString());
        cluster.awaitAllImages("topic " + topic.getName(), img -> img.topic(topic.getName()).isPresent());
    }

    /** Moves the mock clock in one-second steps, heartbeating {@code alive} after each. */
    private void heartbeatFor(ControllerClient client, Map<Integer, Long> alive, long totalMs) throws Exception {
        for (long t = 0; t < totalMs; t += 1000) {
            cluster.time.advance(1000);
            for (Map.Entry<Integer, Long> b : alive.entrySet()) {
                BrokerHeartbeatResponse hb = client.heartbeat(b.getKey(), b.getValue(), Long.MAX_VALUE, false).get();
                assertEquals(Errors.NONE.code(), hb.getErrorCode(), hb.toString());
            }
        }
    }

    private int activeControllers() {
        int sum = 0;
        for (QuorumServer s : cluster.live()) {
            sum += (int) cluster.gauge(s.nodeId(), QuorumMetrics.ACTIVE_CONTROLLER_COUNT);
        }
        return sum;
    }

}
