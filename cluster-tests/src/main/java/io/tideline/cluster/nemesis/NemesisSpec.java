package io.tideline.cluster.nemesis;

import io.tideline.cluster.harness.ClusterHarness;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The shape of the sequences to generate: the cluster's node ids, the partition's replication factor, how many
 * steps (faults, heals, operator actions) a sequence has, the range of the waits between them, and whether each
 * node's log dir is a small disk of its own that the nemesis may fill ({@link FillDisk}: only where the run may
 * mount one, as root).
 */
public record NemesisSpec(List<Integer> nodes, int replicationFactor, int steps, Duration minWait, Duration maxWait,
                          boolean diskFaults) {
    public NemesisSpec(List<Integer> nodes, int replicationFactor, int steps, Duration minWait, Duration maxWait) {
        this(nodes, replicationFactor, steps, minWait, maxWait, false);
    }

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

    /**
     * The links the nemesis may break one by one: every directed replication link and every client link of the
     * harness, by name. The Raft links are broken only a node's at a time ({@link PartitionNode}), which the
     * model counts as that node down, so single cuts never take the quorum's majority away.
     */
    public List<String> links() {
        List<String> links = new ArrayList<>();
        for (int node : nodes) {
            links.add(ClusterHarness.clientLink(node));
        }
        for (int follower : nodes) {
            for (int leader : nodes) {
                if (follower != leader) {
                    links.add(ClusterHarness.replicationLink(follower, leader));
                }
            }
        }
        return links;
    }

    /** The replication links with {@code node} at either end. */
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
