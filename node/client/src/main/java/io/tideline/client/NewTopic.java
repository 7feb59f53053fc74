package io.tideline.client;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A topic to create: either a partition count and replication factor (the controller places the
 * replicas), or explicit replica assignments (partition to broker ids, first one preferred leader).
 */
public record NewTopic(String name, int numPartitions, int replicationFactor, Map<Integer, List<Integer>> assignments,
                       Map<String, String> configs) {

    public NewTopic {
        Objects.requireNonNull(name, "name");
        assignments = assignments == null ? Map.of() : Map.copyOf(new TreeMap<>(assignments));
        configs = configs == null ? Map.of() : Map.copyOf(configs);
    }

    public static NewTopic of(String name, int numPartitions, int replicationFactor, Map<String, String> configs) {
        return new NewTopic(name, numPartitions, replicationFactor, Map.of(), configs);
    }

    /** With explicit assignments; the partition count and replication factor follow from them (-1 on the wire). */
    public static NewTopic withAssignments(String name, Map<Integer, List<Integer>> assignments,
                                           Map<String, String> configs) {
        return new NewTopic(name, -1, -1, assignments, configs);
    }
}
