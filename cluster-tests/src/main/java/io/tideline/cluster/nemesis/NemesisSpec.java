package io.tideline.cluster.nemesis;

import io.tideline.cluster.harness.ClusterHarness;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The shape of the sequences to generate: the cluster's node ids, the partition's replication factor, how many
 * steps (faults, heals, operator actions) a sequence has, and the range of the waits between them.
 */
public record NemesisSpec(List<Integer> nodes, int replicationFactor, int steps, Duration minWait, Duration maxWait) {
    public NemesisSpec {
        nodes = List.copyOf(nodes);
        if (replicationFactor < 1 || replicationFactor > nodes.size()) {
            throw new IllegalArgumentException("replication factor " + replicationFactor + " with " + nodes.size()
                    + " nodes");
        }
        if (steps < 0 || minWait.isNegative() || maxWait.compareTo(minWait) < 0) {
            throw new IllegalArgumentException("steps " + steps + ", waits " + minWait + ".." + maxWait);
        }
    }

    /** The links the nemesis may break: every directed replication link of the harness, by its name. */
    public List<String> links() {
        List<String> links = new ArrayList<>();
        for (int follower : nodes) {
            for (int leader : nodes) {
                if (follower != leader) {
                    links.add(ClusterHarness.replicationLink(follower, leader));
                }
            }
        }
        return links;
    }

    /** The links of {@link #links()} with {@code node} at either end. */
    public List<String> linksOf(int node) {
        List<String> of = new ArrayList<>();
        for (int other : nodes) {
            if (other != node) {
                of.add(ClusterHarness.replicationLink(node, other));
                of.add(ClusterHarness.replicationLink(other, node));
            }
        }
        return of;
    }

    public ClusterModel newModel() {
        return new ClusterModel(nodes, links());
    }
}
