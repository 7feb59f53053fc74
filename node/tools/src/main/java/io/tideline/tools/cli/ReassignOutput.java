package io.tideline.tools.cli;

import io.tideline.client.PartitionReassignment;
import io.tideline.client.ReassignmentResult;
import java.util.List;
import java.util.Map;

/**
 * The {@code --output json} documents of {@code reassign-partitions}, one per action (docs/cli.md shows each).
 * As for the other admin commands, fields keep their names and order and new ones go at the end. The
 * reassignment documents embedded ({@code current}, {@code proposed}, {@code currentAssignment}) are Kafka's
 * reassignment JSON as objects, so they can be written to a file and given back to --execute.
 */
final class ReassignOutput {
    private ReassignOutput() {
    }

    record Generate(Map<String, Object> current, Map<String, Object> proposed) {
    }

    /** {@code throttle} is -1 without --throttle; {@code topicThrottles}: the throttled-replica lists set. */
    record Execute(Map<String, Object> currentAssignment, long throttle, Map<String, Map<String, String>> topicThrottles,
                   List<Integer> throttledBrokers, List<Outcome> partitions) {
    }

    /** The cluster's answer for one partition: {@code replicas} is the target (empty for a cancel). */
    record Outcome(String topic, int partition, List<Integer> replicas, String error, String message) {
        static Outcome of(ReassignmentResult r, List<Integer> replicas) {
            return new Outcome(r.partition().topic(), r.partition().partition(), replicas, r.error().name(),
                    r.message() == null ? "" : r.message());
        }
    }

    /**
     * {@code status}: COMPLETED, IN_PROGRESS, or REPLICAS_DIFFER (no reassignment in progress, but the replicas
     * are not the target). {@code addingReplicas}: the progress of each replica being added (IN_PROGRESS only).
     */
    record Verified(String topic, int partition, String status, List<Integer> currentReplicas,
                    List<Integer> targetReplicas, List<ReplicaProgress.Json> addingReplicas) {
    }

    /**
     * {@code reassignmentsInProgress}: any in the cluster, not only the file's; throttles are cleared only when
     * there are none (and without --preserve-throttles).
     */
    record Verify(List<Verified> partitions, boolean reassignmentsInProgress, boolean throttlesCleared,
                  List<Integer> clearedBrokers, List<String> clearedTopics) {
    }

    /** {@code cancelled}: the partitions of the file that had a reassignment in progress. */
    record Cancel(List<Outcome> cancelled, boolean throttlesCleared, List<Integer> clearedBrokers,
                  List<String> clearedTopics) {
    }

    record Listed(List<Ongoing> reassignments) {
    }

    record Ongoing(String topic, int partition, List<Integer> replicas, List<Integer> addingReplicas,
                   List<Integer> removingReplicas) {
        static Ongoing of(PartitionReassignment r) {
            return new Ongoing(r.partition().topic(), r.partition().partition(), r.replicas(), r.addingReplicas(),
                    r.removingReplicas());
        }
    }
}
