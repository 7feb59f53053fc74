package io.tideline.node.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.node.broker.BrokerMetadataPublisher;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.replica.PartitionSettingsResolver;
import io.tideline.node.replica.QuorumFailedReplicaReporter;
import io.tideline.node.replica.QuorumIsrChannel;
import io.tideline.node.replica.ReplicaMetadataHandler;
import io.tideline.proto.metadata.ChangeReason;
import io.tideline.proto.metadata.ConfigEntry;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.CreatableTopic;
import io.tideline.proto.metadata.PartitionChangeRecord;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.fetcher.LeaderEndpoint;
import io.tideline.replication.follower.ReplicaStatus;
import io.tideline.replication.metrics.ReplicationMetrics;
import io.tideline.replication.rpc.GrpcLeaderEndpoint;
import io.tideline.replication.rpc.ReplicaFetchGrpcService;
import io.tideline.replication.server.ProduceResult;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.log.Log;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.testsupport.link.RequestLink;
import io.tideline.testsupport.link.RequestLinks;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replication with the real metadata quorum: three brokers (each also a voter) replicate over in-process
 * gRPC; every ISR change goes through AlterPartition to the Ratis quorum and comes back to the replicas
 * as a metadata delta, as in a node. The replication time rules run on the brokers' own mock clock.
 */
class ReplicationOverQuorumTest {
    private static final String TOPIC = "orders";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final long LAG_MS = 10_000L;

    @TempDir
    Path dir;

    private QuorumTestCluster quorum;
    private final MockTime brokerTime = new MockTime();
    private final MockScheduler brokerScheduler = new MockScheduler(brokerTime);
    private final Map<Integer, Broker> brokers = new HashMap<>();
    private final String tag = UUID.randomUUID().toString();
    /** The brokers' fetch links, {@code follower->leader}; a cut loses the fetch in flight, as a partition does. */
    private final RequestLinks links = new RequestLinks();

    /** One broker: store, replica manager, replica fetch server, fed by its voter's metadata image. */
    private final class Broker implements AutoCloseable {
        final int id;
        final LogManager logManager;
        final ReplicaManager replicaManager;
        final MetricRegistry metrics = new MetricRegistry();
        final Server server;
        final Map<Integer, ManagedChannel> channels = new ConcurrentHashMap<>();
        final Map<Integer, GrpcLeaderEndpoint> endpoints = new ConcurrentHashMap<>();
        final ExecutorService publisherThread = Executors.newSingleThreadExecutor();
        final BrokerMetadataPublisher publisher;

        Broker(int id, long brokerEpoch, ControllerClient client) throws IOException {
            this.id = id;
            Map<String, Object> store = new HashMap<>();
            store.put("log.dirs", dir.resolve("broker-" + id).toString());
            store.put("log.flush.offset.checkpoint.interval.ms", 0);
            store.put("log.flush.start.offset.checkpoint.interval.ms", 0);
            store.put("log.retention.check.interval.ms", Long.MAX_VALUE / 4);
            logManager = new LogManager(StoreConfig.fromMap(store), QuorumTestCluster.CLUSTER_ID, id, brokerTime,
                    brokerScheduler, metrics, new Random(id));
            logManager.startup();
            ReplicationConfig config = ReplicationConfig.fromMap(Map.of("replica.lag.time.max.ms", LAG_MS,
                    "replica.fetch.backoff.ms", 20, "replica.fetch.wait.max.ms", 200));
            replicaManager = new ReplicaManager(id, config, logManager, brokerTime, brokerScheduler,
                    new QuorumIsrChannel(client, id, () -> brokerEpoch),
                    new QuorumFailedReplicaReporter(client, id, () -> brokerEpoch, this::topicId),
                    this::endpoint, metrics);
            replicaManager.startup();
            server = InProcessServerBuilder.forName(serverName(id)).directExecutor()
                    .addService(new ReplicaFetchGrpcService(replicaManager)).build().start();
            publisher = new BrokerMetadataPublisher(id, new ReplicaMetadataHandler(id, replicaManager, logManager,
                    new PartitionSettingsResolver(config)));
            QuorumServer voter = quorum.voter(id);
            voter.stateMachine().addListener((previous, current, records) -> publishLatest());
            publishLatest();
        }

