package io.tideline.node.api;

import static io.tideline.node.api.ApiTestSupport.batch;
import static io.tideline.node.api.ApiTestSupport.bytes;
import static io.tideline.node.api.ApiTestSupport.fingerprint;
import static io.tideline.node.api.ApiTestSupport.log;
import static io.tideline.node.api.ApiTestSupport.newTopic;
import static io.tideline.node.api.ApiTestSupport.partitionMetadata;
import static io.tideline.node.api.ApiTestSupport.producePartition;
import static io.tideline.node.api.ApiTestSupport.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.proto.admin.DeleteRecordsPartition;
import io.tideline.proto.admin.DeleteRecordsRequest;
import io.tideline.proto.admin.DeleteRecordsResponse;
import io.tideline.proto.client.BrokerMetadata;
import io.tideline.proto.client.FetchPartition;
import io.tideline.proto.client.FetchPartitionResponse;
import io.tideline.proto.client.FetchRequest;
import io.tideline.proto.client.ListOffsetsPartition;
import io.tideline.proto.client.ListOffsetsPartitionResponse;
import io.tideline.proto.client.ListOffsetsRequest;
import io.tideline.proto.client.MetadataRequest;
import io.tideline.proto.client.MetadataResponse;
import io.tideline.proto.client.PartitionMetadata;
import io.tideline.proto.client.ProducePartitionResponse;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.proto.client.TopicMetadata;
import io.tideline.store.log.Log;
import io.tideline.store.record.MemoryRecords;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client API's behaviour on three nodes: leader hints, the high watermark as the consumers' limit, both
 * bounds with OFFSET_OUT_OF_RANGE, ListOffsets after DeleteRecords and after retention, Metadata with an
 * offline replica, and the long-poll fetch. One cluster for the class; each test has its own topic, and the
 * test that stops a node runs last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClientApiBehaviourTest {
    private static final int MIB = 1024 * 1024;
    private static final String ROUTING = "routing";
    private static final String UNCOMMITTED = "uncommitted";
    private static final String TRIMMED = "trimmed";
    private static final String AGING = "aging";
    private static final String TIMES = "times";
    private static final String POLL = "poll";
    private static final String META = "meta";
    /** retention.ms of AGING; its records are written an hour old. */
    private static final long RETENTION_MS = 60_000;

    @TempDir
    static Path dir;
    private static NodeTestCluster cluster;
    private static ExecutorService async;

    @BeforeAll
    static void startClusterAndCreateTopics() throws Exception {
        // A follower that stops fetching stays in the ISR this long: the window in which the leader holds
        // records above its high watermark.
        cluster = new NodeTestCluster(dir, 3, Map.of("replica.lag.time.max.ms", 60_000)).startAll();
        async = Executors.newSingleThreadExecutor();
        ApiTestSupport.createTopics(cluster, 1,
                newTopic(ROUTING, 1, 3, Map.of()),
                newTopic(UNCOMMITTED, 1, 3, Map.of()),
                newTopic(TRIMMED, 1, 3, Map.of()),
                // Small segments so that each batch or two closes one; retention then has closed segments to take.
                newTopic(AGING, 1, 3, Map.of("segment.bytes", "200", "retention.ms", "" + RETENTION_MS)),
                newTopic(TIMES, 1, 3, Map.of()),
                newTopic(POLL, 1, 3, Map.of()),
                newTopic(META, 2, 3, Map.of()));
    }

    @AfterAll
    static void stop() {
        if (async != null) {
            async.shutdownNow();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void followerAnswersNotLeaderOrFollowerNamingTheCurrentLeader() {
        PartitionMetadata m = partitionMetadata(cluster, 1, ROUTING, 0);
        int leader = m.getLeaderId();
        int follower = follower(m, 0);
        Map<String, String> before = fingerprint(cluster.node(follower));

        ProducePartitionResponse produced = cluster.client(follower).produce(ProduceRequest.newBuilder().setAcks(-1)
                .setTimeoutMs(5000).addPartitions(producePartition(ROUTING, 0, bytes(batch(1_000, "x")))).build())
                .getPartitions(0);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), produced.getErrorCode(), produced.toString());
        assertEquals(leader, produced.getCurrentLeader().getLeaderId(), produced.toString());
        assertEquals(m.getLeaderEpoch(), produced.getCurrentLeader().getLeaderEpoch(), produced.toString());

        FetchPartitionResponse fetched = fetch(follower, ROUTING, 0, 0L, 0, 0);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), fetched.getErrorCode(), fetched.toString());
        assertEquals(leader, fetched.getCurrentLeader().getLeaderId(), fetched.toString());

        ListOffsetsPartitionResponse listed = listOffsets(follower, ROUTING, -1L);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), listed.getErrorCode(), listed.toString());
        assertEquals(leader, listed.getCurrentLeader().getLeaderId(), listed.toString());

        DeleteRecordsResponse deleted = deleteRecords(follower, ROUTING, -1L);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), deleted.getPartitions(0).getErrorCode(), deleted.toString());

        assertEquals(before, fingerprint(cluster.node(follower)), "a refused request changed the follower's log");
        assertEquals(0, log(cluster.node(leader), ROUTING, 0).logEndOffset(), "the leader got the follower's produce");
    }

    @Test
    @Order(2)
    void fetchReturnsOnlyRecordsBelowTheHighWatermark() {
        PartitionMetadata m = partitionMetadata(cluster, 1, UNCOMMITTED, 0);
        int leader = m.getLeaderId();
        produceOk(leader, UNCOMMITTED, -1, batch(1_000, "c0", "c1"));
        // Both followers stop fetching but stay in the ISR (replica.lag.time.max.ms is a minute), so the high
        // watermark stays where their last fetch put it while the leader appends on.
        TopicPartition tp = new TopicPartition(UNCOMMITTED, 0);
        for (int follower : List.of(follower(m, 0), follower(m, 1))) {
            cluster.node(follower).replicaManager().fetcherManager().stopFollowing(tp);
        }
        Log leaderLog = log(cluster.node(leader), UNCOMMITTED, 0);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> leaderLog.highWatermark() == 2);
        produceOk(leader, UNCOMMITTED, 1, batch(2_000, "u2", "u3"));
        assertEquals(4, leaderLog.logEndOffset());
        assertEquals(2, leaderLog.highWatermark());

        FetchPartitionResponse fromStart = fetch(leader, UNCOMMITTED, 0, 0L, 0, 0);
        assertEquals(Errors.NONE.code(), fromStart.getErrorCode(), fromStart.toString());
        assertEquals(2, fromStart.getHighWatermark());
        assertEquals(List.of("c0", "c1"), values(fromStart.getRecords()));

        // At the high watermark, and at the log end: nothing committed to read, but no error either.
        for (long offset : new long[] {2, 4}) {
            FetchPartitionResponse atHw = fetch(leader, UNCOMMITTED, 0, offset, 0, 0);
            assertEquals(Errors.NONE.code(), atHw.getErrorCode(), atHw.toString());
            assertTrue(atHw.getRecords().isEmpty(), atHw.toString());
        }
        assertEquals(2, listOffsets(leader, UNCOMMITTED, -1L).getOffset());
    }

    @Test
    @Order(3)
    void afterDeleteRecordsAFetchBelowTheStartIsOutOfRangeWithBothBoundsAndEarliestIsTheNewStart() {
        int leader = partitionMetadata(cluster, 1, TRIMMED, 0).getLeaderId();
        produceOk(leader, TRIMMED, -1, batch(1_000, "t0", "t1", "t2", "t3", "t4"));
        DeleteRecordsResponse deleted = deleteRecords(leader, TRIMMED, 3L);
        assertEquals(Errors.NONE.code(), deleted.getPartitions(0).getErrorCode(), deleted.toString());
        assertEquals(3, deleted.getPartitions(0).getLowWatermark());

        FetchPartitionResponse below = fetch(leader, TRIMMED, 0, 1L, 0, 0);
        assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), below.getErrorCode(), below.toString());
        assertEquals(3, below.getLogStartOffset(), below.toString());
        assertEquals(5, below.getHighWatermark(), below.toString());
        assertTrue(below.getRecords().isEmpty());

        assertEquals(3, listOffsets(leader, TRIMMED, -2L).getOffset());
        assertEquals(5, listOffsets(leader, TRIMMED, -1L).getOffset());
        FetchPartitionResponse atStart = fetch(leader, TRIMMED, 0, 3L, 0, 0);
        assertEquals(Errors.NONE.code(), atStart.getErrorCode(), atStart.toString());
        // Whole batches travel: the batch holding offset 3 starts at 0, the consumer skips below 3 itself.
        assertTrue(values(atStart.getRecords()).containsAll(List.of("t3", "t4")), atStart.toString());
    }

    @Test
    @Order(4)
    void afterRetentionEarliestIsTheLogStartOffsetAndOlderOffsetsAreOutOfRange() {
        int leader = partitionMetadata(cluster, 1, AGING, 0).getLeaderId();
        long anHourAgo = System.currentTimeMillis() - 3_600_000L;
        for (int i = 0; i < 5; i++) {
            produceOk(leader, AGING, -1, batch(anHourAgo + i, "old" + i));
        }
        Log leaderLog = log(cluster.node(leader), AGING, 0);
        assertTrue(leaderLog.numberOfSegments() >= 3, "segment.bytes=200 should have rolled: " + leaderLog);
        assertEquals(0, listOffsets(leader, AGING, -2L).getOffset());

        int deleted = cluster.node(leader).logManager().cleanupLogs();
        assertTrue(deleted > 0, "retention deleted nothing");
        long start = leaderLog.logStartOffset();
        // Only the active segment is left, and it starts past the first records.
        assertTrue(start > 0 && start == leaderLog.activeSegment().baseOffset(), leaderLog.toString());

        ListOffsetsPartitionResponse earliest = listOffsets(leader, AGING, -2L);
        assertEquals(Errors.NONE.code(), earliest.getErrorCode(), earliest.toString());
        assertEquals(start, earliest.getOffset());
        assertEquals(5, listOffsets(leader, AGING, -1L).getOffset());
        FetchPartitionResponse old = fetch(leader, AGING, 0, 0L, 0, 0);
        assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), old.getErrorCode(), old.toString());
        assertEquals(start, old.getLogStartOffset());
        assertEquals(5, old.getHighWatermark());
    }

    @Test
    @Order(5)
    void listOffsetsByTimestampFindsTheFirstRecordAtOrAfterIt() {
        int leader = partitionMetadata(cluster, 1, TIMES, 0).getLeaderId();
        long base = System.currentTimeMillis() - 600_000L;
        // Three batches: offsets 0-1 at base and base+1, 2 at base+2000, 3-4 at base+3000 and base+3001.
        produceOk(leader, TIMES, -1, batch(base, "a", "b"));
        produceOk(leader, TIMES, -1, batch(base + 2_000, "c"));
        produceOk(leader, TIMES, -1, batch(base + 3_000, "d", "e"));

        assertOffsetForTime(leader, base - 1, 0, base);
        assertOffsetForTime(leader, base, 0, base);
        assertOffsetForTime(leader, base + 1, 1, base + 1);
        assertOffsetForTime(leader, base + 2, 2, base + 2_000);
        assertOffsetForTime(leader, base + 2_500, 3, base + 3_000);
        assertOffsetForTime(leader, base + 3_001, 4, base + 3_001);
        ListOffsetsPartitionResponse after = listOffsets(leader, TIMES, base + 3_002);
        assertEquals(Errors.NONE.code(), after.getErrorCode(), after.toString());
        assertEquals(-1, after.getOffset(), "no record is that recent: " + after);
    }

    private static void assertOffsetForTime(int leader, long timestamp, long offset, long recordTimestamp) {
        ListOffsetsPartitionResponse r = listOffsets(leader, TIMES, timestamp);
        assertEquals(Errors.NONE.code(), r.getErrorCode(), r.toString());
        assertEquals(offset, r.getOffset(), "offset for time " + timestamp + ": " + r);
        assertEquals(recordTimestamp, r.getTimestamp(), r.toString());
    }

    @Test
    @Order(6)
    void longPollFetchReturnsAsSoonAsARecordArrives() {
        int leader = partitionMetadata(cluster, 1, POLL, 0).getLeaderId();
        int maxWaitMs = 5_000;
        long started = System.nanoTime();
        CompletableFuture<FetchPartitionResponse> polling = CompletableFuture.supplyAsync(
                () -> fetch(leader, POLL, 0, 0L, 1, maxWaitMs), async);
        // Parked: nothing to read yet.
        Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !polling.isDone());

        produceOk(leader, POLL, -1, batch(1_000, "wake"));
        Awaitility.await().atMost(Duration.ofSeconds(3)).until(polling::isDone);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        FetchPartitionResponse r = polling.join();
        assertEquals(Errors.NONE.code(), r.getErrorCode(), r.toString());
        assertEquals(List.of("wake"), values(r.getRecords()));
        assertTrue(elapsedMs < maxWaitMs - 1_000, "the fetch waited " + elapsedMs + " ms, as if nothing had arrived");
    }

    @Test
    @Order(7)
    void metadataListsBrokersAndPartitionsAndTheOfflineReplicaOfAStoppedNode() {
        MetadataResponse all = cluster.client(1).metadata(MetadataRequest.getDefaultInstance());
        assertEquals(List.of(1, 2, 3), all.getBrokersList().stream().map(BrokerMetadata::getId).sorted().toList());
        for (BrokerMetadata b : all.getBrokersList()) {
            assertEquals("127.0.0.1", b.getHost());
            assertEquals(cluster.clientPort(b.getId()), b.getPort());
            assertFalse(b.getFenced(), b.toString());
        }
        assertTrue(all.getControllerId() >= 1 && all.getControllerId() <= 3, all.toString());
        assertFalse(all.getClusterId().isEmpty());
        assertTrue(all.getTopicsList().stream().map(TopicMetadata::getName).toList()
                .containsAll(List.of(ROUTING, UNCOMMITTED, TRIMMED, AGING, TIMES, POLL, META)), all.toString());

        MetadataResponse asked = cluster.client(2).metadata(MetadataRequest.newBuilder().addTopics(META)
                .addTopics("no-such-topic").build());
        TopicMetadata meta = asked.getTopics(0);
        assertEquals(Errors.NONE.code(), meta.getErrorCode());
        assertFalse(meta.getTopicId().isEmpty());
        assertEquals(2, meta.getPartitionsCount());
        for (PartitionMetadata p : meta.getPartitionsList()) {
            assertEquals(Errors.NONE.code(), p.getErrorCode(), p.toString());
            assertEquals(List.of(1, 2, 3), p.getReplicasList().stream().sorted().toList());
            assertEquals(List.of(1, 2, 3), p.getIsrList().stream().sorted().toList());
            assertTrue(p.getReplicasList().contains(p.getLeaderId()), p.toString());
            assertTrue(p.getLeaderEpoch() >= 0, p.toString());
            assertEquals(0, p.getOfflineReplicasCount(), p.toString());
        }
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), asked.getTopics(1).getErrorCode());

        // Stop a node that is neither the controller nor the one asked.
        int asking = 1;
        int stopped = IntStream.rangeClosed(1, 3).filter(id -> id != asking && id != all.getControllerId())
                .findFirst().orElseThrow();
        cluster.stop(stopped);
        Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            MetadataResponse now = cluster.client(asking).metadata(MetadataRequest.newBuilder().addTopics(META).build());
            BrokerMetadata gone = now.getBrokersList().stream().filter(b -> b.getId() == stopped).findFirst()
                    .orElseThrow();
            assertTrue(gone.getFenced(), now.toString());
            for (PartitionMetadata p : now.getTopics(0).getPartitionsList()) {
                assertEquals(List.of(stopped), p.getOfflineReplicasList(), now.toString());
                assertFalse(p.getIsrList().contains(stopped), now.toString());
                assertTrue(p.getLeaderId() != stopped && p.getLeaderId() > 0, now.toString());
                assertEquals(3, p.getReplicasCount(), "replicas stay assigned: " + now);
            }
        });
    }

    // ---------------------------------------------------------------- helpers

    /** The {@code index}-th replica of {@code m} that is not its leader. */
    private static int follower(PartitionMetadata m, int index) {
        return m.getReplicasList().stream().filter(r -> r != m.getLeaderId()).toList().get(index);
    }

    private static void produceOk(int node, String topic, int acks, MemoryRecords records) {
        ProducePartitionResponse r = cluster.client(node).produce(ProduceRequest.newBuilder().setAcks(acks)
                .setTimeoutMs(10_000).addPartitions(producePartition(topic, 0, bytes(records))).build()).getPartitions(0);
        assertEquals(Errors.NONE.code(), r.getErrorCode(), r.toString());
    }

    private static FetchPartitionResponse fetch(int node, String topic, int partition, long offset, int minBytes,
                                                int maxWaitMs) {
        return cluster.client(node).fetch(FetchRequest.newBuilder().setMaxBytes(MIB).setMinBytes(minBytes)
                .setMaxWaitMs(maxWaitMs).addPartitions(FetchPartition.newBuilder().setTopic(topic).setPartition(partition)
                        .setFetchOffset(offset).setPartitionMaxBytes(MIB).setCurrentLeaderEpoch(-1)).build())
                .getPartitions(0);
    }

    private static ListOffsetsPartitionResponse listOffsets(int node, String topic, long timestamp) {
        return cluster.client(node).listOffsets(ListOffsetsRequest.newBuilder().addPartitions(ListOffsetsPartition
                .newBuilder().setTopic(topic).setPartition(0).setTimestamp(timestamp)).build()).getPartitions(0);
    }

    private static DeleteRecordsResponse deleteRecords(int node, String topic, long offset) {
        return cluster.admin(node).deleteRecords(DeleteRecordsRequest.newBuilder().setTimeoutMs(10_000)
                .addPartitions(DeleteRecordsPartition.newBuilder().setTopic(topic).setPartition(0).setOffset(offset))
                .build());
    }
}
