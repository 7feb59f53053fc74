package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.ManagedChannel;
import io.tideline.common.errors.Errors;
import io.tideline.proto.admin.CreateTopicsRequest;
import io.tideline.proto.admin.NewTopic;
import io.tideline.proto.client.ClientServiceGrpc;
import io.tideline.proto.client.FetchPartition;
import io.tideline.proto.client.FetchRequest;
import io.tideline.proto.client.FetchResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * crash() is kill -9: the node stops answering at once, without waiting for calls in flight to finish (an orderly
 * close drains them for up to 5 s, during which a leader keeps leading and acting on the cluster).
 */
class CrashTest {
    private static final int LONG_POLL_MS = 20_000;

    @TempDir
    Path dir;

    @Test
    void crashEndsCallsInFlightAtOnceInsteadOfDrainingThem() throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 1, Map.of()).startAll()) {
            var created = cluster.admin(1).createTopics(CreateTopicsRequest.newBuilder()
                    .addTopics(NewTopic.newBuilder().setName("t").setNumPartitions(1).setReplicationFactor(1)).build());
            assertEquals(Errors.NONE.code(), created.getResults(0).getErrorCode(), created.toString());
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> cluster.node(1).replicaManager()
                    .partition(new io.tideline.common.TopicPartition("t", 0)).map(p -> p.isLeader()).orElse(false));
            ManagedChannel channel = TidelineNode.ChannelFactory.PLAINTEXT.open(1, "127.0.0.1", cluster.clientPort(1));
            try {
                // A long poll on an empty partition: the call stays in flight on the server.
                ListenableFuture<FetchResponse> poll = ClientServiceGrpc.newFutureStub(channel).fetch(
                        FetchRequest.newBuilder().setMaxBytes(1 << 20).setMaxWaitMs(LONG_POLL_MS).setMinBytes(1)
                                .addPartitions(FetchPartition.newBuilder().setTopic("t").setPartition(0)
                                        .setFetchOffset(0).setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(-1))
                                .build());
                Awaitility.await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                        .until(() -> !poll.isDone());
                long start = System.nanoTime();
                cluster.kill(1);
                long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                // The orderly path waits 5 s for the poll to drain; a crash must not.
                assertTrue(tookMs < 4_000, "crash took " + tookMs + " ms");
                Awaitility.await().atMost(Duration.ofSeconds(3)).until(poll::isDone);
            } finally {
                channel.shutdownNow();
            }
        }
    }
}
