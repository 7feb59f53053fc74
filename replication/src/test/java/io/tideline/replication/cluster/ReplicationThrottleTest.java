package io.tideline.replication.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.ThreadPoolScheduler;
import io.tideline.common.time.Time;
import io.tideline.replication.fetcher.ReplicationQuota;
import io.tideline.replication.server.PartitionSettings;
import io.tideline.replication.server.ProduceResult;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Throttled catch-up: the throttle bounds catch-up bytes/s within 20% of the configured rate;
 * a follower cut off while about 4 MB arrive catches up at the leader's or its own throttled rate. This
 * measures a rate, so it runs on the real clock; replica.fetch.max.bytes is small so one fetch is a small
 * part of a second.
 */
class ReplicationThrottleTest {
    private static final TopicPartition TP = new TopicPartition("reassigned", 0);
    private static final long RATE = 1_000_000L;
    /** 256 batches of 16 records of 1,000 bytes: about 4.1 MB to catch up. */
    private static final int BATCHES = 256;
    private static final int WARM_UP_BATCHES = 16;
    private static final int FETCH_MAX_BYTES = 64 * 1024;
    private static final int RECORDS_PER_BATCH = 16;
    private static final int VALUE_BYTES = 1000;

    @TempDir
    Path dir;

    @Test
    void leaderThrottleBoundsCatchUpOfAnOutOfSyncFollower() throws Exception {
        double rate = catchUpRate("leader.replication.throttled.rate", PartitionSettings.defaults().withThrottles(true, false),
                true);
        assertWithinTwentyPercent(rate);
    }

    @Test
    void followerThrottleBoundsItsCatchUp() throws Exception {
        double rate = catchUpRate("follower.replication.throttled.rate", PartitionSettings.defaults().withThrottles(false, true),
                false);
        assertWithinTwentyPercent(rate);
    }

    /** Bytes per second the follower (broker 2) appended from the heal of its link until it caught up. */
    private double catchUpRate(String rateKey, PartitionSettings settings, boolean leaderSide) throws Exception {
        Map<String, Object> replication = Map.of(rateKey, RATE, "replica.fetch.max.bytes", FETCH_MAX_BYTES,
                "replica.fetch.backoff.ms", 20, "replica.lag.time.max.ms", 500, "replica.fetch.wait.max.ms", 500);
        try (ThreadPoolScheduler scheduler = new ThreadPoolScheduler("throttle-test", 2);
             ReplicationTestCluster cluster = new ReplicationTestCluster(2, dir, Time.SYSTEM, scheduler, Map.of(),
                     replication)) {
            cluster.createPartition(TP, List.of(1, 2), settings);
            TestBroker leader = cluster.broker(1);
            TestBroker follower = cluster.broker(2);
            // Replicate a little first: the first fetch through a cold fetch path (JIT) takes hundreds of
            // milliseconds, which would be charged to the throttle otherwise.
            produce(cluster, WARM_UP_BATCHES, -1);
            follower.cutLinkTo(1);
            produce(cluster, BATCHES, 1);
            // Behind and not fetching, the follower leaves the ISR after replica.lag.time.max.ms: the
            // leader throttles only followers that are not in sync (Kafka's rule).
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> cluster.controller.state(TP).isr().equals(List.of(1)));
            long leaderEnd = leader.log(TP).logEndOffset();
            ReplicationQuota quota = leaderSide ? leader.replicaManager.leaderQuota() : follower.replicaManager.followerQuota();
            long recordedBefore = quota.totalRecorded();
            long sizeBefore = follower.log(TP).size();

            long fetchesBefore = follower.sentFetches(1);
            long start = System.nanoTime();
            follower.healLinkTo(1);
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5))
                    .until(() -> follower.log(TP).logEndOffset() == leaderEnd);
            long elapsedNs = System.nanoTime() - start;

            long bytes = follower.log(TP).size() - sizeBefore;
            assertTrue(bytes > 3_500_000, "caught up " + bytes + " bytes");
            // The throttle counted what it let through, all of it: the follower was out of sync throughout. The
            // fetcher records an answer's bytes just after appending them, so the last answer's may land a moment
            // after the log end is seen.
            Awaitility.await("the throttle recorded every appended byte").atMost(Duration.ofSeconds(5))
                    .until(() -> quota.totalRecorded() - recordedBefore, recorded -> recorded == bytes);
            assertEquals(bytes, quota.totalRecorded() - recordedBefore);
            // While the throttle holds bytes back the follower waits; it does not spin on empty answers
            // (about two fetches per replica.fetch.max.bytes of data at most).
            long fetches = follower.sentFetches(1) - fetchesBefore;
            assertTrue(fetches <= 4 * bytes / FETCH_MAX_BYTES + 50, fetches + " fetches for " + bytes + " bytes");
            return bytes / (elapsedNs / 1e9);
        }
    }

    private static void produce(ReplicationTestCluster cluster, int batches, int acks) throws Exception {
        byte[] value = new byte[VALUE_BYTES];
        Arrays.fill(value, (byte) 'x');
        for (int b = 0; b < batches; b++) {
            RecordBatchBuilder builder = new RecordBatchBuilder(0L);
            for (int r = 0; r < RECORDS_PER_BATCH; r++) {
                builder.append(System.currentTimeMillis(), new byte[] {(byte) r}, value);
            }
            ProduceResult result = cluster.leader(TP).replicaManager
                    .appendRecords(Map.of(TP, MemoryRecords.of(builder.build())), acks, 10_000)
                    .get(10, TimeUnit.SECONDS).get(TP);
            assertEquals(Errors.NONE, result.error(), result.message());
        }
    }

    private static void assertWithinTwentyPercent(double bytesPerSecond) {
        double deviation = Math.abs(bytesPerSecond - RATE) / RATE;
        assertTrue(deviation <= 0.2, String.format("catch-up ran at %.0f B/s, configured %d B/s (%.0f%% off)",
                bytesPerSecond, RATE, deviation * 100));
    }
}
