package io.tideline.client;

import io.tideline.common.errors.Errors;
import java.util.List;

/**
 * The cluster as the metadata quorum's leader describes it (docs/behaviours.md B64): its id, the
 * controller (the Raft leader, -1 when unknown) and its term, the committed and applied metadata
 * offsets, and every registered broker. When the quorum did not answer, {@link #error()} says why,
 * the controller, term and committed offset are -1 and the brokers are the answering broker's view.
 * Offsets and times are -1 when unknown.
 */
public record ClusterDescription(String clusterId, int controllerId, List<Broker> brokers, long controllerTerm,
                                 long committedOffset, long appliedOffset, Errors error, String message) {

    /** The shape of a plain Metadata answer: no quorum view. */
    public ClusterDescription(String clusterId, int controllerId, List<Broker> brokers) {
        this(clusterId, controllerId, brokers, -1, -1, -1, Errors.NONE, "");
    }

    /** True when the quorum's leader answered. */
    public boolean fromQuorum() {
        return error == Errors.NONE;
    }

    /**
     * One broker. {@code state} is Kafka's BrokerState name as the controller sees it: RUNNING, FENCED or
     * PENDING_CONTROLLED_SHUTDOWN. {@code quorumAddress} (host:port of its voter) and {@code metricsUrl} are
     * empty when it has none; {@code metadataOffset} and {@code lastHeartbeatMs} come from its last heartbeat
     * to the current leader.
     */
    public record Broker(int id, String host, int port, String rack, boolean fenced, String state,
                         String quorumAddress, String metricsUrl, long metadataOffset, long lastHeartbeatMs) {

        public Broker(int id, String host, int port, String rack, boolean fenced) {
            this(id, host, port, rack, fenced, fenced ? "FENCED" : "RUNNING", "", "", -1, -1);
        }
    }
}