        private void publishLatest() {
            if (publisherThread.isShutdown()) {
                return; // teardown: the voter applies its last entries after this broker stopped
            }
            try {
                publisherThread.execute(() -> publisher.publish(quorum.voter(id).image()));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // shut down between the check and the call: same as above
            }
        }

        private Optional<String> topicId(String topic) {
            return publisher.lastPublished().topic(topic).map(t -> t.id());
        }

        private Optional<LeaderEndpoint> endpoint(int leaderId) {
            ManagedChannel channel = channels.computeIfAbsent(leaderId,
                    l -> InProcessChannelBuilder.forName(serverName(l)).directExecutor().build());
            // One endpoint per leader, as the node keeps it: each holds its fetch stream.
            GrpcLeaderEndpoint grpc = endpoints.computeIfAbsent(leaderId, l -> new GrpcLeaderEndpoint(channel, 1L));
            RequestLink link = linkTo(leaderId);
            return Optional.of((replicaId, partitions, minBytes, maxBytes, maxWaitMs) ->
                    link.send(() -> grpc.fetch(replicaId, partitions, minBytes, maxBytes, maxWaitMs)));
        }

        RequestLink linkTo(int leaderId) {
            return links.link(id, leaderId);
        }

        Log log() {
            return replicaManager.log(TP).orElseThrow();
        }

        @Override
        public void close() throws IOException {
            publisherThread.shutdownNow();
            replicaManager.close();
            server.shutdownNow();
            channels.values().forEach(ManagedChannel::shutdownNow);
            logManager.close();
        }
    }

    private String serverName(int id) {
        return "quorum-replication-" + tag + "-" + id;
    }

    private ControllerClient startClusterWithTopic(Map<String, String> topicConfigs) throws Exception {
        quorum = QuorumTestCluster.start(dir.resolve("quorum"), 3);
        ControllerClient client = quorum.client();
        Map<Integer, Long> epochs = quorum.registerAndUnfence(client, 1, 2, 3);
        for (int id = 1; id <= 3; id++) {
            brokers.put(id, new Broker(id, epochs.get(id), client));
        }
        CreatableTopic.Builder topic = CreatableTopic.newBuilder().setName(TOPIC).setNumPartitions(1)
                .setReplicationFactor(3);
        topicConfigs.forEach((k, v) -> topic.addConfigs(ConfigEntry.newBuilder().setKey(k).setValue(v)));
        ControllerResponse created = client.createTopics(List.of(topic.build()), false).get();
        assertEquals(Errors.NONE.code(), created.getResults(0).getErrorCode(), created.toString());
        quorum.awaitTrue("every broker hosts the partition and the leader leads it", () ->
                brokers.values().stream().allMatch(b -> b.replicaManager.partition(TP).isPresent())
                        && brokers.get(partition().getLeader()).replicaManager.partition(TP).get().isLeader());
        return client;
    }

    @AfterEach
    void tearDown() throws IOException {
        for (Broker b : brokers.values()) {
            b.close();
        }
        if (quorum != null) {
            quorum.closeAndAssertNoFaults();
        }
        assertTrue(brokerScheduler.failures().isEmpty(), () -> "scheduled tasks failed: " + brokerScheduler.failures());
    }

    private PartitionRecord partition() {
        MetadataImage image = quorum.awaitLeader().image();
        return image.partition(TOPIC, 0).orElseThrow();
    }

    private Broker leader() {
        return brokers.get(partition().getLeader());
    }

    private Broker aFollower() {
        int leader = partition().getLeader();
        return brokers.values().stream().filter(b -> b.id != leader).findFirst().orElseThrow();
    }

