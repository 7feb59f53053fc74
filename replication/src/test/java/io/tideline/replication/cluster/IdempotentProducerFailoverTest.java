package io.tideline.replication.cluster;

import static io.tideline.replication.cluster.MockClockCluster.TP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.replication.server.PartitionSettings;
import io.tideline.replication.server.ProduceResult;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Followers rebuild the idempotent producers' state from the batches they replicate, so a new leader refuses
 * a producer's retry of a batch its predecessor wrote as a duplicate, answering the original offset
 * (docs/kafka-protocol.md "Idempotent producers"); and an acks=all duplicate waits for the high watermark
 * like the original would.
 */
class IdempotentProducerFailoverTest {
    private static final long PID = 9000L;
    private static final short EPOCH = 0;

    @TempDir
    Path dir;

    private MockClockCluster c;

    @BeforeEach
    void start() throws Exception {
        c = new MockClockCluster(dir, Map.of());
        c.cluster.createPartition(TP, List.of(1, 2, 3), PartitionSettings.defaults().withMinInsyncReplicas(2));
    }

    @AfterEach
    void stop() throws Exception {
        c.close();
    }

    private MemoryRecords batch(int sequence, int records) {
        RecordBatchBuilder builder = new RecordBatchBuilder(0).producer(PID, EPOCH, sequence);
        for (int i = 0; i < records; i++) {
            builder.append(c.time.milliseconds(), "k", "seq-" + (sequence + i));
        }
        return builder.buildRecords();
    }

    private CompletableFuture<Map<TopicPartition, ProduceResult>> send(int brokerId, int acks, MemoryRecords records) {
        return c.broker(brokerId).replicaManager.appendRecords(Map.of(TP, records), acks, 30_000);
    }

    private ProduceResult sendAndWait(int brokerId, int acks, MemoryRecords records) {
        CompletableFuture<Map<TopicPartition, ProduceResult>> f = send(brokerId, acks, records);
        c.await(f::isDone);
        return f.join().get(TP);
    }

    @Test
    void aNewLeaderAnswersARetryOfItsPredecessorsBatchWithTheOriginalOffset() {
        long[] offsets = new long[3];
        for (int i = 0; i < 3; i++) {
            ProduceResult r = sendAndWait(1, -1, batch(i * 2, 2));
            assertEquals(Errors.NONE, r.error(), r.message());
            assertFalse(r.duplicate());
            offsets[i] = r.baseOffset();
        }
        c.awaitAllAt(6);

        assertEquals(1, c.controller().electLeader(TP, 2).leaderEpoch());
        c.await(() -> c.broker(2).replicaManager.partition(TP).orElseThrow().isLeader());

        for (int i = 2; i >= 0; i--) {
            ProduceResult retry = sendAndWait(2, -1, batch(i * 2, 2));
            assertEquals(Errors.NONE, retry.error(), retry.message());
            assertTrue(retry.duplicate(), "batch " + i);
            assertEquals(offsets[i], retry.baseOffset(), "batch " + i);
        }
        ProduceResult gap = sendAndWait(2, -1, batch(9, 1));
        assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, gap.error());
        ProduceResult next = sendAndWait(2, -1, batch(6, 1));
        assertEquals(Errors.NONE, next.error(), next.message());
        assertEquals(6, next.baseOffset(), "the retries wrote nothing");
        c.awaitAllAt(7);
    }

    @Test
    void anAcksAllDuplicateOfAnUncommittedBatchWaitsForTheHighWatermarkLikeTheOriginal() {
        assertEquals(Errors.NONE, sendAndWait(1, -1, batch(0, 1)).error());
        c.awaitAllAt(1);
        c.broker(2).cutLinkTo(1);
        c.broker(3).cutLinkTo(1);
        ProduceResult original = sendAndWait(1, 1, batch(1, 1)); // acks=1: on the leader only
        assertEquals(1, original.baseOffset());

        CompletableFuture<Map<TopicPartition, ProduceResult>> retry = send(1, -1, batch(1, 1));
        assertFalse(retry.isDone(), "the original is not committed: the duplicate waits for it");
        assertEquals(2, c.broker(1).log(TP).logEndOffset(), "nothing written");

        c.broker(2).healLinkTo(1);
        c.broker(3).healLinkTo(1);
        c.await(retry::isDone);
        ProduceResult answered = retry.join().get(TP);
        assertEquals(Errors.NONE, answered.error(), answered.message());
        assertTrue(answered.duplicate());
        assertEquals(1, answered.baseOffset());

        CompletableFuture<Map<TopicPartition, ProduceResult>> committedRetry = send(1, -1, batch(1, 1));
        assertTrue(committedRetry.isDone(), "below the high watermark: answered at once");
        assertEquals(1, committedRetry.join().get(TP).baseOffset());
    }
}
