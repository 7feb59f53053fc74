package io.tideline.cluster.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Gauge;
import io.tideline.client.PartitionReplicas;
import io.tideline.client.ReplicaDescription;
import io.tideline.client.ReplicaState;
import io.tideline.client.TidelineAdmin;
import io.tideline.cluster.harness.ClusterHarness;
import io.tideline.cluster.history.History;
import io.tideline.cluster.history.HistoryChecker;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.replication.fetcher.FollowerStatusView;
import io.tideline.replication.follower.ReplicaStatus;
import io.tideline.replication.metrics.ReplicationMetrics;
import io.tideline.store.log.Log;
import io.tideline.store.segment.LogSegment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 2 of docs/testing.md, "Scenarios": scenario 1's follower cut off past the leader's retention, under
 * {@code replica.fetch.out.of.range.policy=rebuild} (docs/behaviours.md B42, B43). After the heal its fetch
 * gets OFFSET_OUT_OF_RANGE, it truncates fully, restarts at the leader's log start offset, catches up
 * (REBUILDING) and rejoins the ISR by itself, never FAILED; then the partition is fully replicated and the
 * history checker passes.
 *
 * <p>A rebuild of what retention left (one or two small segments) takes one fetch round trip, too short for
 * an admin poll to see. So the healed link is given a delay: every fetch round trip of node 3 then lasts at
 * least twice the delay, and REBUILDING, which holds from the OFFSET_OUT_OF_RANGE answer to the append that
 * reaches the target, lasts at least that long. A sampler thread also records every status node 3's own
 * fetcher publishes, which no poll interval can miss between two fetches.
 */
@ExtendWith(DumpClusterStateOnFailure.class)
class RebuildPolicyScenarioTest {
    private static final String TOPIC = "rebuild";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int LEADER = 1;
    private static final int CUT = 3;
    /** Each way, so a fetch round trip of node 3 takes at least 2 s after the heal. */
    private static final Duration HEALED_LINK_DELAY = Duration.ofSeconds(1);

    @TempDir
    Path dir;
    ClusterHarness cluster;
    private TidelineAdmin admin;
    private final History history = new History();
    private StatusSampler sampler;

    @AfterEach
    void close() throws InterruptedException {
        if (sampler != null) {
            sampler.close();
        }
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void followerCutOffPastRetentionRebuildsItselfAndRejoinsTheIsr() throws Exception {
        cluster = ClusterHarness.start(dir, 3, Map.of(
                "replica.lag.time.max.ms", 1000,
                "log.retention.check.interval.ms", 200));
        admin = new TidelineAdmin(Map.of("bootstrap.servers", cluster.bootstrapServers()));
        var created = admin.createTopic(TOPIC, Map.of(0, List.of(LEADER, 2, CUT)), Map.of(
                "segment.bytes", "2048",
                "retention.ms", "1500",
                "file.delete.delay.ms", "200",
                "min.insync.replicas", "2",
                "replica.fetch.out.of.range.policy", "rebuild"));
        assertEquals(Errors.NONE, created.error(), created.toString());
        Awaitility.await("all three in sync").atMost(Duration.ofSeconds(20))
                .until(() -> image().getIsrCount() == 3 && image().getLeader() == LEADER);
        sampler = new StatusSampler(cluster, CUT, TP);

        try (ProduceLoop producer = new ProduceLoop(cluster.bootstrapServers(), TP, history, "v")) {
            Awaitility.await("first records replicated to node 3").atMost(Duration.ofSeconds(20))
                    .until(() -> log(CUT).logEndOffset() >= 20);
            cluster.replicationProxy(CUT, LEADER).cut();
            Awaitility.await("node 3 out of the ISR").atMost(Duration.ofSeconds(20))
                    .until(() -> !image().getIsrList().contains(CUT));
            probe().sample(List.of(LEADER, 2, CUT));
            Awaitility.await("retention on 1 and 2 deleted past node 3's log end").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100)).until(() -> {
                        long behind = log(CUT).logEndOffset();
                        return log(LEADER).logStartOffset() > behind && log(2).logStartOffset() > behind;
                    });
            assertTrue(producer.acknowledged() > 0, "acks=all produces kept succeeding with ISR {1,2}");
            // Retention has left little but the active segment: switch it off and write more, so the rebuild
            // has a real amount to copy and the log start offset holds still from here to the final read.
            admin.alterTopicConfigs(TOPIC, Map.of("retention.ms", "-1"), List.of());
            Awaitility.await("retention.ms=-1 applied everywhere").atMost(Duration.ofSeconds(10))
                    .until(() -> List.of(LEADER, 2, CUT).stream().allMatch(b -> log(b).config().retentionMs() == -1));
            long acknowledged = producer.acknowledged();
            Awaitility.await("30 more records while node 3 is cut").atMost(Duration.ofSeconds(20))
                    .until(() -> producer.acknowledged() >= acknowledged + 30);
        }
        probe().sample(List.of(LEADER, 2, CUT));
        long cutLogEnd = log(CUT).logEndOffset();
        long leaderStartAtHeal = log(LEADER).logStartOffset();
        long leaderEndAtHeal = log(LEADER).logEndOffset();
        List<Long> oldSegments = log(CUT).segments().stream().map(LogSegment::baseOffset).toList();
        assertEquals(0, offsetOutOfRangeAnswers(), "no OFFSET_OUT_OF_RANGE answer while the link was cut");
        assertFalse(sampler.seen().contains(ReplicaStatus.REBUILDING), sampler.seen().toString());

