package io.tideline.tools.cli;

import io.tideline.client.TopicDescription;
import io.tideline.client.TopicDescription.FailedReplica;
import io.tideline.client.TopicDescription.PartitionDescription;
import io.tideline.common.errors.Errors;
import java.io.PrintStream;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The text of {@code topics --describe}, laid out as Kafka's {@code kafka-topics.sh} does: a line per
 * topic, then a tab-indented line per partition with tab-separated {@code Key: value} fields.
 *
 * <pre>
 * Topic: orders	TopicId: 3f9c...	PartitionCount: 2	ReplicationFactor: 3	Configs: min.insync.replicas=2
 * 	Topic: orders	Partition: 0	Leader: 1	Replicas: 1,2,3	Isr: 1,2,3
 * 	Topic: orders	Partition: 1	Leader: none	Replicas: 2,3,1	Isr: 2	Offline: 2,3	Failed: 3 (KAFKA_STORAGE_ERROR since 2023-11-14T22:13:20Z)
 * </pre>
 *
 * {@code Offline}, {@code Failed} (replicas a broker reported as failed, with the reason) and
 * {@code Error} appear only when there is something to say. With {@code --under-replicated-partitions}
 * only the partition lines of under-replicated partitions are printed, as Kafka does.
 */
final class TopicsOutput {

    private TopicsOutput() {
    }

    static void printTopic(PrintStream out, TopicDescription topic) {
        Map<String, String> configs = new TreeMap<>(topic.configs());
        out.println("Topic: " + topic.name() + "\tTopicId: " + topic.topicId() + "\tPartitionCount: "
                + topic.partitions().size() + "\tReplicationFactor: " + replicationFactor(topic) + "\tConfigs: "
                + configs.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(",")));
    }

    static void printPartition(PrintStream out, String topic, PartitionDescription p) {
        StringBuilder line = new StringBuilder("\tTopic: ").append(topic)
                .append("\tPartition: ").append(p.partition())
                .append("\tLeader: ").append(p.leader() < 0 ? "none" : Integer.toString(p.leader()))
                .append("\tReplicas: ").append(ids(p.replicas()))
                .append("\tIsr: ").append(ids(p.isr()));
        if (!p.offlineReplicas().isEmpty()) {
            line.append("\tOffline: ").append(ids(p.offlineReplicas()));
        }
        if (!p.failedReplicas().isEmpty()) {
            line.append("\tFailed: ").append(p.failedReplicas().stream().map(TopicsOutput::failed)
                    .collect(Collectors.joining(",")));
        }
        if (p.error() != Errors.NONE) {
            line.append("\tError: ").append(p.error());
        }
        out.println(line);
    }

    /** Kafka's rule: the replica count of the first partition (all partitions of a new topic share it). */
    static int replicationFactor(TopicDescription topic) {
        return topic.partitions().isEmpty() ? 0 : topic.partitions().get(0).replicas().size();
    }

    private static String failed(FailedReplica f) {
        return f.brokerId() + " (" + f.reason() + " since " + Instant.ofEpochMilli(f.sinceMs()) + ")";
    }

    private static String ids(List<Integer> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