    private void produce(int count, int acks) throws Exception {
        Broker leader = leader();
        for (int i = 0; i < count; i++) {
            MemoryRecords records = MemoryRecords.of(new RecordBatchBuilder(0L)
                    .append(brokerTime.milliseconds(), "k" + i, "value-" + i + "-" + "x".repeat(100)).build());
            ProduceResult r = leader.replicaManager.appendRecords(Map.of(TP, records), acks, 30_000).get(30, TimeUnit.SECONDS)
                    .get(TP);
            assertEquals(Errors.NONE, r.error(), r.message());
        }
    }

    private List<ChangeReason> isrChangeReasons() {
        List<ChangeReason> reasons = new ArrayList<>();
        MetadataImage image = quorum.awaitLeader().image();
        String topicId = image.topic(TOPIC).orElseThrow().id();
        for (PartitionChangeRecord change : image.recentChanges(topicId, 0)) {
            reasons.add(change.getReason());
        }
        return reasons;
    }

    @SuppressWarnings("unchecked")
    private static <T> T gauge(Broker b, String name) {
        return ((Gauge<T>) b.metrics.getGauges().get(name)).getValue();
    }

    @Test
    void laggingFollowerLeavesTheIsrThroughTheQuorumAndReturnsOnceCaughtUp() throws Exception {
        startClusterWithTopic(Map.of("min.insync.replicas", "2"));
        produce(5, -1);
        Broker leader = leader();
        Broker follower = aFollower();
        quorum.awaitTrue("all replicas at the high watermark", () -> brokers.values().stream()
                .allMatch(b -> b.log().highWatermark() == 5));

        follower.linkTo(leader.id).cut();
        produce(3, 1);
        brokerTime.advance(LAG_MS - 1);
        leader.replicaManager.maybeShrinkIsr();
        assertTrue(partition().getIsrList().contains(follower.id), "still within replica.lag.time.max.ms");

        brokerTime.advance(2);
        leader.replicaManager.maybeShrinkIsr();
        quorum.awaitTrue("follower shrunk out of the committed ISR", () -> !partition().getIsrList().contains(follower.id));
        assertTrue(isrChangeReasons().contains(ChangeReason.LAGGING), isrChangeReasons().toString());
        quorum.awaitTrue("the leader applied the committed ISR", () -> leader.replicaManager.partition(TP).get().isr().size() == 2);
        assertEquals(1, (int) gauge(leader, ReplicationMetrics.UNDER_REPLICATED_PARTITIONS));

        links.healAll();
        quorum.awaitTrue("follower back in the ISR", () -> partition().getIsrList().contains(follower.id));
        assertTrue(isrChangeReasons().contains(ChangeReason.CAUGHT_UP), isrChangeReasons().toString());
        quorum.awaitTrue("leader no longer under-replicated",
                () -> (int) gauge(leader, ReplicationMetrics.UNDER_REPLICATED_PARTITIONS) == 0);
        assertEquals(8, follower.log().logEndOffset());
        assertEquals(1L, leader.replicaManager.stats().isrShrinks().getCount());
        assertEquals(1L, leader.replicaManager.stats().isrExpands().getCount());
    }

