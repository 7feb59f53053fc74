package io.tideline.node.fuzz;

import com.google.protobuf.ByteString;
import io.tideline.node.api.ApiTestSupport;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.proto.admin.DeleteRecordsPartition;
import io.tideline.proto.admin.DeleteRecordsRequest;
import io.tideline.proto.admin.NewTopic;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.proto.client.ProduceResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;

/**
 * The node the listener fuzzer runs against, for the budget test and the long run alike: one {@link NodeTestCluster}
 * node (broker and controller) holding the fixture topics, five batches in each partition, and fuzz-a-0's log start
 * offset moved to 3 by DeleteRecords, so that Fetch, ListOffsets and DeleteRecords meet a log with both bounds.
 */
final class FuzzNode {
    /** Topic name to partition count, replication factor 1. */
    static final Map<String, Integer> FIXTURES = Map.of("fuzz-a", 3, "fuzz-b", 1);

    private FuzzNode() {
    }

    static NodeTestCluster start(Path dir) throws Exception {
        // Retention never runs during a run, so a log start offset moves only by DeleteRecords.
        NodeTestCluster cluster = new NodeTestCluster(dir, 1, Map.of("log.retention.check.interval.ms", 86_400_000))
                .startAll();
        try {
            ApiTestSupport.createTopics(cluster, 1, FIXTURES.entrySet().stream()
                    .map(e -> ApiTestSupport.newTopic(e.getKey(), e.getValue(), 1, Map.of())).toArray(NewTopic[]::new));
            FuzzValues values = new FuzzValues(new Random(1), List.of(), List.of());
            for (Map.Entry<String, Integer> t : FIXTURES.entrySet()) {
                for (int p = 0; p < t.getValue(); p++) {
                    for (int i = 0; i < 5; i++) {
                        ProduceResponse r = cluster.client(1).produce(ProduceRequest.newBuilder().setAcks(-1)
                                .setTimeoutMs(10_000).addPartitions(ProducePartition.newBuilder()
                                        .setTopic(t.getKey()).setPartition(p)
                                        .setRecords(ByteString.copyFrom(values.validBatch(Compression.NONE)))).build());
                        if (r.getPartitions(0).getErrorCode() != 0) {
                            throw new IllegalStateException("fixture produce failed: " + r);
                        }
                    }
                }
            }
            cluster.admin(1).deleteRecords(DeleteRecordsRequest.newBuilder().setTimeoutMs(10_000).addPartitions(
                    DeleteRecordsPartition.newBuilder().setTopic("fuzz-a").setPartition(0).setOffset(3)).build());
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** The run's settings from system properties (docs/testing.md, "The listener fuzzer"). */
    static ListenerFuzzer.Settings settings(long defaultRequests) {
        return new ListenerFuzzer.Settings(
                Long.getLong("fuzz.seed", System.nanoTime() ^ System.currentTimeMillis()),
                Long.getLong("fuzz.from", 0L), Long.getLong("fuzz.requests", defaultRequests),
                Integer.getInteger("fuzz.answerWaitMs", 250), Integer.getInteger("fuzz.healthBoundMs", 5_000),
                Boolean.getBoolean("fuzz.keepGoing"),
                System.out);
    }
}
