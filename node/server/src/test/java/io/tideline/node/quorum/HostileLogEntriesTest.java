package io.tideline.node.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.AlterBrokerConfigs;
import io.tideline.proto.metadata.AlterPartition;
import io.tideline.proto.metadata.AlterReassignments;
import io.tideline.proto.metadata.ConfigEntry;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.CreatableTopic;
import io.tideline.proto.metadata.CreatePartitions;
import io.tideline.proto.metadata.CreatePartitionsItem;
import io.tideline.proto.metadata.CreateTopics;
import io.tideline.proto.metadata.ElectLeaders;
import io.tideline.proto.metadata.ExpireGroups;
import io.tideline.proto.metadata.ReplicaAssignment;
import io.tideline.proto.metadata.TargetReassignment;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Entries that never passed the controller client's checks, appended straight to the Raft log: every voter
 * refuses each one alike, none throws or stops, and after all voters restart and replay the log they agree on
 * the image and keep serving (docs/behaviours.md B103, B104).
 */
class HostileLogEntriesTest {
    private static final long REPLY_TIMEOUT_S = 20;

    @TempDir
    Path dir;

    private QuorumTestCluster cluster;
    private RaftClient raw;

    @AfterEach
    void tearDown() throws Exception {
        if (raw != null) {
            raw.close();
        }
        if (cluster != null) {
            cluster.closeAndAssertNoFaults();
        }
    }

    @Test
    void hostileEntriesAreRefusedAlikeAndTheVotersSurviveARestartThatReplaysThem() throws Exception {
        cluster = QuorumTestCluster.start(dir, 3);
        ControllerClient client = cluster.client();
        cluster.registerAndUnfence(client, 1, 2, 3);
        ControllerResponse created = client.createTopics(List.of(CreatableTopic.newBuilder().setName("existing")
                .setNumPartitions(2).setReplicationFactor(3).build()), false).get();
        assertEquals(Errors.NONE.code(), created.getResults(0).getErrorCode(), created.toString());
        raw = rawClient();

        for (Map.Entry<String, byte[]> hostile : hostileEntries().entrySet()) {
            ControllerResponse r = RatisMessages.commandResponse(raw.async()
                    .send(Message.valueOf(UnsafeByteOperations.unsafeWrap(hostile.getValue())))
                    .get(REPLY_TIMEOUT_S, TimeUnit.SECONDS));
            boolean refused = r.getErrorCode() != Errors.NONE.code()
                    || r.getResultsList().stream().allMatch(item -> item.getErrorCode() != Errors.NONE.code());
            assertTrue(refused, hostile.getKey() + " was not refused: " + r);
            assertTrue(r.getOffset() > 0, hostile.getKey() + " was not applied at an index: " + r);
        }
        MetadataImage before = cluster.awaitIdenticalImages();
        assertEquals(Map.of("existing", 2), partitionCounts(before));

        for (int id = 1; id <= 3; id++) {
            cluster.kill(id);
        }
        for (int id = 1; id <= 3; id++) {
            cluster.startVoter(id);
        }
        cluster.awaitLeader();
        cluster.awaitAllImages("the log replayed", img -> img.offset() >= before.offset());
        MetadataImage replayed = cluster.awaitIdenticalImages();
        assertEquals(partitionCounts(before), partitionCounts(replayed));
        assertEquals(before.brokers().keySet(), replayed.brokers().keySet());

        ControllerResponse after = client.createTopics(List.of(CreatableTopic.newBuilder().setName("after")
                .setNumPartitions(3).setReplicationFactor(3).build()), false).get();
        assertEquals(Errors.NONE.code(), after.getResults(0).getErrorCode(), after.toString());
        cluster.awaitAllImages("the topic created after the restart", img -> img.topic("after").isPresent());
        assertFalse(cluster.awaitIdenticalImages().topic("huge").isPresent());
    }

