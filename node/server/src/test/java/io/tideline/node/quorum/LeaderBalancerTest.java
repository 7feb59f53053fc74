package io.tideline.node.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.node.metadata.ImageReplayer;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.testutil.LogCapture;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
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
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Automatic preferred-leader balancing on the active controller, on a mock clock (docs/behaviours.md B63). */
class LeaderBalancerTest {
    private static final long INTERVAL_MS = 300_000;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final List<ControllerCommand> submitted = new ArrayList<>();
    private final AtomicBoolean leader = new AtomicBoolean(true);
    private final AtomicReference<MetadataImage> image = new AtomicReference<>(MetadataImage.EMPTY);
    /** The answer of the last submitted command, completed by the test. */
    private CompletableFuture<ControllerResponse> pending;

    private LeaderBalancer balancer(boolean enabled, int percentage) {
        LeaderBalancer b = new LeaderBalancer(new LeaderBalancer.Settings(enabled, percentage, INTERVAL_MS), time,
                scheduler, image::get, leader::get, c -> {
            submitted.add(c);
            pending = new CompletableFuture<>();
            return pending;
        });
        b.start();
        return b;
    }

    @Test
    void electsThePreferredLeadersOfABrokerAboveTheThresholdOnceTheIntervalPassed() {
        // Broker 1 prefers 4 partitions and leads 2 of them: 50 % > 10 %.
        image.set(image(brokers(1, 2, 3), List.of(
                p(0, List.of(1, 2, 3), List.of(1, 2, 3), 2),
                p(1, List.of(1, 2, 3), List.of(1, 2, 3), 3),
                p(2, List.of(1, 2, 3), List.of(1, 2, 3), 1),
                p(3, List.of(1, 2, 3), List.of(1, 2, 3), 1),
                p(4, List.of(2, 3, 1), List.of(1, 2, 3), 2))));
        try (LogCapture logs = new LogCapture(); LeaderBalancer b = balancer(true, 10)) {
            time.advance(INTERVAL_MS - 1);
            assertEquals(List.of(), submitted, "nothing before the first interval");
            time.advance(1);
            assertEquals(1, submitted.size());
            assertEquals(List.of("t-0", "t-1"), names(submitted.get(0)));
            assertEquals(0, submitted.get(0).getElectLeaders().getElectionType(), "a preferred election");
            assertEquals(time.milliseconds(), submitted.get(0).getTimestampMs());
            pending.complete(elected("t-0", "t-1"));
            List<String> lines = logs.messagesOf(LeaderBalancer.class);
            assertEquals(1, lines.size(), lines.toString());
            assertTrue(lines.get(0).contains("2 partitions (t-0, t-1)"), lines.get(0));
        }
        assertTrue(scheduler.failures().isEmpty(), scheduler.failures().toString());
    }

    @Test
    void leavesABrokerAtOrBelowTheThresholdAlone() {
        // Broker 1 prefers 10 partitions and lacks the leadership of one: 10 %, not above 10 %.
        List<PartitionRecord> parts = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            parts.add(p(i, List.of(1, 2), List.of(1, 2), i == 0 ? 2 : 1));
        }
        image.set(image(brokers(1, 2), parts));
        try (LeaderBalancer b = balancer(true, 10)) {
            time.advance(INTERVAL_MS * 3);
            assertEquals(List.of(), submitted);
            // A second one lost: 20 %, and both go back.
            parts.set(1, p(1, List.of(1, 2), List.of(1, 2), 2));
            image.set(image(brokers(1, 2), parts));
            time.advance(INTERVAL_MS);
            assertEquals(List.of("t-0", "t-1"), names(submitted.get(0)));
        }
    }

    @Test
    void doesNothingWhenDisabled() {
        image.set(image(brokers(1, 2), List.of(p(0, List.of(1, 2), List.of(1, 2), 2))));
        try (LeaderBalancer b = balancer(false, 10)) {
            time.advance(INTERVAL_MS * 5);
            assertNull(b.runRound());
            assertEquals(List.of(), submitted);
        }
    }

    @Test
    void skipsAPreferredReplicaOutsideTheIsrOrFenced() {
        BrokerRegistrationRecord fenced3 = BrokerRegistrationRecord.newBuilder().setBrokerId(3).setBrokerEpoch(3)
                .setFenced(true).build();
        List<BrokerRegistrationRecord> brokers = new ArrayList<>(brokers(1, 2));
        brokers.add(fenced3);
        image.set(image(brokers, List.of(
                p(0, List.of(1, 2), List.of(2), 2),        // preferred 1 not in the ISR: skipped
                p(1, List.of(1, 2), List.of(1, 2), 2),     // preferred 1 in the ISR: elected
                p(2, List.of(3, 2), List.of(3, 2), 2))));  // preferred 3 fenced: skipped
        try (LeaderBalancer b = balancer(true, 10)) {
            time.advance(INTERVAL_MS);
            assertEquals(List.of("t-1"), names(submitted.get(0)));
        }
    }

    @Test
    void onlyTheReadyLeaderBalancesAndARoundInFlightIsNotOverlapped() {
        image.set(image(brokers(1, 2), List.of(p(0, List.of(1, 2), List.of(1, 2), 2))));
        try (LeaderBalancer b = balancer(true, 10)) {
            leader.set(false);
            time.advance(INTERVAL_MS);
            assertEquals(List.of(), submitted);
            leader.set(true);
            time.advance(INTERVAL_MS);
            assertEquals(1, submitted.size());
            time.advance(INTERVAL_MS);
            assertEquals(1, submitted.size(), "the first round has not been answered");
            pending.complete(ControllerResponse.newBuilder().setErrorCode(Errors.NOT_CONTROLLER.code()).build());
            time.advance(INTERVAL_MS);
            assertEquals(2, submitted.size());
        }
    }

    // ------------------------------------------------------------------ images

    private static List<String> names(ControllerCommand c) {
        return c.getElectLeaders().getPartitionsList().stream()
                .map(r -> r.getTopic() + "-" + r.getPartition()).toList();
    }

    private static ControllerResponse elected(String... names) {
        ControllerResponse.Builder b = ControllerResponse.newBuilder();
        for (String n : names) {
            b.addResults(ItemResult.newBuilder().setName(n).setErrorCode(Errors.NONE.code()));
        }
        return b.build();
    }

    private static List<BrokerRegistrationRecord> brokers(int... ids) {
        List<BrokerRegistrationRecord> out = new ArrayList<>();
        for (int id : ids) {
            out.add(BrokerRegistrationRecord.newBuilder().setBrokerId(id).setBrokerEpoch(id).build());
        }
        return out;
    }

    private static PartitionRecord p(int partition, List<Integer> replicas, List<Integer> isr, int leader) {
        return PartitionRecord.newBuilder().setTopicId("tid").setPartition(partition).addAllReplicas(replicas)
                .addAllIsr(isr).setLeader(leader).setLeaderEpoch(1).setPartitionEpoch(1).build();
    }

    private static MetadataImage image(List<BrokerRegistrationRecord> brokers, List<PartitionRecord> partitions) {
        List<MetadataRecord> records = new ArrayList<>();
        brokers.forEach(b -> records.add(MetadataRecord.newBuilder().setBrokerRegistration(b).build()));
        records.add(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName("t").setTopicId("tid")).build());
        partitions.forEach(p -> records.add(MetadataRecord.newBuilder().setPartition(p).build()));
        return ImageReplayer.replay(MetadataImage.EMPTY, records, 10, 1);
    }
}