    /**
     * The same partition semantics as ReplicationTestCluster's links (docs/testing.md, "Shared test support"): the
     * fetch parked at the leader when the link is cut is lost, with the records the leader answers it with.
     */
    @Test
    void aFetchInFlightWhenTheLinkIsCutIsLostWithTheRecordsItWouldHaveCarried() throws Exception {
        startClusterWithTopic(Map.of());
        produce(3, -1);
        Broker leader = leader();
        Broker follower = aFollower();
        quorum.awaitTrue("all replicas at the high watermark", () -> brokers.values().stream()
                .allMatch(b -> b.log().highWatermark() == 3));
        RequestLink link = follower.linkTo(leader.id);
        // Nothing left to fetch: the follower's fetch waits at the leader for news, on the brokers' mock clock,
        // which stands still, so it stays in flight until the cut.
        quorum.awaitTrue("the follower's fetch parked at the leader", () -> link.inFlight() == 1);

        link.cut();
        assertEquals(1, link.lostInFlight());
        produce(2, 1);
        Broker other = brokers.values().stream().filter(b -> b != leader && b != follower).findFirst().orElseThrow();
        quorum.awaitTrue("the other follower got the records", () -> other.log().logEndOffset() == 5);
        // A fetcher has one fetch in flight: a refusal after the appends means the lost fetch is behind it.
        long refusedAfterAppends = link.refused();
        quorum.awaitTrue("the follower fetched again", () -> link.refused() > refusedAfterAppends);
        assertEquals(3, follower.log().logEndOffset(), "no record crossed the cut link");

        link.heal();
        quorum.awaitTrue("the follower caught up after the heal", () -> follower.log().logEndOffset() == 5);
    }

    @Test
    void followerCutOffPastRetentionHaltsAndIsReportedToTheControllerUntilRebuilt() throws Exception {
        startClusterWithTopic(Map.of("segment.bytes", "1024", "retention.ms", "60000", "file.delete.delay.ms", "1000"));
        produce(5, -1);
        Broker leader = leader();
        Broker follower = aFollower();
        quorum.awaitTrue("all replicas at the high watermark", () -> brokers.values().stream()
                .allMatch(b -> b.log().highWatermark() == 5));

        follower.linkTo(leader.id).cut();
        // The cut loses the fetch in flight too, so the follower's log end is final from here.
        long followerEnd = follower.log().logEndOffset();
        produce(60, 1);
        brokerTime.advance(LAG_MS + 1);
        leader.replicaManager.maybeShrinkIsr();
        quorum.awaitTrue("follower shrunk out of the ISR", () -> !partition().getIsrList().contains(follower.id));
        quorum.awaitTrue("the third replica has everything", () -> brokers.values().stream()
                .filter(b -> b != follower).allMatch(b -> b.log().highWatermark() == 65));
        brokerTime.advance(60_001);
        produce(1, 1);
        leader.log().deleteOldSegments();
        assertEquals(followerEnd, follower.log().logEndOffset(), "nothing crossed the cut link");
        assertTrue(leader.log().logStartOffset() > followerEnd, "retention passed the follower's position");

        links.healAll();
        quorum.awaitTrue("follower FAILED", () -> follower.replicaManager.followerStatus(TP)
                .map(s -> s.status() == ReplicaStatus.FAILED).orElse(false));
        quorum.awaitTrue("the controller records the failed replica", () -> quorum.awaitLeader().image()
                .failedReplicas().values().stream().anyMatch(f -> f.getBrokerId() == follower.id && !f.getCleared()));
        assertEquals(followerEnd, follower.log().logEndOffset(), "halt keeps the follower's data");
        assertFalse(partition().getIsrList().contains(follower.id));
        assertEquals(1, (int) gauge(follower, ReplicationMetrics.FETCHER_FAILED_PARTITIONS));
        assertTrue((long) gauge(leader, ReplicationMetrics.partitionMetric("OffsetOutOfRangeCount", TP)) >= 1);

        assertEquals(Errors.NONE, follower.replicaManager.requestRebuild(TP));
        quorum.awaitTrue("rebuilt follower back in the ISR", () -> partition().getIsrList().contains(follower.id));
        quorum.awaitTrue("the failure is cleared at the controller", () -> quorum.awaitLeader().image()
                .failedReplicas().values().stream().noneMatch(f -> f.getBrokerId() == follower.id && !f.getCleared()));
        assertEquals(leader.log().logStartOffset(), follower.log().logStartOffset());
        assertEquals(leader.log().logEndOffset(), follower.log().logEndOffset());
    }
}
