package io.tideline.replication.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Gauge;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.replication.fetcher.FollowerStatusView;
import io.tideline.replication.fetcher.ReplicationQuota;
import io.tideline.replication.follower.FailureReason;
import io.tideline.replication.follower.OutOfRangePolicy;
import io.tideline.replication.follower.RebuildProgress;
import io.tideline.replication.follower.ReplicaStatus;
import io.tideline.replication.leader.IsrProposal;
import io.tideline.replication.metrics.ReplicationMetrics;
import io.tideline.replication.server.DeleteRecordsPartitionResult;
import io.tideline.replication.server.PartitionSettings;
import io.tideline.replication.server.ProduceResult;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.segment.LogSegment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/behaviours.md B42-B44: a follower cut off longer than the leader's
 * retention comes back below the leader's log start offset. Under policy {@code halt} it stays FAILED and
 * the partition stays under-replicated until an operator rebuilds it; under {@code rebuild} it truncates
 * fully and catches up from the leader's start offset, as Kafka does. A new empty replica is not such a
 * follower: it starts at the leader's start offset.
 */
class FollowerCutOffPastRetentionTest {
    private static final TopicPartition TP = new TopicPartition("orders", 0);
    private static final long LAG_MS = 10_000;
    private static final long RETENTION_MS = 60_000;
    private static final String VALUE = "v".repeat(100);
    private static final int LEADER = 1;
    private static final int LAGGARD = 3;

    @TempDir
    Path dir;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private ReplicationTestCluster cluster;