    @Test
    void theControllerClientRefusesWhatFailsTheChecksWithoutProposingIt() throws Exception {
        cluster = QuorumTestCluster.start(dir, 3);
        ControllerClient client = cluster.client();
        cluster.registerAndUnfence(client, 1, 2, 3);
        MetadataImage before = cluster.awaitIdenticalImages();
        ControllerResponse huge = client.createTopics(List.of(CreatableTopic.newBuilder().setName("huge")
                .setNumPartitions(Integer.MAX_VALUE).setReplicationFactor(1).build()), false).get();
        assertEquals(Errors.POLICY_VIOLATION.code(), huge.getErrorCode(), huge.toString());
        ControllerResponse negative = client.registerBroker(-1, "x", List.of(), "").get();
        assertEquals(Errors.INVALID_REQUEST.code(), negative.getErrorCode(), negative.toString());
        for (QuorumServer voter : cluster.live()) {
            assertEquals(before.offset(), voter.image().offset(), "voter " + voter.nodeId() + " applied an entry");
        }
    }

    @Test
    void aValidateOnlyCreateNeverEntersTheLog() throws Exception {
        cluster = QuorumTestCluster.start(dir, 3);
        ControllerClient client = cluster.client();
        cluster.registerAndUnfence(client, 1, 2, 3);
        MetadataImage before = cluster.awaitIdenticalImages();
        ControllerResponse ok = client.createTopics(List.of(CreatableTopic.newBuilder().setName("dry")
                .setNumPartitions(3).setReplicationFactor(3).build()), true).get();
        assertEquals(Errors.NONE.code(), ok.getResults(0).getErrorCode(), ok.toString());
        ControllerResponse refused = client.createTopics(List.of(CreatableTopic.newBuilder().setName("dry")
                .setNumPartitions(3).setReplicationFactor(4).build()), true).get();
        assertEquals(Errors.INVALID_REPLICATION_FACTOR.code(), refused.getResults(0).getErrorCode(), refused.toString());
        ControllerResponse huge = client.createTopics(List.of(CreatableTopic.newBuilder().setName("dry")
                .setNumPartitions(Integer.MAX_VALUE).setReplicationFactor(1).build()), true).get();
        assertEquals(Errors.POLICY_VIOLATION.code(), huge.getErrorCode(), huge.toString());
        for (QuorumServer voter : cluster.live()) {
            assertEquals(before.offset(), voter.image().offset(), "voter " + voter.nodeId() + " applied an entry");
            assertFalse(voter.image().topic("dry").isPresent());
        }
    }

