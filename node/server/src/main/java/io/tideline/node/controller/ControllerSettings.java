package io.tideline.node.controller;

/**
 * Cluster-wide settings the controller logic needs. They are part of its determinism: every voter
 * must run with the same values (they come from each node's config, which operators keep equal).
 */
public record ControllerSettings(boolean uncleanLeaderElectionEnable) {
    public static final ControllerSettings DEFAULT = new ControllerSettings(false);
}