    @AfterEach
    void tearDown() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        assertEquals(List.of(), scheduler.failures(), "scheduled tasks failed");
    }

    private void startCluster(int size, PartitionSettings settings, List<Integer> replicas) throws Exception {
        cluster = new ReplicationTestCluster(size, dir, time, scheduler, Map.of(), Map.of(
                "replica.lag.time.max.ms", LAG_MS,
                "replica.fetch.backoff.ms", 20,
                "replica.fetch.wait.max.ms", 500,
                // Several fetches per rebuild, so a throttled one can be watched midway.
                "replica.fetch.max.bytes", 512));
        cluster.createPartition(TP, replicas, settings);
    }

    private static PartitionSettings settings(OutOfRangePolicy policy) {
        return PartitionSettings.defaults().withOutOfRangePolicy(policy).withLogOverrides(Map.of(
                "segment.bytes", 1024,
                // Rolls are frequent here; small preallocated indexes keep each one cheap.
                "segment.index.bytes", 1024,
                "retention.ms", RETENTION_MS,
                "file.delete.delay.ms", 1_000));
    }

    // ---------------------------------------------------------------- policy halt

    @Test
    void haltKeepsTheCutOffFollowerFailedWithItsDataAndUnderReplicatedUntilAnOperatorRebuildsIt() throws Exception {
        startCluster(3, settings(OutOfRangePolicy.HALT), List.of(1, 2, 3));
        long followerEnd = cutOffLaggardPastRetention();
        Log laggardLog = cluster.broker(LAGGARD).log(TP);
        List<Long> segmentsBefore = baseOffsets(laggardLog);
        long sizeBefore = laggardLog.size();

        cluster.broker(LAGGARD).healLinkTo(LEADER);
        await(Duration.ofSeconds(10)).until(() -> status(LAGGARD).status() == ReplicaStatus.FAILED);

        Log leaderLog = leaderLog();
        FailureReason reason = status(LAGGARD).failure().orElseThrow();
        assertEquals(followerEnd, reason.fetchOffset());
        assertEquals(leaderLog.logStartOffset(), reason.leaderLogStartOffset());
        assertEquals(leaderLog.logEndOffset(), reason.leaderLogEndOffset());
        assertEquals(time.milliseconds(), reason.sinceMs());
        assertEquals(Optional.of(reason), cluster.broker(LAGGARD).reportedFailures.get(TP));
        assertEquals(1, gauge(LAGGARD, ReplicationMetrics.FETCHER_FAILED_PARTITIONS));
        long outOfRangeAnswers = ((Number) gauge(LEADER, ReplicationMetrics.partitionMetric("OffsetOutOfRangeCount", TP)))
                .longValue();
        assertTrue(outOfRangeAnswers > 0, "the leader answered OFFSET_OUT_OF_RANGE");

        // However long we watch, with the leader taking writes and running retention, nothing changes:
        // the replica no longer fetches and its data stays as it was.
        for (int round = 0; round < 4; round++) {
            if (round == 1) {
                // New metadata (a new leader epoch, then the same state again) does not revive it either.
                cluster.controller.electLeader(TP, LEADER);
            } else if (round == 2) {
                cluster.controller.republish(TP, LAGGARD);
            }
            produce(10, -1);
            time.advance(RETENTION_MS + 1);
            cluster.broker(LEADER).replicaManager.maybeShrinkIsr();
            // The broker's retention pass this time (the scenario's first pass ran on the log itself).
            cluster.broker(LEADER).logManager.cleanupLogs();
            await(Duration.ofSeconds(5)).during(Duration.ofMillis(150)).until(() ->
                    status(LAGGARD).status() == ReplicaStatus.FAILED
                            && status(LAGGARD).failure().orElseThrow().equals(reason)
                            && laggardLog.logEndOffset() == followerEnd
                            && laggardLog.logStartOffset() == 0
                            && laggardLog.size() == sizeBefore
                            && baseOffsets(laggardLog).equals(segmentsBefore)
                            && !cluster.controller.state(TP).isr().contains(LAGGARD)
                            && gauge(LEADER, ReplicationMetrics.UNDER_REPLICATED_PARTITIONS).equals(1)
                            && gauge(LAGGARD, ReplicationMetrics.FETCHER_FAILED_PARTITIONS).equals(1)
                            && ((Number) gauge(LEADER, ReplicationMetrics.partitionMetric("OffsetOutOfRangeCount", TP)))
                            .longValue() == outOfRangeAnswers);
        }
        assertTrue(leaderLog.logStartOffset() > reason.leaderLogStartOffset(),
                "retention moved the leader on while the replica was FAILED");

        // Only a FAILED follower can be rebuilt, and only where it follows.
        assertEquals(Errors.INVALID_REQUEST, cluster.broker(2).replicaManager.requestRebuild(TP));
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, cluster.broker(LEADER).replicaManager.requestRebuild(TP));
        // The rebuild starts from the start offset the failure recorded, which retention has passed since:
        // the leader answers OFFSET_OUT_OF_RANGE again and the rebuild restarts at its current start offset.
        assertEquals(Errors.NONE, cluster.broker(LAGGARD).replicaManager.requestRebuild(TP));
        awaitRejoined(LAGGARD);
        assertEquals(Optional.empty(), cluster.broker(LAGGARD).reportedFailures.get(TP));
        assertEquals(0, gauge(LAGGARD, ReplicationMetrics.FETCHER_FAILED_PARTITIONS));
        assertLogsEqualFrom(leaderLog.logStartOffset(), leaderLog, laggardLog);
    }

    // ---------------------------------------------------------------- policy rebuild

    @Test
    void rebuildTruncatesFullyRestartsAtTheLeaderStartOffsetAndRejoinsTheIsr() throws Exception {
        startCluster(3, settings(OutOfRangePolicy.REBUILD).withThrottles(false, true), List.of(1, 2, 3));
        long followerEnd = cutOffLaggardPastRetention();
        Log leaderLog = leaderLog();
        // More to copy than one throttled fetch carries.
        produce(30, -1);
        long leaderStart = leaderLog.logStartOffset();
        long leaderHw = leaderLog.highWatermark();
        // Throttle the returning follower with a clock that stands still: after its first fetch with records
        // it stops midway, so the REBUILDING state can be looked at.
        ReplicationQuota quota = cluster.broker(LAGGARD).replicaManager.followerQuota();
        quota.setRate(2_000);

        cluster.broker(LAGGARD).healLinkTo(LEADER);
        Log laggardLog = cluster.broker(LAGGARD).log(TP);
        await(Duration.ofSeconds(10)).until(() -> status(LAGGARD).status() == ReplicaStatus.REBUILDING
                && laggardLog.logEndOffset() > leaderStart);
        RebuildProgress progress = status(LAGGARD).rebuild().orElseThrow();
        assertEquals(leaderStart, progress.startOffset());
        assertEquals(leaderHw, progress.targetOffset());
        assertTrue(progress.currentOffset() > leaderStart && progress.currentOffset() < leaderHw, progress.toString());
        assertTrue(progress.fraction() > 0 && progress.fraction() < 1, progress.toString());
        // Truncated fully: nothing of the old log below the leader's start offset is left.
        assertEquals(leaderStart, laggardLog.logStartOffset());
        assertTrue(baseOffsets(laggardLog).get(0) >= leaderStart, baseOffsets(laggardLog).toString());
        assertTrue(laggardLog.highWatermark() >= leaderStart, "high watermark " + laggardLog.highWatermark());
        assertTrue(leaderStart > followerEnd);
        assertFalse(cluster.broker(LAGGARD).reportedFailures.containsKey(TP), "a rebuild is not a failure");
        assertEquals(0, gauge(LAGGARD, ReplicationMetrics.FETCHER_FAILED_PARTITIONS));
        assertTrue(((Number) gauge(LEADER, ReplicationMetrics.partitionMetric("OffsetOutOfRangeCount", TP))).longValue() > 0);
        assertFalse(cluster.controller.state(TP).isr().contains(LAGGARD));

        quota.setRate(ReplicationQuota.UNLIMITED);
        awaitRejoined(LAGGARD);
        assertTrue(status(LAGGARD).rebuild().isEmpty());
        assertEquals(leaderStart, laggardLog.logStartOffset());
        assertLogsEqualFrom(leaderStart, leaderLog, laggardLog);
    }

    // ---------------------------------------------------------------- new replica

    @Test
    void aNewEmptyReplicaStartsAtTheLeaderStartOffsetInsteadOfFailing() throws Exception {
        startCluster(4, settings(OutOfRangePolicy.HALT), List.of(1, 2, 3));
        produce(150, -1);
        time.advance(RETENTION_MS + 1);
        Log leaderLog = leaderLog();
        assertTrue(leaderLog.deleteOldSegments() > 0);
        long leaderStart = leaderLog.logStartOffset();
        assertTrue(leaderStart > 0);

        cluster.controller.reassign(TP, List.of(1, 2, 3, 4));
        awaitRejoined(4);
        Log newLog = cluster.broker(4).log(TP);
        assertEquals(leaderStart, newLog.logStartOffset());
        assertEquals(leaderStart, baseOffsets(newLog).get(0));
        assertFalse(cluster.broker(4).reportedFailures.containsKey(TP), "bootstrap is not a failure");
        assertEquals(ReplicaStatus.FETCHING, status(4).status());
        assertTrue(((Number) gauge(LEADER, ReplicationMetrics.partitionMetric("OffsetOutOfRangeCount", TP))).longValue() > 0,
                "the new replica learnt the start offset from an OFFSET_OUT_OF_RANGE answer");
        assertLogsEqualFrom(leaderStart, leaderLog, newLog);
    }

    @Test
    void aNewEmptyReplicaStartsInsideTheBatchHoldingTheLeaderStartOffset() throws Exception {
        startCluster(4, settings(OutOfRangePolicy.HALT), List.of(1, 2, 3));
        produce(20, -1);
        RecordBatchBuilder batch = new RecordBatchBuilder(0L);
        for (int i = 0; i < 10; i++) {
            batch.append(time.milliseconds(), "k", "v" + i);
        }
        ProduceResult multi = cluster.leader(TP).replicaManager.appendRecords(Map.of(TP, MemoryRecords.of(batch.build())),
                -1, 30_000).get(10, TimeUnit.SECONDS).get(TP);
        assertEquals(Errors.NONE, multi.error(), multi.message());
        assertEquals(20, multi.baseOffset());
        produce(5, -1);
        // DeleteRecords may leave the start offset inside a batch (docs/behaviours.md B44).
        assertEquals(new DeleteRecordsPartitionResult(Errors.NONE, 25, null), cluster.leader(TP).replicaManager
                .deleteRecords(Map.of(TP, 25L), 30_000).get(10, TimeUnit.SECONDS).get(TP));

        cluster.controller.reassign(TP, List.of(1, 2, 3, 4));
        awaitRejoined(4);
        Log newLog = cluster.broker(4).log(TP);
        assertEquals(25, newLog.logStartOffset());
        assertFalse(cluster.broker(4).reportedFailures.containsKey(TP), "bootstrap is not a failure");
        assertLogsEqualFrom(25, leaderLog(), newLog);
        // The new replica counts for DeleteRecords like the others.
        assertEquals(new DeleteRecordsPartitionResult(Errors.NONE, 30, null), cluster.leader(TP).replicaManager
                .deleteRecords(Map.of(TP, 30L), 30_000).get(10, TimeUnit.SECONDS).get(TP));
        assertEquals(30, newLog.logStartOffset());
    }

    // ---------------------------------------------------------------- scenario steps

    /**
     * Cuts broker 3 off with the partition in sync, writes many small segments, lets the leader drop it
     * from the ISR and run retention past where it stopped. Returns the laggard's log end offset.
     */
    private long cutOffLaggardPastRetention() throws Exception {
        produce(10, -1);
        awaitAllAt(10);
        cluster.broker(LAGGARD).cutLinkTo(LEADER);
        long laggardEnd = cluster.broker(LAGGARD).log(TP).logEndOffset();
        assertEquals(10, laggardEnd);

        produce(150, 1);
        Log leaderLog = leaderLog();
        await(Duration.ofSeconds(10)).until(() ->
                cluster.broker(2).log(TP).logEndOffset() == leaderLog.logEndOffset());
        time.advance(LAG_MS);
        cluster.broker(LEADER).replicaManager.maybeShrinkIsr();
        assertEquals(Optional.empty(), pendingIsrChange(), "not lagging for longer than replica.lag.time.max.ms yet");
        time.advance(1);
        cluster.broker(LEADER).replicaManager.maybeShrinkIsr();
        await(Duration.ofSeconds(10)).until(() ->
                cluster.controller.state(TP).isr().equals(List.of(1, 2))
                        && leaderLog.highWatermark() == leaderLog.logEndOffset()
                        && gauge(LEADER, ReplicationMetrics.UNDER_REPLICATED_PARTITIONS).equals(1));

        time.advance(RETENTION_MS + 1);
        assertTrue(leaderLog.deleteOldSegments() > 0, "retention deleted the leader's old segments");
        assertTrue(leaderLog.logStartOffset() > laggardEnd, "leader start " + leaderLog.logStartOffset());
        assertEquals(laggardEnd, cluster.broker(LAGGARD).log(TP).logEndOffset(), "the cut link let nothing through");
        return laggardEnd;
    }

    private void produce(int count, int acks) throws Exception {
        for (int i = 0; i < count; i++) {
            ProduceResult r = cluster.produce(TP, acks, 30_000, VALUE).get(10, TimeUnit.SECONDS).get(TP);
            assertEquals(Errors.NONE, r.error(), r.message());
        }
    }

    private void awaitAllAt(long offset) {
        await(Duration.ofSeconds(10)).until(() -> cluster.brokers().stream()
                .allMatch(b -> b.log(TP).logEndOffset() == offset && b.log(TP).highWatermark() == offset));
    }

    /** Caught up with the leader, FETCHING, back in the committed ISR, the partition fully replicated. */
    private void awaitRejoined(int broker) {
        Log leaderLog = leaderLog();
        await(Duration.ofSeconds(15)).until(() -> status(broker).status() == ReplicaStatus.FETCHING
                && cluster.broker(broker).log(TP).logEndOffset() == leaderLog.logEndOffset()
                && cluster.controller.state(TP).isr().contains(broker)
                && gauge(LEADER, ReplicationMetrics.UNDER_REPLICATED_PARTITIONS).equals(0));
    }

    private Optional<IsrProposal> pendingIsrChange() {
        return cluster.broker(LEADER).replicaManager.partition(TP).orElseThrow()
                .withLeaderState(state -> state.pendingIsrChange().orElse(null));
    }

    private Log leaderLog() {
        return cluster.broker(LEADER).log(TP);
    }

    private FollowerStatusView status(int broker) {
        return cluster.broker(broker).replicaManager.followerStatus(TP).orElseThrow();
    }

    private Object gauge(int broker, String name) {
        Gauge<?> gauge = cluster.broker(broker).metrics.getGauges().get(name);
        return gauge.getValue();
    }

    private static List<Long> baseOffsets(Log log) {
        return log.segments().stream().map(LogSegment::baseOffset).toList();
    }

    /** Batch by batch from {@code from} to the leader's log end: the same offsets and the same bytes. */
    static void assertLogsEqualFrom(long from, Log leader, Log follower) {
        long end = leader.logEndOffset();
        assertEquals(end, follower.logEndOffset());
        long offset = from;
        while (offset < end) {
            RecordBatch expected = firstBatch(leader, offset);
            RecordBatch actual = firstBatch(follower, offset);
            assertEquals(expected.baseOffset(), actual.baseOffset(), "batch at " + offset);
            assertArrayEquals(bytes(expected.buffer()), bytes(actual.buffer()), "batch at " + offset);
            offset = expected.nextOffset();
        }
    }

    private static RecordBatch firstBatch(Log log, long offset) {
        try (FetchDataInfo info = log.read(offset, 1, log.logEndOffset(), true)) {
            List<RecordBatch> batches = info.records().toMemoryRecords().batches();
            assertFalse(batches.isEmpty(), "no batch at " + offset + " in " + log);
            return batches.get(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] bytes(ByteBuffer buffer) {
        ByteBuffer copy = buffer.duplicate();
        byte[] out = new byte[copy.remaining()];
        copy.get(out);
        return out;
    }

    /** A bounded wait polled often: the in-JVM cluster reacts within milliseconds. */
    private static ConditionFactory await(Duration atMost) {
        return Awaitility.await().atMost(atMost).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5));
    }
}
