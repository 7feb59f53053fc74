package io.tideline.tools.cli;

import io.tideline.client.PartitionReassignment;
import io.tideline.client.ReassignmentResult;
import io.tideline.client.TidelineAdmin;
import io.tideline.common.TopicPartition;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** {@code reassign-partitions --execute} and {@code --cancel}: Kafka's checks, calls and lines. */
final class ReassignExecution {
    static final String EXISTING_REASSIGNMENT = "Cannot execute because there is an existing partition assignment.  "
            + "Use --additional to override this and create a new partition assignment in addition to the existing "
            + "one. The --additional flag can also be used to change the throttle by resubmitting the current "
            + "reassignment.";
    static final String RUN_VERIFY = "Warning: You must run --verify periodically, until the reassignment completes, "
            + "to ensure the throttle is removed.";

    private final AdminCommand admin;
    private final TidelineAdmin client;
    private final ReassignmentCluster cluster;

    ReassignExecution(AdminCommand admin, TidelineAdmin client) {
        this.admin = admin;
        this.client = client;
        this.cluster = new ReassignmentCluster(client);
    }

    int execute(Map<TopicPartition, List<Integer>> targets, long throttle, boolean additional) {
        Map<TopicPartition, PartitionReassignment> ongoing = client.listPartitionReassignments(List.of());
        if (!additional && !ongoing.isEmpty()) {
            throw CliException.failed(EXISTING_REASSIGNMENT);
        }
        cluster.checkBrokers(targets.values());
        Map<TopicPartition, List<Integer>> current = cluster.partitionAssignments(targets.keySet());
        PrintStream out = admin.io.out();
        boolean text = !admin.json();
        if (text) {
            out.println("Current partition replica assignment");
            out.println();
            out.println(ReassignmentJson.format(current));
            out.println();
            out.println("Save this to use as the --reassignment-json-file option during rollback");
        }
        Map<String, Map<String, String>> topicThrottles = Map.of();
        Set<Integer> throttledBrokers = Set.of();
        if (throttle >= 0) {
            if (text) {
                out.println(RUN_VERIFY);
            }
            Map<TopicPartition, ReassignmentPlanner.Move> moves = ReassignmentPlanner.moves(ongoing, targets, current);
            ReassignThrottles throttles = new ReassignThrottles(client);
            topicThrottles = throttles.setTopicThrottles(moves);
            throttledBrokers = ReassignmentPlanner.brokersInvolved(moves);
            throttles.setBrokerRates(throttledBrokers, throttle);
            if (text) {
                out.println("The inter-broker throttle limit was set to " + throttle + " B/s");
            }
        }
        Map<TopicPartition, Optional<List<Integer>>> request = new LinkedHashMap<>();
        targets.forEach((tp, replicas) -> request.put(tp, Optional.of(replicas)));
        Map<TopicPartition, ReassignmentResult> results = client.alterPartitionReassignments(request);
        List<ReassignmentResult> failed = failures(results);
        if (admin.json()) {
            out.println(JsonOutput.write(new ReassignOutput.Execute(ReassignmentJson.document(current), throttle,
                    topicThrottles, List.copyOf(throttledBrokers), results.values().stream()
                    .map(r -> ReassignOutput.Outcome.of(r, targets.get(r.partition()))).toList())));
        } else if (failed.isEmpty()) {
            out.println("Successfully started partition reassignment" + (targets.size() == 1 ? "" : "s") + " for "
                    + names(targets.keySet()));
        } else {
            out.println("Error reassigning partition(s):");
            failed.forEach(r -> out.println(r.partition() + ": " + r.error() + ": " + r.message()));
        }
        if (!failed.isEmpty()) {
            throw CliException.failed(failed.size() + " of " + results.size() + " partition reassignments failed");
        }
        return Cli.EXIT_OK;
    }

    int cancel(Map<TopicPartition, List<Integer>> targets, boolean preserveThrottles) {
        cluster.partitionAssignments(targets.keySet());
        Set<TopicPartition> active = new TreeSet<>(ReassignmentJson.ORDER);
        active.addAll(client.listPartitionReassignments(targets.keySet()).keySet());
        PrintStream out = admin.io.out();
        List<ReassignOutput.Outcome> outcomes = new ArrayList<>();
        if (!active.isEmpty()) {
            Map<TopicPartition, Optional<List<Integer>>> request = new LinkedHashMap<>();
            active.forEach(tp -> request.put(tp, Optional.empty()));
            Map<TopicPartition, ReassignmentResult> results = client.alterPartitionReassignments(request);
            results.values().forEach(r -> outcomes.add(ReassignOutput.Outcome.of(r, List.of())));
            List<ReassignmentResult> failed = failures(results);
            if (!failed.isEmpty()) {
                if (admin.json()) {
                    out.println(JsonOutput.write(new ReassignOutput.Cancel(outcomes, false, List.of(), List.of())));
                } else {
                    out.println("Error cancelling partition reassignment" + (failed.size() == 1 ? "" : "s") + " for:");
                    failed.forEach(r -> out.println(r.partition() + ": " + r.error() + ": " + r.message()));
                }
                throw CliException.failed(failed.size() + " of " + results.size() + " cancellations failed");
            }
            if (!admin.json()) {
                out.println("Successfully cancelled partition reassignment" + (active.size() == 1 ? "" : "s")
                        + " for: " + names(active));
            }
        } else if (!admin.json()) {
            out.println("None of the specified partition reassignments are active.");
        }
        ReassignVerification.Cleared cleared = preserveThrottles ? null
                : new ReassignVerification(admin, client).clearWhenIdle(targets, awaitGone(active));
        if (admin.json()) {
            out.println(JsonOutput.write(new ReassignOutput.Cancel(outcomes, cleared != null && cleared.done(),
                    cleared == null ? List.of() : cleared.brokers(), cleared == null ? List.of() : cleared.topics())));
        }
        return Cli.EXIT_OK;
    }

    /**
     * The reassignments still in progress in the cluster once the cancelled ones left the answering broker's
     * image (a cancel is applied at once, but that broker may replay it a moment later), within
     * default.api.timeout.ms.
     */
    private Map<TopicPartition, PartitionReassignment> awaitGone(Set<TopicPartition> cancelled) {
        long deadline = admin.time.milliseconds() + ClientSettings.apiTimeoutMs(admin.settings());
        while (true) {
            Map<TopicPartition, PartitionReassignment> ongoing = client.listPartitionReassignments(List.of());
            if (cancelled.stream().noneMatch(ongoing::containsKey) || admin.time.milliseconds() >= deadline) {
                return ongoing;
            }
            admin.time.sleep(100);
        }
    }

    private static List<ReassignmentResult> failures(Map<TopicPartition, ReassignmentResult> results) {
        return results.values().stream().filter(r -> !r.isSuccess())
                .sorted(java.util.Comparator.comparing(ReassignmentResult::partition, ReassignmentJson.ORDER)).toList();
    }

    static String names(java.util.Collection<TopicPartition> partitions) {
        return partitions.stream().sorted(ReassignmentJson.ORDER).map(TopicPartition::toString)
                .collect(Collectors.joining(","));
    }
}
