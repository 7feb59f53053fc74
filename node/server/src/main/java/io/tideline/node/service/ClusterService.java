package io.tideline.node.service;

import io.tideline.common.errors.Errors;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.quorum.QuorumIds;
import io.tideline.proto.metadata.BrokerLiveness;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.ControllerQueryResponse;
import io.tideline.proto.metadata.QuorumStatus;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * DescribeCluster (docs/behaviours.md B64): the metadata quorum's leader is asked for its own view (its id and
 * term, the commit index, its image's brokers and their last heartbeats), so the controller shown is the Raft
 * leader itself, not this broker's guess. When the quorum does not answer within the timeout, the answer says why
 * and carries this broker's image. Stateless apart from its inputs; thread-safe.
 */
public final class ClusterService {
    static final int DEFAULT_TIMEOUT_MS = 5_000;

    /** Kafka's BrokerState names for what the controller knows of a broker. */
    static final String RUNNING = "RUNNING";
    static final String FENCED = "FENCED";
    static final String PENDING_CONTROLLED_SHUTDOWN = "PENDING_CONTROLLED_SHUTDOWN";

    private final int brokerId;
    private final String clusterId;
    private final Map<Integer, InetSocketAddress> voters;
    private final Supplier<MetadataImage> image;
    private final ControllerClient controller;

    /**
     * The cluster as the quorum leader (NONE) or, failing it, this broker sees it: then the error says why, the
     * controller id, term and committed offset are -1 and the applied offset is this broker's.
     */
    public record Description(String clusterId, int answeringBroker, ApiError error, int controllerId,
                              long controllerTerm, long committedOffset, long appliedOffset, List<Broker> brokers) {
        public Description {
            brokers = List.copyOf(brokers);
        }
    }

    /**
     * One registered broker: {@code state} is one of Kafka's BrokerState names, host and port are its first
     * listener's ("" and 0 without one), quorum address "" when it is not a voter, offsets and times -1 unknown.
     */
    public record Broker(int id, String state, boolean fenced, String rack, String host, int port,
                         String quorumAddress, String metricsUrl, long metadataOffset, long lastHeartbeatMs) {
    }

    /** @param voters the metadata quorum's voters (controller.quorum.voters) */
    public ClusterService(int brokerId, String clusterId, Map<Integer, InetSocketAddress> voters,
                          Supplier<MetadataImage> image, ControllerClient controller) {
        this.brokerId = brokerId;
        this.clusterId = clusterId;
        this.voters = Map.copyOf(voters);
        this.image = image;
        this.controller = controller;
    }

    /** @param timeoutMs how long to wait for the quorum; 0 or less is {@link #DEFAULT_TIMEOUT_MS} */
    public CompletableFuture<Description> describe(int timeoutMs) {
        int timeout = timeoutMs <= 0 ? DEFAULT_TIMEOUT_MS : timeoutMs;
        return controller.describeQuorum()
                .completeOnTimeout(ControllerQueryResponse.newBuilder().setErrorCode(Errors.REQUEST_TIMED_OUT.code())
                        .setErrorMessage("the metadata quorum did not answer within " + timeout + " ms").build(),
                        timeout, TimeUnit.MILLISECONDS)
                .thenApply(this::answer);
    }

    private Description answer(ControllerQueryResponse r) {
        if (r.getErrorCode() == Errors.NONE.code() && r.hasQuorumStatus()) {
            QuorumStatus q = r.getQuorumStatus();
            return new Description(clusterId, brokerId, ApiError.NONE, q.getLeaderId(), q.getLeaderTerm(),
                    q.getCommittedOffset(), q.getAppliedOffset(), brokers(q.getBrokersList(), q.getLivenessList()));
        }
        MetadataImage local = image.get();
        Errors error = r.getErrorCode() == Errors.NONE.code() ? Errors.UNKNOWN_SERVER_ERROR : Errors.forCode(r.getErrorCode());
        return new Description(clusterId, brokerId, new ApiError(error,
                r.getErrorMessage().isEmpty() ? error.defaultMessage() : r.getErrorMessage()), -1, -1, -1,
                local.offset(), brokers(local.brokers().values(), List.of()));
    }

    private List<Broker> brokers(Collection<BrokerRegistrationRecord> brokers, Collection<BrokerLiveness> liveness) {
        Map<Integer, BrokerLiveness> heard = new HashMap<>();
        liveness.forEach(l -> heard.put(l.getBrokerId(), l));
        List<Broker> out = new ArrayList<>();
        for (BrokerRegistrationRecord r : brokers) {
            BrokerLiveness l = heard.get(r.getBrokerId());
            InetSocketAddress voter = voters.get(r.getBrokerId());
            boolean listens = r.getEndpointsCount() > 0;
            out.add(new Broker(r.getBrokerId(), state(r), r.getFenced(), r.getRack(),
                    listens ? r.getEndpoints(0).getHost() : "", listens ? r.getEndpoints(0).getPort() : 0,
                    voter == null ? "" : QuorumIds.hostPort(voter), r.getMetricsUrl(),
                    l == null ? -1 : l.getMetadataOffset(), l == null ? -1 : l.getLastHeartbeatMs()));
        }
        return out;
    }

    static String state(BrokerRegistrationRecord r) {
        if (r.getFenced()) {
            return FENCED;
        }
        return r.getInControlledShutdown() ? PENDING_CONTROLLED_SHUTDOWN : RUNNING;
    }
}
