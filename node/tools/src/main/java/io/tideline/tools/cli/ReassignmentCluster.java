package io.tideline.tools.cli;

import io.tideline.client.ClusterDescription;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TopicDescription;
import io.tideline.client.TopicDescription.PartitionDescription;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What {@code reassign-partitions} reads from the cluster before it changes anything: the brokers, and the
 * replicas of the partitions named. A name the cluster does not know ends the command with Kafka's line
 * and exit 1, before anything was sent.
 */
final class ReassignmentCluster {
    private final TidelineAdmin client;

    ReassignmentCluster(TidelineAdmin client) {
        this.client = client;
    }

    /** Every registered broker id, fenced or not, sorted. */
    Set<Integer> brokerIds() {
        ClusterDescription cluster = client.describeCluster();
        return cluster.brokers().stream().map(ClusterDescription.Broker::id)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** Kafka's check before --execute: every broker a target names is registered. */
    void checkBrokers(Collection<List<Integer>> targets) {
        Set<Integer> known = brokerIds();
        for (List<Integer> replicas : targets) {
            for (int id : replicas) {
                if (!known.contains(id)) {
                    throw CliException.failed("Unknown broker id " + id);
                }
            }
        }
    }

    /** The replicas of every partition of {@code topics}; an unknown topic is Kafka's "Topic t not found.". */
    Map<TopicPartition, List<Integer>> topicAssignments(Collection<String> topics) {
        Map<TopicPartition, List<Integer>> out = new TreeMap<>(ReassignmentJson.ORDER);
        for (TopicDescription t : describe(topics)) {
            for (PartitionDescription p : t.partitions()) {
                out.put(new TopicPartition(t.name(), p.partition()), p.replicas());
            }
        }
        return out;
    }

    /**
     * The current replicas of {@code partitions} (during a reassignment: all of them, original then adding);
     * a partition that does not exist is Kafka's "Unable to find partition: t-9".
     */
    Map<TopicPartition, List<Integer>> partitionAssignments(Collection<TopicPartition> partitions) {
        Set<String> topics = partitions.stream().map(TopicPartition::topic).collect(Collectors.toCollection(TreeSet::new));
        Map<TopicPartition, List<Integer>> all = topicAssignments(topics);
        Map<TopicPartition, List<Integer>> out = new TreeMap<>(ReassignmentJson.ORDER);
        List<String> missing = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            List<Integer> replicas = all.get(tp);
            if (replicas == null) {
                missing.add(tp.toString());
            } else {
                out.put(tp, replicas);
            }
        }
        if (!missing.isEmpty()) {
            throw CliException.failed("Unable to find partition: " + String.join(", ", missing));
        }
        return out;
    }

    private List<TopicDescription> describe(Collection<String> topics) {
        List<TopicDescription> described = client.describeTopics(List.copyOf(topics));
        for (TopicDescription t : described) {
            if (t.error() == Errors.UNKNOWN_TOPIC_OR_PARTITION) {
                throw CliException.failed("Topic " + t.name() + " not found.");
            }
            if (t.error() != Errors.NONE) {
                throw CliException.failed("topic '" + t.name() + "': " + t.error() + ": " + t.message());
            }
        }
        return described;
    }
}
