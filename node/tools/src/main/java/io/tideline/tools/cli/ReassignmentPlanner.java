package io.tideline.tools.cli;

import io.tideline.client.PartitionReassignment;
import io.tideline.common.TopicPartition;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The arithmetic of {@code reassign-partitions}, without a cluster: the assignment {@code --generate}
 * proposes, and the throttled replicas and brokers {@code --execute --throttle} sets. Stateless.
 */
final class ReassignmentPlanner {
    private ReassignmentPlanner() {
    }

    /**
     * {@code --generate}: every partition of each topic over {@code brokers}, with the topic's replication
     * factor (that of its partition 0), in the round-robin of Kafka's rack-unaware assignment: partition p's
     * first replica is the p-th broker, its followers the next ones, shifted by one more each time the
     * partitions wrap around the brokers, so followers spread too. Kafka starts at a random broker and
     * shift; this starts at the first (lowest id) broker with no shift, so the same input always gives the same
     * proposal. Racks are not considered.
     *
     * @param brokers distinct broker ids; sorted here
     * @throws CliException (exit 1) when a topic's replication factor is above the number of brokers
     */
    static Map<TopicPartition, List<Integer>> propose(Map<TopicPartition, List<Integer>> current, List<Integer> brokers) {
        List<Integer> sorted = new ArrayList<>(new TreeSet<>(brokers));
        Map<String, Integer> partitionCounts = new TreeMap<>();
        Map<String, Integer> replicationFactors = new TreeMap<>();
        current.forEach((tp, replicas) -> {
            partitionCounts.merge(tp.topic(), 1, Integer::sum);
            if (tp.partition() == 0 || !replicationFactors.containsKey(tp.topic())) {
                replicationFactors.put(tp.topic(), replicas.size());
            }
        });
        Map<TopicPartition, List<Integer>> proposed = new TreeMap<>(ReassignmentJson.ORDER);
        for (Map.Entry<String, Integer> topic : partitionCounts.entrySet()) {
            int rf = replicationFactors.get(topic.getKey());
            if (rf > sorted.size()) {
                throw CliException.failed("Replication factor: " + rf + " larger than available brokers: "
                        + sorted.size() + ".");
            }
            for (int p = 0; p < topic.getValue(); p++) {
                proposed.put(new TopicPartition(topic.getKey(), p), roundRobin(sorted, p, rf));
            }
        }
        return proposed;
    }

    private static List<Integer> roundRobin(List<Integer> brokers, int partition, int rf) {
        int n = brokers.size();
        int shift = partition / n;
        int first = partition % n;
        List<Integer> replicas = new ArrayList<>(rf);
        replicas.add(brokers.get(first));
        for (int j = 0; j < rf - 1; j++) {
            replicas.add(brokers.get((first + 1 + (shift + j) % (n - 1)) % n));
        }
        return replicas;
    }

    /** A partition's move: the replicas it copies from (the original ones) and the ones it copies to. */
    record Move(Set<Integer> sources, Set<Integer> destinations) {
    }

    /**
     * The moves a throttle covers, as Kafka computes them: every reassignment already in progress (its
     * original replicas to its adding ones) and each new target (from the sources of the move in progress,
     * else the current replicas, to the target replicas that are not sources).
     */
    static Map<TopicPartition, Move> moves(Map<TopicPartition, PartitionReassignment> ongoing,
                                           Map<TopicPartition, List<Integer>> targets,
                                           Map<TopicPartition, List<Integer>> current) {
        Map<TopicPartition, Move> moves = new TreeMap<>(ReassignmentJson.ORDER);
        ongoing.forEach((tp, r) -> {
            Set<Integer> sources = new TreeSet<>(r.replicas());
            sources.removeAll(r.addingReplicas());
            moves.put(tp, new Move(sources, new TreeSet<>(r.addingReplicas())));
        });
        targets.forEach((tp, replicas) -> {
            Move inProgress = moves.get(tp);
            Set<Integer> sources = new TreeSet<>(inProgress != null ? inProgress.sources() : current.get(tp));
            Set<Integer> destinations = new TreeSet<>(replicas);
            destinations.removeAll(sources);
            moves.put(tp, new Move(sources, destinations));
        });
        return moves;
    }

    /**
     * Per topic, {@code leader.replication.throttled.replicas}: partition:broker of every source. Sorted as
     * strings, as Kafka's tool writes them.
     */
    static Map<String, String> leaderThrottles(Map<TopicPartition, Move> moves) {
        return throttles(moves, true);
    }

    /** Per topic, {@code follower.replication.throttled.replicas}: partition:broker of every destination. */
    static Map<String, String> followerThrottles(Map<TopicPartition, Move> moves) {
        return throttles(moves, false);
    }

    private static Map<String, String> throttles(Map<TopicPartition, Move> moves, boolean leader) {
        Map<String, Set<String>> byTopic = new TreeMap<>();
        moves.forEach((tp, move) -> {
            Set<String> entries = byTopic.computeIfAbsent(tp.topic(), t -> new TreeSet<>());
            for (int broker : leader ? move.sources() : move.destinations()) {
                entries.add(tp.partition() + ":" + broker);
            }
        });
        Map<String, String> out = new TreeMap<>();
        byTopic.forEach((topic, entries) -> out.put(topic, String.join(",", entries)));
        return out;
    }

    /** Every broker a move reads from or writes to: where the broker-level throttle rates go. */
    static Set<Integer> brokersInvolved(Map<TopicPartition, Move> moves) {
        Set<Integer> brokers = new TreeSet<>();
        moves.values().forEach(m -> {
            brokers.addAll(m.sources());
            brokers.addAll(m.destinations());
        });
        return brokers;
    }

    /** Kafka's --broker-list "1,2,3"; a bad entry or a duplicate is a usage error in Kafka's words. */
    static List<Integer> parseBrokerList(String text) {
        List<Integer> brokers = new ArrayList<>();
        for (String item : text.split(",")) {
            try {
                brokers.add(Integer.parseInt(item.trim()));
            } catch (NumberFormatException e) {
                throw CliException.usage("--broker-list: '" + item.trim() + "' is not a broker id (expected \"1,2,3\")");
            }
        }
        Set<Integer> seen = new LinkedHashSet<>();
        Set<Integer> duplicates = new TreeSet<>();
        brokers.forEach(b -> {
            if (!seen.add(b)) {
                duplicates.add(b);
            }
        });
        if (!duplicates.isEmpty()) {
            throw CliException.usage("Broker list contains duplicate entries: " + duplicates);
        }
        return brokers;
    }
}
