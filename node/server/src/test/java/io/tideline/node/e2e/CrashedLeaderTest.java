package io.tideline.node.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.ProducerRecord;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineProducer;
import io.tideline.common.TopicPartition;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.client.FetchPartition;
import io.tideline.proto.client.FetchRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A crash ({@code TidelineNode.crash()}, kill -9 in one JVM) ends the node at once, with calls in flight: the
 * crashed leader must not stay alive long enough to act on the cluster. A leader that waited for its calls in
 * flight with its fetch service already gone would see its followers lagging and shrink the ISR to itself through
 * the controller; once it was fenced the partition would have no eligible leader left.
 */
class CrashedLeaderTest {
    private static final String TOPIC = "crash";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int LONG_POLL_MS = 10_000;

    @TempDir
    Path dir;

    @Test
    void aCrashedLeaderWithACallInFlightLeavesItsPartitionToTheOthers() throws Exception {
        // A lag time well under the 5 s a graceful stop waits for calls in flight: a crashed leader alive that long
        // would shrink its ISR.
        ExecutorService async = Executors.newSingleThreadExecutor();
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 3, Map.of("replica.lag.time.max.ms", 500)).startAll();
             TidelineAdmin admin = new TidelineAdmin(E2e.clientConfig(cluster, Map.of()))) {
            assertTrue(admin.createTopic(TOPIC, Map.of(0, List.of(1, 2, 3)), Map.of("min.insync.replicas", "2"))
                    .isSuccess());
            E2e.awaitSettled(cluster, admin, TOPIC, 3);
            assertEquals(1, E2e.describe(admin, TP).leader());

            // A consumer's long poll on the empty partition: a call in flight at the crash.
            CompletableFuture<Object> polling = CompletableFuture.supplyAsync(() -> {
                try {
                    return cluster.client(1).fetch(FetchRequest.newBuilder().setMaxBytes(1 << 20).setMinBytes(1)
                            .setMaxWaitMs(LONG_POLL_MS).addPartitions(FetchPartition.newBuilder().setTopic(TOPIC)
                                    .setPartition(0).setFetchOffset(0).setPartitionMaxBytes(1 << 20)
                                    .setCurrentLeaderEpoch(-1)).build());
                } catch (RuntimeException e) {
                    return e;
                }
            }, async);
            Awaitility.await("the fetch is parked").during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(3))
                    .until(() -> !polling.isDone());

            // acks=all sends without pause: at the crash some have been appended by the leader and wait for
            // the followers, whose next fetches the crashed node no longer answers.
            AtomicBoolean producing = new AtomicBoolean(true);
            CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
                try (TidelineProducer p = new TidelineProducer(E2e.clientConfig(cluster, Map.of("acks", "all",
                        "delivery.timeout.ms", 20_000)))) {
                    while (producing.get()) {
                        try {
                            p.send(new ProducerRecord(TOPIC, 0, null, E2e.bytes("v"))).get(25, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            // the leader is gone; the client retries at the next one or gives up
                        }
                    }
                }
            });
            Awaitility.await("records appended").atMost(E2e.WAIT)
                    .until(() -> cluster.node(1).replicaManager().log(TP).orElseThrow().logEndOffset() >= 20);
            Awaitility.await("all three in the ISR under load").atMost(E2e.WAIT).pollInterval(Duration.ofMillis(5))
                    .until(() -> cluster.node(2).image().partition(TOPIC, 0).orElseThrow().getIsrCount() == 3);

            long started = System.nanoTime();
            cluster.kill(1);
            long crashMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

            // The first assignment after the crash, as node 2 applied it: the fencing of node 1 moves the
            // leadership and takes node 1 out of the ISR, and nothing else may have changed the ISR before it.
            AtomicReference<PartitionRecord> firstAfter = new AtomicReference<>();
            Awaitility.await("a leader among the survivors").atMost(E2e.WAIT).pollInterval(Duration.ofMillis(5))
                    .until(() -> {
                        PartitionRecord p = cluster.node(2).image().partition(TOPIC, 0).orElseThrow();
                        if (p.getLeaderEpoch() > 0) {
                            firstAfter.compareAndSet(null, p);
                        }
                        return p.getLeader() == 2 || p.getLeader() == 3;
                    });
            assertEquals(Set.of(2, 3), Set.copyOf(firstAfter.get().getIsrList()),
                    "the ISR the crashed leader left: " + firstAfter.get());
            assertTrue(crashMs < LONG_POLL_MS / 2, "the crash waited " + crashMs + " ms for the call in flight");
            polling.get(LONG_POLL_MS, TimeUnit.MILLISECONDS);
            producing.set(false);
            producer.get(30, TimeUnit.SECONDS);
        } finally {
            async.shutdownNow();
        }
    }
}
