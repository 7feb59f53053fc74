package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.tideline.client.TidelineAdmin;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import io.tideline.proto.client.FetchPartition;
import io.tideline.proto.client.FetchRequest;
import io.tideline.proto.client.FetchResponse;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.proto.client.ProduceResponse;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.record.TimestampType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The seams a test injects into {@link NodeTestCluster} are still in place after a node restarts. */
class NodeTestClusterRestartTest {
    /** The cluster's clock runs this far ahead of the system's, so a timestamp shows which clock made it. */
    private static final long AHEAD_MS = 3_600_000L;
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final TopicPartition REPLICATED = new TopicPartition("replicated", 0);
    private static final TopicPartition STAMPED = new TopicPartition("stamped", 0);

    @TempDir
    Path dir;

    private final Map<Integer, AtomicInteger> channelsOpened = new ConcurrentHashMap<>();

    @Test
    void aRestartedNodeKeepsTheInjectedClockAndChannelFactory() throws Exception {
        Time ahead = new AheadTime(AHEAD_MS);
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 2, Map.of()).withTime(ahead)
                .withChannelFactory(1, counting(1)).withChannelFactory(2, counting(2)).startAll();
             TidelineAdmin admin = new TidelineAdmin(Map.of("bootstrap.servers", cluster.bootstrapServers(),
                     "retry.backoff.ms", 50, "request.timeout.ms", 10_000))) {
            Map<String, String> appendTime = Map.of("message.timestamp.type", "LogAppendTime");
            // Node 2 follows node 1 on one partition (its fetches use its channel factory) and alone holds the
            // other (the records there get node 2's clock).
            assertEquals(Errors.NONE, admin.createTopic(REPLICATED.topic(), Map.of(0, List.of(1, 2)), appendTime).error());
            assertEquals(Errors.NONE, admin.createTopic(STAMPED.topic(), Map.of(0, List.of(2)), appendTime).error());
            Awaitility.await().atMost(WAIT).until(() -> isrOnLeader(cluster, 1).equals(List.of(1, 2)));

            cluster.kill(2);
            int openedBefore = channelsOpened.get(2).get();
            cluster.restart(2);

            // The restarted follower fetches from node 1 again, over a channel of the injected factory.
            Awaitility.await().atMost(WAIT).until(() -> channelsOpened.get(2).get() > openedBefore);
            Awaitility.await().atMost(WAIT).until(() -> isrOnLeader(cluster, 1).equals(List.of(1, 2)));

            long before = System.currentTimeMillis();
            Awaitility.await().atMost(WAIT).ignoreExceptions().until(() -> produce(cluster, 2, STAMPED) == Errors.NONE.code());
            long after = System.currentTimeMillis();
            RecordBatch batch = firstBatch(cluster, 2, STAMPED);
            assertEquals(TimestampType.LOG_APPEND_TIME, batch.timestampType());
            assertTrue(batch.maxTimestamp() >= before + AHEAD_MS && batch.maxTimestamp() <= after + AHEAD_MS,
                    "stamped " + batch.maxTimestamp() + " by the restarted node, expected its clock: ["
                            + (before + AHEAD_MS) + ", " + (after + AHEAD_MS) + "]");
        }
    }

    private TidelineNode.ChannelFactory counting(int self) {
        AtomicInteger opened = channelsOpened.computeIfAbsent(self, id -> new AtomicInteger());
        return (brokerId, host, port) -> {
            opened.incrementAndGet();
            return TidelineNode.ChannelFactory.PLAINTEXT.open(brokerId, host, port);
        };
    }

    private static List<Integer> isrOnLeader(NodeTestCluster cluster, int leader) {
        return cluster.node(leader).replicaManager().partition(REPLICATED).filter(p -> p.isLeader())
                .map(p -> p.isr().stream().sorted().toList()).orElse(List.of());
    }

    private static int produce(NodeTestCluster cluster, int node, TopicPartition tp) {
        MemoryRecords records = MemoryRecords.of(new RecordBatchBuilder(0L).append(1L, "k", "v").build());
        ProduceResponse r = cluster.client(node).produce(ProduceRequest.newBuilder().setAcks(-1).setTimeoutMs(10_000)
                .addPartitions(ProducePartition.newBuilder().setTopic(tp.topic()).setPartition(tp.partition())
                        .setRecords(ByteString.copyFrom(records.buffer()))).build());
        return r.getPartitions(0).getErrorCode();
    }

    private static RecordBatch firstBatch(NodeTestCluster cluster, int node, TopicPartition tp) {
        FetchResponse fetched = cluster.client(node).fetch(FetchRequest.newBuilder().setMaxBytes(1 << 20).setMaxWaitMs(100)
                .addPartitions(FetchPartition.newBuilder().setTopic(tp.topic()).setPartition(tp.partition())
                        .setFetchOffset(0).setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(-1)).build());
        assertEquals(Errors.NONE.code(), fetched.getPartitions(0).getErrorCode(), fetched.toString());
        return MemoryRecords.readableRecords(fetched.getPartitions(0).getRecords().asReadOnlyByteBuffer()).batches().get(0);
    }

    /** The system clock shifted by a constant: intervals are the system's, instants are not. */
    private record AheadTime(long aheadMs) implements Time {
        @Override
        public long milliseconds() {
            return System.currentTimeMillis() + aheadMs;
        }

        @Override
        public long nanoseconds() {
            return System.nanoTime();
        }

        @Override
        public void sleep(long ms) {
            Time.SYSTEM.sleep(ms);
        }
    }
}
