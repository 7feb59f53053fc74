package io.tideline.node.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.node.config.DynamicBrokerConfigs;
import io.tideline.node.controller.ControllerSettings;
import io.tideline.node.metadata.ImageReplayer;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.testutil.LogCapture;
import io.tideline.proto.metadata.BrokerConfigRecord;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.ConfigEntry;
import io.tideline.proto.metadata.ConfigRecord;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.ItemResult;
import io.tideline.proto.metadata.MetadataRecord;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.TopicRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The active controller's periodic unclean election, on a mock clock: every unclean.leader.election.interval.ms it
 * asks for the leaderless partitions that have a live replica and the setting on (the topic's, else the cluster
 * default, else the node's), and only those.
 */
class UncleanLeaderElectorTest {
    private static final long INTERVAL_MS = 300_000;
    private static final String UNCLEAN = "unclean.leader.election.enable";

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final List<ControllerCommand> submitted = new ArrayList<>();
    private final AtomicBoolean leader = new AtomicBoolean(true);
    private MetadataImage image = MetadataImage.EMPTY;
    private CompletableFuture<ControllerResponse> pending;

    private UncleanLeaderElector elector(boolean nodeSetting) {
        UncleanLeaderElector e = new UncleanLeaderElector(new ControllerSettings(nodeSetting), INTERVAL_MS, time,
                scheduler, () -> image, leader::get, c -> {
            submitted.add(c);
            pending = new CompletableFuture<>();
            return pending;
        });
        e.start();
        return e;
    }

    /** Broker 1 fenced, 2 alive: t-0 has a live replica out of the ISR, t-1 none, t-2 a leader. */
    private static List<MetadataRecord> offline() {
        List<MetadataRecord> r = new ArrayList<>();
        r.add(broker(1, true));
        r.add(broker(2, false));
        r.add(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName("t").setTopicId("tid")).build());
        r.add(partition(0, List.of(1, 2), List.of(1), -1));
        r.add(partition(1, List.of(1), List.of(1), -1));
        r.add(partition(2, List.of(2, 1), List.of(2), 2));
        return r;
    }

    @Test
    void electsTheLeaderlessPartitionsWithALiveReplicaOnceTheTopicTurnsItOn() {
        List<MetadataRecord> records = offline();
        image = replay(records);
        try (LogCapture logs = new LogCapture(); UncleanLeaderElector e = elector(false)) {
            time.advance(INTERVAL_MS * 2);
            assertEquals(List.of(), submitted, "the setting is off: the partition stays offline");

            records.add(MetadataRecord.newBuilder().setConfig(ConfigRecord.newBuilder().setTopicId("tid")
                    .addEntries(ConfigEntry.newBuilder().setKey(UNCLEAN).setValue("true"))).build());
            image = replay(records);
            time.advance(INTERVAL_MS - 1);
            assertEquals(List.of(), submitted, "not before the next interval");
            time.advance(1);
            assertEquals(1, submitted.size());
            var elect = submitted.get(0).getElectLeaders();
            assertEquals(1, elect.getElectionType(), "unclean");
            assertTrue(elect.getOnlyWhereEnabled(), "re-checked where it is applied");
            assertEquals(List.of("t-0"), elect.getPartitionsList().stream()
                    .map(p -> p.getTopic() + "-" + p.getPartition()).toList());
            pending.complete(ControllerResponse.newBuilder().addResults(ItemResult.newBuilder().setName("t-0")
                    .setErrorCode(Errors.NONE.code())).build());
            List<String> lines = logs.messagesOf(UncleanLeaderElector.class);
            assertEquals(1, lines.size(), lines.toString());
            assertTrue(lines.get(0).startsWith("Unclean leader election for 1 offline partitions (t-0)"), lines.get(0));
        }
        assertTrue(scheduler.failures().isEmpty(), scheduler.failures().toString());
    }

    @Test
    void theClusterDefaultAndTheNodeSettingCountAndATopicOverrideWins() {
        List<MetadataRecord> records = offline();
        records.add(MetadataRecord.newBuilder().setBrokerConfig(BrokerConfigRecord.newBuilder()
                .setBrokerId(DynamicBrokerConfigs.CLUSTER_DEFAULT)
                .addEntries(ConfigEntry.newBuilder().setKey(UNCLEAN).setValue("true"))).build());
        image = replay(records);
        try (UncleanLeaderElector e = elector(false)) {
            time.advance(INTERVAL_MS);
            assertEquals(1, submitted.size(), "the cluster-wide dynamic default is on");
        }
        submitted.clear();
        List<MetadataRecord> topicOff = offline();
        topicOff.add(MetadataRecord.newBuilder().setConfig(ConfigRecord.newBuilder().setTopicId("tid")
                .addEntries(ConfigEntry.newBuilder().setKey(UNCLEAN).setValue("false"))).build());
        image = replay(topicOff);
        try (UncleanLeaderElector e = elector(true)) {
            time.advance(INTERVAL_MS * 3);
            assertEquals(List.of(), submitted, "the topic's own false beats the node's true");
        }
        image = replay(offline());
        try (UncleanLeaderElector e = elector(true)) {
            time.advance(INTERVAL_MS);
            assertEquals(1, submitted.size(), "the node's static setting");
        }
    }

    @Test
    void onlyTheReadyLeaderElectsAndARoundInFlightIsNotOverlapped() {
        image = replay(offline());
        try (UncleanLeaderElector e = elector(true)) {
            leader.set(false);
            time.advance(INTERVAL_MS);
            assertEquals(List.of(), submitted);
            leader.set(true);
            time.advance(INTERVAL_MS);
            time.advance(INTERVAL_MS);
            assertEquals(1, submitted.size(), "the first round has not been answered");
            pending.complete(ControllerResponse.newBuilder().setErrorCode(Errors.NOT_CONTROLLER.code()).build());
            time.advance(INTERVAL_MS);
            assertEquals(2, submitted.size());
        }
    }

    private static MetadataRecord broker(int id, boolean fenced) {
        return MetadataRecord.newBuilder().setBrokerRegistration(BrokerRegistrationRecord.newBuilder().setBrokerId(id)
                .setBrokerEpoch(id).setFenced(fenced)).build();
    }

    private static MetadataRecord partition(int partition, List<Integer> replicas, List<Integer> isr, int leader) {
        return MetadataRecord.newBuilder().setPartition(PartitionRecord.newBuilder().setTopicId("tid")
                .setPartition(partition).addAllReplicas(replicas).addAllIsr(isr).setLeader(leader).setLeaderEpoch(1)
                .setPartitionEpoch(1)).build();
    }

    private static MetadataImage replay(List<MetadataRecord> records) {
        return ImageReplayer.replay(MetadataImage.EMPTY, records, 10, 1);
    }
}
