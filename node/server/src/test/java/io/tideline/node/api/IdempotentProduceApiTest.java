package io.tideline.node.api;

import static io.tideline.node.api.ApiTestSupport.bytes;
import static io.tideline.node.api.ApiTestSupport.createTopics;
import static io.tideline.node.api.ApiTestSupport.newTopic;
import static io.tideline.node.api.ApiTestSupport.producePartition;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.common.errors.Errors;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.proto.client.ProducePartitionResponse;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gRPC Produce passes the store's idempotence answers through unchanged (docs/kafka-protocol.md
 * "Idempotent producers"): a retry is NONE with the original base offset, a gap OUT_OF_ORDER_SEQUENCE_NUMBER,
 * an old epoch INVALID_PRODUCER_EPOCH.
 */
class IdempotentProduceApiTest {
    private static final String TOPIC = "ledger";

    @TempDir
    static Path dir;
    private static NodeTestCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new NodeTestCluster(dir, 1, Map.of()).startAll();
        createTopics(cluster, 1, newTopic(TOPIC, 1, 1, Map.of()));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static ProducePartitionResponse produce(short epoch, int sequence) {
        MemoryRecords records = new RecordBatchBuilder(0).producer(55L, epoch, sequence)
                .append(System.currentTimeMillis(), "k", "v" + sequence).buildRecords();
        return cluster.client(1).produce(ProduceRequest.newBuilder().setAcks(-1).setTimeoutMs(10_000)
                .addPartitions(producePartition(TOPIC, 0, bytes(records))).build()).getPartitions(0);
    }

    @Test
    void retriesGapsAndOldEpochsAreAnsweredWithTheStoresCodes() {
        assertEquals(0, produce((short) 1, 0).getBaseOffset());
        assertEquals(1, produce((short) 1, 1).getBaseOffset());
        ProducePartitionResponse retry = produce((short) 1, 0);
        assertEquals(Errors.NONE.code(), retry.getErrorCode(), retry.getErrorMessage());
        assertEquals(0, retry.getBaseOffset(), "the original's offset");
        assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code(), produce((short) 1, 5).getErrorCode());
        assertEquals(Errors.INVALID_PRODUCER_EPOCH.code(), produce((short) 0, 2).getErrorCode());
        assertEquals(2, produce((short) 1, 2).getBaseOffset(), "nothing was written by the refused or retried batches");
    }
}
