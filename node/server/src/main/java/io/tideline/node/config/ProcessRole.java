package io.tideline.node.config;

import java.util.Locale;

/** What a node runs, as named in {@code process.roles}. */
public enum ProcessRole {
    /** Hosts partition replicas and serves clients; keeps a local metadata image. */
    BROKER,
    /** A voter of the Raft metadata quorum; the Raft leader among them is the active controller. */
    CONTROLLER;

    /** The value as written in {@code process.roles}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The role named {@code value} in {@code process.roles}, or {@code null} if there is none. */
    static ProcessRole fromConfigName(String value) {
        for (ProcessRole role : values()) {
            if (role.configName().equals(value)) {
                return role;
            }
        }
        return null;
    }
}
