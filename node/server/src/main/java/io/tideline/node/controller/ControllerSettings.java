package io.tideline.node.controller;

import io.tideline.node.config.NodeConfig;

/**
 * Cluster-wide settings the controller logic needs. They are part of its determinism: every voter
 * must run with the same values (they come from each node's config, which operators keep equal).
 *
 * @param maxPartitions the most partitions the cluster may hold, all topics together ({@code max.partitions},
 *                      docs/behaviours.md B101)
 */
public record ControllerSettings(boolean uncleanLeaderElectionEnable, int maxPartitions) {
    public static final ControllerSettings DEFAULT = new ControllerSettings(false);

    public ControllerSettings {
        if (maxPartitions < 1) {
            throw new IllegalArgumentException("maxPartitions must be at least 1, got " + maxPartitions);
        }
    }

    public ControllerSettings(boolean uncleanLeaderElectionEnable) {
        this(uncleanLeaderElectionEnable, NodeConfig.MAX_PARTITIONS_DEFAULT);
    }
}
