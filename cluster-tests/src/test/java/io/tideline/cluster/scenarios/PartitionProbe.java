package io.tideline.cluster.scenarios;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Gauge;
import io.tideline.client.ConsumerRecord;
import io.tideline.client.TidelineConsumer;
import io.tideline.cluster.harness.ClusterHarness;
import io.tideline.cluster.harness.ReplicaLogReader;
import io.tideline.cluster.history.CheckResult;
import io.tideline.cluster.history.History;
import io.tideline.cluster.history.HistoryChecker;
import io.tideline.cluster.history.HistoryEvent.LogEntry;
import io.tideline.common.TopicPartition;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.replication.metrics.ReplicationMetrics;
import io.tideline.store.log.Log;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;

/**
 * What the scenarios read of one partition on a {@link ClusterHarness}, and the end of every scenario: the
 * replicas' watermarks sampled into the {@link History}, a final full read by a consumer, each replica's own log
 * recorded, and the checker run over it all. Reads go to the nodes' objects directly (their logs, images and
 * metrics), so a check sees each node's own view.
 */
final class PartitionProbe {
    private final ClusterHarness cluster;
    private final TopicPartition tp;
    private final History history;

    PartitionProbe(ClusterHarness cluster, TopicPartition tp, History history) {
        this.cluster = cluster;
        this.tp = tp;
        this.history = history;
    }

    TopicPartition partition() {
        return tp;
    }

    History history() {
        return history;
    }

    /** Broker {@code broker}'s local log of the partition; fails when it has none. */
    Log log(int broker) {
        return cluster.node(broker).replicaManager().log(tp).orElseThrow(
                () -> new AssertionError("broker " + broker + " has no log of " + tp));
    }

    /** The partition as node {@code viewer}'s metadata image has it. */
    PartitionRecord image(int viewer) {
        return cluster.node(viewer).image().partition(tp.topic(), tp.partition()).orElseThrow(
                () -> new AssertionError("node " + viewer + "'s image has no " + tp));
    }

    /** The leader as the first running node's image has it (-1 for none). */
    int leader() {
        int viewer = cluster.nodeIds().stream().filter(cluster::isRunning).findFirst().orElseThrow();
        return image(viewer).getLeader();
    }

    /** Node {@code broker}'s UnderReplicatedPartitions gauge (it counts the partitions it leads). */
    int underReplicated(int broker) {
        Gauge<?> gauge = cluster.node(broker).metrics().getGauges().get(ReplicationMetrics.UNDER_REPLICATED_PARTITIONS);
        return ((Number) gauge.getValue()).intValue();
    }

    /** Records each running broker's high watermark and log start offset (for the monotonicity check). */
    void sample(Collection<Integer> brokers) {
        for (int b : brokers) {
            if (cluster.isRunning(b)) {
                cluster.node(b).replicaManager().log(tp)
                        .ifPresent(log -> history.replicaSample(b, tp, log.highWatermark(), log.logStartOffset()));
            }
        }
    }

    /**
     * The end of a scenario, once the cluster is healed and nothing produces any more: waits until every broker
     * of {@code replicas} has the leader's high watermark, samples them, reads the partition from its start to
     * the high watermark into the history, records each replica's own log, and runs {@code checker}. Fails on
     * a violation; returns the result (counts, report) for further assertions.
     */
    CheckResult finalReadAndCheck(List<Integer> replicas, HistoryChecker checker) throws Exception {
        Awaitility.await("every replica has the leader's high watermark").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100)).until(() -> {
                    int leader = leader();
                    if (leader < 0 || !cluster.isRunning(leader)) {
                        return false;
                    }
                    long hw = log(leader).highWatermark();
                    return hw == log(leader).logEndOffset()
                            && replicas.stream().allMatch(b -> log(b).highWatermark() == hw);
                });
        sample(replicas);
        try (TidelineConsumer consumer = new TidelineConsumer(Map.of("bootstrap.servers", cluster.bootstrapServers(),
                "auto.offset.reset", "earliest"))) {
            consumer.setOffsetResetListener((p, from, to, skipped) -> history.toldLogStartOffset("final", p, to));
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long start = consumer.beginningOffsets(List.of(tp)).get(tp);
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            List<LogEntry> entries = new ArrayList<>();
            Awaitility.await("final read up to the high watermark").atMost(Duration.ofSeconds(30))
                    .pollDelay(Duration.ZERO).untilAsserted(() -> {
                        for (ConsumerRecord r : consumer.poll(Duration.ofMillis(200))) {
                            String value = new String(r.value(), StandardCharsets.UTF_8);
                            history.consumed("final", tp, r.offset(), value);
                            entries.add(new LogEntry(r.offset(), value));
                        }
                        long position = consumer.position(tp);
                        assertTrue(position >= end, "read " + entries.size() + " records of [" + start + ", " + end
                                + "), at " + position);
                    });
            history.finalRead(tp, start, end, entries);
        }
        for (int b : replicas) {
            ReplicaLogReader.Snapshot own = ReplicaLogReader.read(log(b));
            history.replicaLog(b, tp, own.logStartOffset(), own.highWatermark(), own.entries());
        }
        CheckResult result = checker.check(history);
        System.out.println(result.report());
        result.assertValid();
        assertTrue(result.consumed() > 0 || result.acknowledged() == 0, result.report());
        return result;
    }
}
