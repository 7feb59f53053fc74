package io.tideline.node.quorum;

/**
 * Where invariant violations of the metadata path go (a command that made the controller throw, a
 * record that does not replay, a listener that failed). The state machine survives them, because
 * stopping the apply thread would stop the whole quorum, but they are bugs: production logs them at
 * ERROR, tests collect them and fail.
 */
@FunctionalInterface
public interface MetadataFaultHandler {
    void handleFault(String message, Throwable cause);
}
