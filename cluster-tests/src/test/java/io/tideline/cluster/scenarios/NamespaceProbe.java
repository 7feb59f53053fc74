package io.tideline.cluster.scenarios;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.TopicDescription;
import io.tideline.cluster.harness.ReplicaLogReader;
import io.tideline.cluster.history.CheckResult;
import io.tideline.cluster.history.History;
import io.tideline.cluster.history.HistoryChecker;
import io.tideline.cluster.netns.DriverClient;
import io.tideline.cluster.netns.DriverClient.ReplicaBounds;
import io.tideline.cluster.netns.NamespaceCluster;
import io.tideline.cluster.netns.NamespaceNode;
import io.tideline.cluster.netns.StoppedReplicaLogs;
import io.tideline.common.TopicPartition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;

/**
 * What the network-namespace scenarios read of one partition of a {@link NamespaceCluster}, all through the
 * driver (the Java client in the namespace) and the nodes' {@code /metrics}, and the end of each scenario: the
 * final read, the nodes stopped, each replica's log read from its files, the checker.
 */
final class NamespaceProbe {
    /** This module's directory is the working directory of its tests; the repository is its parent. */
    static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();

    private final NamespaceCluster cluster;
    private final DriverClient driver;
    private final TopicPartition tp;
    private final History history;

    NamespaceProbe(NamespaceCluster cluster, DriverClient driver, TopicPartition tp, History history) {
        this.cluster = cluster;
        this.driver = driver;
        this.tp = tp;
        this.history = history;
    }

    /** The partition as node {@code via}'s metadata image has it (describeTopics answered by that node). */
    TopicDescription.PartitionDescription partition(int via) {
        TopicDescription topic = driver.describeTopic(cluster.node(via), tp.topic());
        return topic.partitions().stream().filter(p -> p.partition() == tp.partition()).findFirst()
                .orElseThrow(() -> new AssertionError("no " + tp + " in " + topic));
    }

    Map<Integer, ReplicaBounds> bounds() {
        return driver.replicaBounds(tp);
    }

    /** Broker {@code broker}'s replica bounds; fails when it did not report one. */
    ReplicaBounds bounds(int broker) {
        ReplicaBounds b = bounds().get(broker);
        if (b == null) {
            throw new AssertionError("broker " + broker + " reported no replica of " + tp);
        }
        return b;
    }

    /**
     * A gauge or counter of node {@code node}'s /metrics, by its Prometheus name and labels (in any order; none
     * for a metric without labels).
     */
    double metric(int node, String name, Map<String, String> labels) {
        String text = driver.metrics(cluster.node(node));
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{([^}]*)})? (\\S+)$").matcher(text);
        while (m.find()) {
            String found = m.group(2) == null ? "" : m.group(2);
            if (labels.entrySet().stream().allMatch(l -> found.contains(l.getKey() + "=\"" + l.getValue() + "\""))) {
                return Double.parseDouble(m.group(3));
            }
        }
        throw new AssertionError("no " + name + labels + " in node " + node + "'s /metrics");
    }

    /** The leader's UnderReplicatedPartitions gauge, from its /metrics. */
    int underReplicated(int node) {
        return (int) metric(node, "kafka_server_replicamanager_underreplicatedpartitions", Map.of());
    }

    /** Records each answering broker's high watermark and log start offset. */
    void sample() {
        bounds().values().forEach(b -> history.replicaSample(b.broker(), tp, b.highWatermark(), b.logStartOffset()));
    }

    /**
     * The end of a scenario, healed and with nothing producing: waits until every replica of {@code replicas}
     * has the leader's high watermark (its log end), samples, reads the partition in full into the history,
     * stops every node the orderly way, records each replica's log as its files hold it, and runs the checker.
     */
    CheckResult finalReadAndCheck(List<Integer> replicas, HistoryChecker checker) throws Exception {
        Awaitility.await("every replica has the leader's high watermark").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500)).until(() -> {
                    Map<Integer, ReplicaBounds> all = bounds();
                    if (!all.keySet().containsAll(replicas)) {
                        return false;
                    }
                    long leo = all.values().stream().mapToLong(ReplicaBounds::logEndOffset).max().orElseThrow();
                    return replicas.stream().allMatch(b -> all.get(b).highWatermark() == leo
                            && all.get(b).logEndOffset() == leo);
                });
        sample();
        driver.finalRead(tp);
        cluster.stopAll();
        for (int b : replicas) {
            ReplicaLogReader.Snapshot own = StoppedReplicaLogs.read(cluster.node(b), tp);
            history.replicaLog(b, tp, own.logStartOffset(), own.highWatermark(), own.entries());
        }
        CheckResult result = checker.check(history);
        System.out.println(result.report());
        result.assertValid();
        assertTrue(result.consumed() > 0 || result.acknowledged() == 0, result.report());
        return result;
    }

    /** The cluster's state and the end of each node's log, for a failed test. */
    static String dump(NamespaceCluster cluster) {
        StringBuilder sb = new StringBuilder(cluster.describe());
        for (NamespaceNode n : cluster.nodes()) {
            sb.append("\n--- node ").append(n.id()).append(" log (end) ---\n")
                    .append(NamespaceCluster.tail(n.output(), 60));
        }
        return sb.toString();
    }

    static boolean allIn(Collection<Integer> isr, List<Integer> expected) {
        return isr.size() == expected.size() && isr.containsAll(expected);
    }
}