    /** Name -> entry bytes; each one is refused by the state machine as it is today. */
    private static Map<String, byte[]> hostileEntries() {
        Map<String, byte[]> m = new LinkedHashMap<>();
        m.put("a topic of 2^31-1 partitions", createTopic(CreatableTopic.newBuilder().setName("huge")
                .setNumPartitions(Integer.MAX_VALUE).setReplicationFactor(1)));
        m.put("a validate_only topic of 2^31-1 partitions", command(c -> c.setCreateTopics(CreateTopics.newBuilder()
                .setValidateOnly(true).addTopics(CreatableTopic.newBuilder().setName("huge")
                        .setNumPartitions(Integer.MAX_VALUE).setReplicationFactor(3)))));
        m.put("a topic of 2^31-1 replicas", createTopic(CreatableTopic.newBuilder().setName("huge")
                .setNumPartitions(1).setReplicationFactor(Integer.MAX_VALUE)));
        m.put("negative partitions", createTopic(CreatableTopic.newBuilder().setName("huge")
                .setNumPartitions(-7).setReplicationFactor(1)));
        m.put("negative replication factor", createTopic(CreatableTopic.newBuilder().setName("huge")
                .setNumPartitions(1).setReplicationFactor(-3)));
        m.put("an assignment naming broker 2^31-1", createTopic(CreatableTopic.newBuilder().setName("huge")
                .setNumPartitions(-1).setReplicationFactor(-1)
                .addAssignments(ReplicaAssignment.newBuilder().setPartition(0).addReplicas(Integer.MAX_VALUE))));
        m.put("an assignment of partition 2^31-1", createTopic(CreatableTopic.newBuilder().setName("huge")
                .setNumPartitions(-1).setReplicationFactor(-1)
                .addAssignments(ReplicaAssignment.newBuilder().setPartition(Integer.MAX_VALUE).addReplicas(1))));
        m.put("CreatePartitions to 2^31-1", command(c -> c.setCreatePartitions(CreatePartitions.newBuilder()
                .addTopics(CreatePartitionsItem.newBuilder().setName("existing").setTotalCount(Integer.MAX_VALUE)))));
        m.put("CreatePartitions to a negative count", command(c -> c.setCreatePartitions(CreatePartitions.newBuilder()
                .addTopics(CreatePartitionsItem.newBuilder().setName("existing").setTotalCount(Integer.MIN_VALUE)))));
        m.put("a reassignment to broker 2^31-1", command(c -> c.setAlterReassignments(AlterReassignments.newBuilder()
                .addReassignments(TargetReassignment.newBuilder().setTopic("existing").setPartition(0)
                        .addReplicas(Integer.MAX_VALUE).addReplicas(Integer.MIN_VALUE)))));
        m.put("an ISR change of partition 2^31-1", command(c -> c.setAlterPartition(AlterPartition.newBuilder()
                .setBrokerId(1).setTopicId("no-such-id").setPartition(Integer.MAX_VALUE).addNewIsr(Integer.MAX_VALUE))));
        m.put("an election of type 7", command(c -> c.setElectLeaders(ElectLeaders.newBuilder().setElectionType(7))));
        m.put("a negative group retention", command(c -> c.setExpireGroups(ExpireGroups.newBuilder().setRetentionMs(-1))));
        m.put("a config of broker -2", command(c -> c.setAlterBrokerConfigs(AlterBrokerConfigs.newBuilder().setBrokerId(-2)
                .addSet(ConfigEntry.newBuilder().setKey("log.retention.ms").setValue("1")))));
        m.put("a topic name of 1 MiB", createTopic(CreatableTopic.newBuilder().setName("n".repeat(1 << 20))
                .setNumPartitions(1).setReplicationFactor(1)));
        m.put("a topic name of 30000 characters", createTopic(CreatableTopic.newBuilder().setName("n".repeat(30_000))
                .setNumPartitions(1).setReplicationFactor(1)));
        m.put("a config value of 1 MiB", createTopic(CreatableTopic.newBuilder().setName("big-config")
                .setNumPartitions(1).setReplicationFactor(1)
                .addConfigs(ConfigEntry.newBuilder().setKey("retention.ms").setValue("9".repeat(1 << 20)))));
        m.put("an empty command", new byte[0]);
        // Field 99, varint 1: a command type this version does not know.
        m.put("an unknown command type", new byte[] {(byte) 0x98, 0x06, 0x01});
        byte[] ff = new byte[4096];
        Arrays.fill(ff, (byte) 0xFF);
        m.put("0xFF bytes", ff);
        m.put("a truncated command", Arrays.copyOf(createTopic(CreatableTopic.newBuilder().setName("cut")
                .setNumPartitions(1).setReplicationFactor(1)), 5));
        Random random = new Random(27);
        for (int i = 0; i < 20; i++) {
            byte[] garbage = new byte[1 + random.nextInt(2048)];
            random.nextBytes(garbage);
            m.put("random bytes #" + i, garbage);
        }
        return m;
    }

    private static byte[] createTopic(CreatableTopic.Builder topic) {
        return command(c -> c.setCreateTopics(CreateTopics.newBuilder().addTopics(topic)));
    }

    private static byte[] command(java.util.function.Consumer<ControllerCommand.Builder> body) {
        ControllerCommand.Builder b = ControllerCommand.newBuilder().setTimestampMs(1);
        body.accept(b);
        return b.build().toByteArray();
    }

    private static Map<String, Integer> partitionCounts(MetadataImage image) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        image.topics().forEach((name, t) -> counts.put(name, t.partitions().size()));
        return counts;
    }

    /** A Ratis client with none of the controller client's checks: bytes go to the log as they are. */
    private RaftClient rawClient() {
        RaftProperties p = new RaftProperties();
        RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
        RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(3, TimeUnit.SECONDS));
        return RaftClient.newBuilder().setProperties(p)
                .setRaftGroup(QuorumIds.group(QuorumTestCluster.CLUSTER_ID, cluster.voters()))
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(20, TimeDuration.valueOf(200, TimeUnit.MILLISECONDS)))
                .build();
    }
}
