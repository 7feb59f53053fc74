package io.tideline.node.e2e;

import static io.tideline.node.e2e.E2e.bytes;
import static io.tideline.node.e2e.E2e.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.tideline.client.ConsumerRecord;
import io.tideline.client.ProducerRecord;
import io.tideline.client.RecordMetadata;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineConsumer;
import io.tideline.client.TidelineProducer;
import io.tideline.client.TopicDescription.PartitionDescription;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.proto.client.ClientServiceGrpc;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.proto.client.ProduceResponse;
import io.tideline.store.log.Log;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The partition leader dies abruptly (no controlled shutdown) while acks=all sends are in flight: the
 * producer goes on at the new leader once the controller has fenced the dead broker, no acknowledged
 * record is lost, and the dead node, restarted, catches up and rejoins the ISR with the leader's log.
 */
class LeaderFailoverTest {
    private static final String TOPIC = "payments";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    /** Records acknowledged before the kill, and again after the new leader took over. */
    private static final int ACKED_PER_PHASE = 200;

    @TempDir
    Path dir;

    @Test
    void acknowledgedRecordsSurviveAnAbruptLeaderDeathAndTheOldLeaderRejoinsTheIsr() throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 3, Map.of()).startAll();
             TidelineAdmin admin = new TidelineAdmin(E2e.clientConfig(cluster, Map.of()))) {
            int oldLeader = E2e.createTopic(cluster, admin, TOPIC, 1, 3, Map.of("min.insync.replicas", "2"))
                    .get(0).leader();

            ContinuousProducer producer = new ContinuousProducer(cluster);
            Thread thread = new Thread(producer, "failover-test-producer");
            thread.start();
            try {
                // The kill waits for a moment with sends outstanding: the window drains to zero for an instant
                // each time a batch is answered, so one sample may find nothing in flight.
                Awaitility.await("records acknowledged by the first leader, more in flight").atMost(E2e.WAIT)
                        .pollInterval(Duration.ofMillis(1))
                        .until(() -> producer.acked.get() >= ACKED_PER_PHASE && producer.incomplete() > 0);
                cluster.kill(oldLeader);

                int[] newLeader = new int[1];
                Awaitility.await("a new leader after broker " + oldLeader + " is fenced").atMost(E2e.WAIT)
                        .pollInterval(Duration.ofMillis(100)).until(() -> {
                            newLeader[0] = E2e.describe(admin, TP).leader();
                            return newLeader[0] > 0 && newLeader[0] != oldLeader;
                        });
                int ackedAtTakeOver = producer.acked.get();
                Awaitility.await("records acknowledged by the new leader").atMost(E2e.WAIT)
                        .until(() -> producer.acked.get() >= ackedAtTakeOver + ACKED_PER_PHASE);
            } finally {
                producer.stop();
                thread.join(TimeUnit.SECONDS.toMillis(70));
            }
            assertFalse(thread.isAlive(), "the producer thread ended");
            assertEquals(List.of(), producer.failures, "every send was acknowledged in the end (retried)");

            int leader = E2e.describe(admin, TP).leader();
            assertNotEquals(oldLeader, leader);
            Map<Long, String> log = consumeAll(cluster);
            Map<Long, String> ackedAt = new HashMap<>();
            for (Sent s : producer.sent) {
                long offset = s.future().get().offset();
                assertNull(ackedAt.put(offset, s.value()), "two records acknowledged at offset " + offset);
                assertEquals(s.value(), log.get(offset), "the record acknowledged at offset " + offset);
            }
            assertTrue(ackedAt.size() >= 2 * ACKED_PER_PHASE, "acknowledged: " + ackedAt.size());

            try (StaleLeaderProbe probe = new StaleLeaderProbe(cluster.clientPort(oldLeader))) {
                cluster.restart(oldLeader);
                probe.stop();
                assertEquals(List.of(), probe.accepted, "the restarting node took writes as a leader it no longer is");
                assertTrue(probe.answers.get() > 0, "the probe reached the restarting node");
            }
            PartitionDescription rejoined = E2e.awaitSettled(cluster, admin, TOPIC, 3).get(0);
            assertTrue(rejoined.isr().contains(oldLeader), rejoined.toString());
            Log leaderLog = cluster.node(rejoined.leader()).replicaManager().log(TP).orElseThrow();
            Log restartedLog = cluster.node(oldLeader).replicaManager().log(TP).orElseThrow();
            assertTrue(restartedLog.recoveredSegmentsOnLoad() > 0, "killed without a clean shutdown: the restart recovers");
            Awaitility.await("the restarted replica's log end and high watermark match the leader's")
                    .atMost(E2e.WAIT).until(() -> restartedLog.logEndOffset() == leaderLog.logEndOffset()
                            && restartedLog.highWatermark() == leaderLog.highWatermark());
            assertEquals(leaderLog.highWatermark(), leaderLog.logEndOffset(), "nothing is produced any more");
            assertEquals(records(leaderLog), records(restartedLog), "the restarted replica holds the leader's records");
            assertEquals(log, records(restartedLog), "what the consumer read is what the restarted replica holds");
            assertTrue(cluster.node(oldLeader).isHealthy());
        }
    }

    private record Sent(String value, CompletableFuture<RecordMetadata> future) {
    }

    /**
     * Sends without pause, keeping at most {@link #WINDOW} records unanswered (flow control: the thread
     * waits for the oldest answer, so records are always in flight and none is lost on this side).
     */
    private static final class ContinuousProducer implements Runnable {
        private static final int WINDOW = 50;

        final List<Sent> sent = new CopyOnWriteArrayList<>();
        final List<String> failures = new CopyOnWriteArrayList<>();
        final AtomicInteger acked = new AtomicInteger();
        private final NodeTestCluster cluster;
        private volatile boolean stopped;

        ContinuousProducer(NodeTestCluster cluster) {
            this.cluster = cluster;
        }

        void stop() {
            stopped = true;
        }

        int incomplete() {
            return (int) sent.stream().filter(s -> !s.future().isDone()).count();
        }

        @Override
        public void run() {
            try (TidelineProducer producer = new TidelineProducer(E2e.clientConfig(cluster, Map.of(
                    "acks", "all",
                    "linger.ms", 2,
                    "batch.size", 2048,
                    "retries", Integer.MAX_VALUE,
                    // Longer than the 5 s a stopping node waits for open calls: the acks=all produce still
                    // waiting for the followers when the leader dies is cancelled, and must be retried.
                    "request.timeout.ms", 10_000,
                    "delivery.timeout.ms", 60_000)))) {
                Deque<CompletableFuture<RecordMetadata>> window = new ArrayDeque<>();
                for (int i = 0; !stopped; i++) {
                    String value = "payment-" + i;
                    CompletableFuture<RecordMetadata> f = producer.send(new ProducerRecord(TOPIC, 0, bytes("k" + i),
                            bytes(value)));
                    f.whenComplete((m, e) -> {
                        if (e == null) {
                            acked.incrementAndGet();
                        } else {
                            failures.add(value + ": " + e);
                        }
                    });
                    sent.add(new Sent(value, f));
                    window.addLast(f);
                    if (window.size() >= WINDOW) {
                        awaitQuietly(window.removeFirst());
                    }
                }
            }
        }

        private static void awaitQuietly(CompletableFuture<RecordMetadata> f) {
            try {
                f.get(70, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // recorded in failures (or the test's bound on the thread fails it)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Sends acks=1 produce requests to a restarting node as fast as it answers. The node's own metadata
     * log still says it leads (it died leading), so until it has caught up with the quorum it must not
     * act on that: any record it accepts is written by a leader that has been replaced.
     */
    private static final class StaleLeaderProbe implements AutoCloseable {
        final List<String> accepted = new CopyOnWriteArrayList<>();
        final AtomicInteger answers = new AtomicInteger();
        private final int port;
        private final Thread thread;
        private volatile boolean stopped;

        StaleLeaderProbe(int port) {
            this.port = port;
            this.thread = new Thread(this::run, "stale-leader-probe");
            thread.start();
        }

        private void run() {
            ProduceRequest request = ProduceRequest.newBuilder().setAcks(1).setTimeoutMs(1_000)
                    .addPartitions(ProducePartition.newBuilder().setTopic(TOPIC).setPartition(0)
                            .setRecords(ByteString.copyFrom(MemoryRecords.of(new RecordBatchBuilder(0L)
                                    .append(1L, "zombie", "zombie").build()).buffer())))
                    .build();
            while (!stopped) {
                // A fresh channel per refused connection: a channel's reconnect backoff could sleep through
                // the moment the node starts answering.
                ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
                try {
                    ClientServiceGrpc.ClientServiceBlockingStub stub = ClientServiceGrpc.newBlockingStub(channel);
                    while (!stopped) {
                        ProduceResponse response = stub.withDeadlineAfter(2, TimeUnit.SECONDS).produce(request);
                        answers.incrementAndGet();
                        if (response.getPartitions(0).getErrorCode() == Errors.NONE.code()) {
                            accepted.add(response.toString());
                        }
                    }
                } catch (StatusRuntimeException e) {
                    // not listening yet (or stopping): connect again
                } finally {
                    channel.shutdownNow();
                }
            }
        }

        void stop() throws InterruptedException {
            stopped = true;
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }

        @Override
        public void close() throws InterruptedException {
            stop();
        }
    }

    /** Every record up to the high watermark, read with the client from the current leader. */
    private static Map<Long, String> consumeAll(NodeTestCluster cluster) {
        Map<Long, String> out = new HashMap<>();
        try (TidelineConsumer consumer = new TidelineConsumer(E2e.clientConfig(cluster, Map.of(
                "auto.offset.reset", "earliest", "fetch.max.wait.ms", 100)))) {
            consumer.assign(List.of(TP));
            long end = consumer.endOffsets(List.of(TP)).get(TP);
            Awaitility.await("consumed up to " + end).atMost(E2e.WAIT).pollDelay(Duration.ZERO).until(() -> {
                for (ConsumerRecord r : consumer.poll(Duration.ofMillis(200))) {
                    out.put(r.offset(), string(r.value()));
                }
                return consumer.position(TP) >= end;
            });
            assertEquals(end, out.size(), "one record per offset from 0 to the high watermark");
        }
        return out;
    }

    /** The records of a local log, offset to value, read through the Log API. */
    private static Map<Long, String> records(Log log) throws Exception {
        Map<Long, String> out = new HashMap<>();
        long next = log.logStartOffset();
        while (next < log.logEndOffset()) {
            try (FetchDataInfo read = log.read(next, 1 << 20, log.logEndOffset(), true)) {
                for (RecordBatch batch : read.records().toMemoryRecords().batches()) {
                    for (Record r : batch.records()) {
                        out.put(r.offset(), string(r.value()));
                    }
                    next = batch.nextOffset();
                }
            }
        }
        return out;
    }
}
