package io.tideline.tools.cli;

import io.tideline.client.PartitionReassignment;
import io.tideline.client.PartitionReplicas;
import io.tideline.client.TidelineClientException;
import io.tideline.client.TidelineAdmin;
import io.tideline.common.TopicPartition;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code reassign-partitions --verify}: Kafka's status lines per partition of the file, the progress of each
 * replica being added (a Tideline addition, from describeReplicas), and the clearing of the throttles once no reassignment is in
 * progress anywhere in the cluster (docs/behaviours.md).
 */
final class ReassignVerification {
    static final String COMPLETED = "COMPLETED";
    static final String IN_PROGRESS = "IN_PROGRESS";
    static final String REPLICAS_DIFFER = "REPLICAS_DIFFER";

    /** Throttles cleared ({@code done}) on these brokers and topics, or kept ({@code done} false, lists empty). */
    record Cleared(boolean done, List<Integer> brokers, List<String> topics) {
    }

    private final AdminCommand admin;
    private final TidelineAdmin client;
    private final ReassignmentCluster cluster;

    ReassignVerification(AdminCommand admin, TidelineAdmin client) {
        this.admin = admin;
        this.client = client;
        this.cluster = new ReassignmentCluster(client);
    }

    int verify(Map<TopicPartition, List<Integer>> targets, boolean preserveThrottles) {
        Map<TopicPartition, List<Integer>> current = cluster.partitionAssignments(targets.keySet());
        Map<TopicPartition, PartitionReassignment> ongoing = client.listPartitionReassignments(List.of());
        long now = admin.time.milliseconds();
        PrintStream out = admin.io.out();
        List<ReassignOutput.Verified> verified = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        lines.add("Status of partition reassignment:");
        Map<TopicPartition, List<Integer>> sorted = new TreeMap<>(ReassignmentJson.ORDER);
        sorted.putAll(targets);
        Map<TopicPartition, PartitionReplicas> progress = progress(sorted.keySet().stream()
                .filter(ongoing::containsKey).toList());
        for (Map.Entry<TopicPartition, List<Integer>> e : sorted.entrySet()) {
            TopicPartition tp = e.getKey();
            List<Integer> target = e.getValue();
            PartitionReassignment moving = ongoing.get(tp);
            if (moving != null) {
                lines.add("Reassignment of partition " + tp + " is still in progress.");
                lines.addAll(ReplicaProgress.lines(progress.get(tp), moving.addingReplicas(), now));
                verified.add(new ReassignOutput.Verified(tp.topic(), tp.partition(), IN_PROGRESS, moving.replicas(),
                        target, ReplicaProgress.json(progress.get(tp), moving.addingReplicas(), now)));
            } else if (current.get(tp).equals(target)) {
                lines.add("Reassignment of partition " + tp + " is completed.");
                verified.add(new ReassignOutput.Verified(tp.topic(), tp.partition(), COMPLETED, current.get(tp),
                        target, List.of()));
            } else {
                lines.add("There is no active reassignment of partition " + tp + ", but replica set is "
                        + ReassignPartitionsCommand.ids(current.get(tp)) + " rather than "
                        + ReassignPartitionsCommand.ids(target) + ".");
                verified.add(new ReassignOutput.Verified(tp.topic(), tp.partition(), REPLICAS_DIFFER, current.get(tp),
                        target, List.of()));
            }
        }
        if (!admin.json()) {
            lines.forEach(out::println);
            // Kafka's tool prints its (here always empty) list of log directory moves next.
            out.println();
        }
        Cleared cleared = preserveThrottles ? new Cleared(false, List.of(), List.of()) : clearWhenIdle(targets, ongoing);
        if (admin.json()) {
            out.println(JsonOutput.write(new ReassignOutput.Verify(verified, !ongoing.isEmpty(), cleared.done(),
                    cleared.brokers(), cleared.topics())));
        }
        return Cli.EXIT_OK;
    }

    /**
     * The replica states of the partitions in progress, in one describeReplicas call. The progress lines are an
     * addition to Kafka's: when no broker could describe them, each adding replica says why instead of failing
     * the verification.
     */
    private Map<TopicPartition, PartitionReplicas> progress(List<TopicPartition> inProgress) {
        if (inProgress.isEmpty()) {
            return Map.of();
        }
        try {
            return client.describeReplicas(inProgress);
        } catch (TidelineClientException e) {
            Map<TopicPartition, PartitionReplicas> unknown = new TreeMap<>(ReassignmentJson.ORDER);
            inProgress.forEach(tp -> unknown.put(tp, new PartitionReplicas(tp, e.error(), Cli.firstLine(e.getMessage()),
                    -1, -1, -1, -1, -1, List.of(), List.of())));
            return unknown;
        }
    }

    /**
     * Kafka's rule: throttles are cleared only when no reassignment is in progress in the whole cluster (the
     * broker-level rates are shared by every move, so another reassignment still needs them), on every broker
     * of the cluster, and on every topic of the file. Prints Kafka's two lines.
     */
    Cleared clearWhenIdle(Map<TopicPartition, List<Integer>> targets, Map<TopicPartition, PartitionReassignment> ongoing) {
        if (!ongoing.isEmpty()) {
            return new Cleared(false, List.of(), List.of());
        }
        // Kafka adds the targets' brokers to the cluster's; only registered brokers have configs to clear.
        Set<Integer> brokers = cluster.brokerIds();
        Set<String> topics = new TreeSet<>();
        targets.keySet().forEach(tp -> topics.add(tp.topic()));
        ReassignThrottles throttles = new ReassignThrottles(client);
        if (!admin.json()) {
            admin.io.out().println(ReassignThrottles.brokersLine(brokers));
        }
        throttles.clearBrokerRates(brokers);
        if (!admin.json()) {
            admin.io.out().println(ReassignThrottles.topicsLine(topics));
        }
        throttles.clearTopicThrottles(topics);
        return new Cleared(true, List.copyOf(brokers), List.copyOf(topics));
    }
}