        cluster.replicationProxy(CUT, LEADER).heal();
        cluster.replicationProxy(CUT, LEADER).delay(HEALED_LINK_DELAY);

        AtomicReference<ReplicaDescription> rebuilding = new AtomicReference<>();
        Awaitility.await("describeReplicas shows node 3 REBUILDING").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100)).until(() -> {
                    ReplicaDescription three = replica(CUT);
                    assertFalse(three.state() == ReplicaState.FAILED, "FAILED under policy rebuild: " + three);
                    if (three.state() == ReplicaState.REBUILDING) {
                        rebuilding.set(three);
                        return true;
                    }
                    return false;
                });
        ReplicaDescription.Rebuild progress = rebuilding.get().rebuild().orElseThrow(
                () -> new AssertionError("REBUILDING without progress: " + rebuilding.get()));
        // It restarted at the leader's log start offset, above everything it had, and copies to the leader's
        // high watermark (nothing is produced after the cut ends, so at most the leader's log end of then).
        assertTrue(progress.startOffset() >= leaderStartAtHeal && progress.startOffset() > cutLogEnd,
                progress + " after a cut at " + cutLogEnd + " with the leader at [" + leaderStartAtHeal + ", "
                        + leaderEndAtHeal + ")");
        assertTrue(progress.targetOffset() >= progress.startOffset() + 30 && progress.targetOffset() <= leaderEndAtHeal,
                progress.toString());
        assertTrue(offsetOutOfRangeAnswers() > 0, "the leader answered node 3's fetch with OFFSET_OUT_OF_RANGE");
        // Seen: the delay off, so that the copy (one segment of the leader's per fetch) goes at full speed.
        cluster.replicationProxy(CUT, LEADER).heal();

        Awaitility.await("node 3 rebuilt and back in the ISR").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                    assertEquals(Set.of(LEADER, 2, CUT), new HashSet<>(image().getIsrList()));
                    assertEquals(0, probe().underReplicated(LEADER));
                    ReplicaDescription three = replica(CUT);
                    assertEquals(ReplicaState.IN_SYNC, three.state(), three.toString());
                });
        // Its own fetcher went FETCHING -> REBUILDING -> FETCHING, and never FAILED.
        List<ReplicaStatus> seen = sampler.seen();
        assertEquals(List.of(ReplicaStatus.FETCHING, ReplicaStatus.REBUILDING, ReplicaStatus.FETCHING), seen,
                "node 3's statuses " + seen);
        assertEquals(0, metric(CUT, ReplicationMetrics.FETCHER_FAILED_PARTITIONS), "no FAILED partition on node 3");

        // The full truncation: nothing of its old log is left, in its segments or on disk.
        Log rebuilt = log(CUT);
        assertTrue(rebuilt.logStartOffset() >= progress.startOffset(), rebuilt.logStartOffset() + " " + progress);
        List<Long> bases = rebuilt.segments().stream().map(LogSegment::baseOffset).toList();
        assertTrue(bases.stream().allMatch(b -> b >= progress.startOffset()),
                "segments " + bases + " after a rebuild from " + progress.startOffset() + " (before: " + oldSegments + ")");
        Awaitility.await("node 3's old segment files unlinked").atMost(Duration.ofSeconds(10))
                .until(() -> segmentFileBases(rebuilt.dir()).stream().allMatch(b -> b >= progress.startOffset()));

        try (ProduceLoop producer = new ProduceLoop(cluster.bootstrapServers(), TP, history, "after-heal-")) {
            Awaitility.await("records after the heal").atMost(Duration.ofSeconds(20))
                    .until(() -> producer.acknowledged() >= 50);
        }
        var result = probe().finalReadAndCheck(List.of(LEADER, 2, CUT), HistoryChecker.lenient());
        assertTrue(result.acknowledged() >= 50 && result.consumed() >= 50, result.report());
        assertTrue(result.deletedByRetention() > 0, result.report());
    }

    /** Base offsets of the {@code .log} files in a partition directory, {@code .deleted} ones included. */
    static List<Long> segmentFileBases(Path partitionDir) throws IOException {
        try (Stream<Path> files = Files.list(partitionDir)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".log") || n.endsWith(".log.deleted"))
                    .map(n -> Long.parseLong(n.substring(0, n.indexOf('.'))))
                    .sorted().toList();
        }
    }

    private long offsetOutOfRangeAnswers() {
        return metric(LEADER, ReplicationMetrics.partitionMetric("OffsetOutOfRangeCount", TP));
    }

    private long metric(int broker, String name) {
        Gauge<?> gauge = cluster.node(broker).metrics().getGauges().get(name);
        return ((Number) gauge.getValue()).longValue();
    }

    private PartitionProbe probe() {
        return new PartitionProbe(cluster, TP, history);
    }

    private Log log(int broker) {
        return probe().log(broker);
    }

    private PartitionRecord image() {
        return probe().image(LEADER);
    }

    private ReplicaDescription replica(int broker) {
        PartitionReplicas replicas = admin.describeReplicas(List.of(TP)).get(TP);
        return replicas.replicas().stream().filter(r -> r.brokerId() == broker).findFirst()
                .orElseThrow(() -> new AssertionError("no replica " + broker + " in " + replicas));
    }

    /**
     * Records each status change of one follower replica as its fetcher publishes it (polled every
     * millisecond, on a status view the fetcher replaces after every change), collapsing repeats.
     */
    private static final class StatusSampler implements AutoCloseable {
        private final List<ReplicaStatus> seen = new CopyOnWriteArrayList<>();
        private final Thread thread;
        private volatile boolean stopped;

        StatusSampler(ClusterHarness cluster, int broker, TopicPartition tp) {
            thread = new Thread(() -> {
                while (!stopped) {
                    cluster.node(broker).replicaManager().fetcherManager().status(tp).map(FollowerStatusView::status)
                            .ifPresent(s -> {
                                if (seen.isEmpty() || seen.get(seen.size() - 1) != s) {
                                    seen.add(s);
                                }
                            });
                    try {
                        Thread.sleep(1); // pacing of the sampler, not a wait for a condition
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "status-sampler-" + broker);
            thread.setDaemon(true);
            thread.start();
        }

        List<ReplicaStatus> seen() {
            return List.copyOf(seen);
        }

        @Override
        public void close() throws InterruptedException {
            stopped = true;
            thread.join(5_000);
        }
    }
}
