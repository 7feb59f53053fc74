package io.tideline.node.controller;

import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Replica placement for new topics: round robin over the unfenced brokers, starting at a position
 * derived from the Raft index (deterministic on every voter, yet spread across topics), each further
 * replica on the next broker. When every broker has a rack, the broker list is interleaved by rack
 * first (rack A, rack B, rack C, rack A, ...), so consecutive brokers - and so a partition's replicas -
 * sit in different racks whenever there are enough racks.
 */
final class ReplicaPlacer {
    private ReplicaPlacer() {
    }

    /** Eligible brokers in placement order. */
    static List<Integer> placementOrder(MetadataImage image) {
        List<BrokerRegistrationRecord> usable = new ArrayList<>();
        for (BrokerRegistrationRecord b : image.brokers().values()) {
            if (!b.getFenced() && !b.getInControlledShutdown()) {
                usable.add(b);
            }
        }
        boolean allRacked = !usable.isEmpty() && usable.stream().allMatch(b -> !b.getRack().isEmpty());
        List<Integer> order = new ArrayList<>();
        if (!allRacked) {
            usable.forEach(b -> order.add(b.getBrokerId()));
            return order;
        }
        Map<String, List<Integer>> byRack = new LinkedHashMap<>();
        usable.stream().sorted((a, b) -> a.getRack().compareTo(b.getRack()))
                .forEach(b -> byRack.computeIfAbsent(b.getRack(), r -> new ArrayList<>()).add(b.getBrokerId()));
        for (int i = 0; order.size() < usable.size(); i++) {
            for (List<Integer> rack : byRack.values()) {
                if (i < rack.size()) {
                    order.add(rack.get(i));
                }
            }
        }
        return order;
    }

    /** Replica lists for {@code partitions} partitions of {@code replicationFactor} replicas each. */
    static List<List<Integer>> place(List<Integer> brokers, int partitions, int replicationFactor, long seed) {
        int n = brokers.size();
        int start = (int) Math.floorMod(seed, (long) n);
        List<List<Integer>> assignment = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            List<Integer> replicas = new ArrayList<>(replicationFactor);
            for (int r = 0; r < replicationFactor; r++) {
                replicas.add(brokers.get((start + p + r) % n));
            }
            assignment.add(replicas);
        }
        return assignment;
    }
}
