package io.tideline.node.api;

import io.tideline.common.errors.Errors;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.quorum.QuorumIds;
import io.tideline.proto.admin.ClusterBroker;
import io.tideline.proto.admin.DescribeClusterRequest;
import io.tideline.proto.admin.DescribeClusterResponse;
import io.tideline.proto.metadata.BrokerLiveness;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.ControllerQueryResponse;
import io.tideline.proto.metadata.QuorumStatus;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Answers DescribeCluster (admin cluster --describe, docs/behaviours.md B64): the metadata quorum's
 * leader is asked for its own view (its id and term, the commit index, its image's brokers and their
 * last heartbeats), so the controller shown is the Raft leader itself, not this broker's guess. When
 * the quorum does not answer within the timeout, the answer says why and carries this broker's image.
 * Stateless apart from its inputs; thread-safe.
 */
final class ClusterDescriber {
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

    ClusterDescriber(int brokerId, String clusterId, Map<Integer, InetSocketAddress> voters,
                     Supplier<MetadataImage> image, ControllerClient controller) {
        this.brokerId = brokerId;
        this.clusterId = clusterId;
        this.voters = Map.copyOf(voters);
        this.image = image;
        this.controller = controller;
    }

    CompletableFuture<DescribeClusterResponse> describe(DescribeClusterRequest request) {
        int timeout = request.getTimeoutMs() <= 0 ? DEFAULT_TIMEOUT_MS : request.getTimeoutMs();
        return controller.describeQuorum()
                .completeOnTimeout(ControllerQueryResponse.newBuilder().setErrorCode(Errors.REQUEST_TIMED_OUT.code())
                        .setErrorMessage("the metadata quorum did not answer within " + timeout + " ms").build(),
                        timeout, TimeUnit.MILLISECONDS)
                .thenApply(this::answer);
    }

    private DescribeClusterResponse answer(ControllerQueryResponse r) {
        DescribeClusterResponse.Builder b = DescribeClusterResponse.newBuilder().setClusterId(clusterId)
                .setAnsweringBroker(brokerId);
        if (r.getErrorCode() == Errors.NONE.code() && r.hasQuorumStatus()) {
            QuorumStatus q = r.getQuorumStatus();
            b.setControllerId(q.getLeaderId()).setControllerTerm(q.getLeaderTerm())
                    .setCommittedOffset(q.getCommittedOffset()).setAppliedOffset(q.getAppliedOffset());
            addBrokers(b, q.getBrokersList(), q.getLivenessList());
            return b.build();
        }
        MetadataImage local = image.get();
        Errors error = r.getErrorCode() == Errors.NONE.code() ? Errors.UNKNOWN_SERVER_ERROR : Errors.forCode(r.getErrorCode());
        b.setErrorCode(error.code()).setErrorMessage(r.getErrorMessage().isEmpty() ? error.defaultMessage() : r.getErrorMessage())
                .setControllerId(-1).setControllerTerm(-1).setCommittedOffset(-1).setAppliedOffset(local.offset());
        addBrokers(b, local.brokers().values(), List.of());
        return b.build();
    }

    private void addBrokers(DescribeClusterResponse.Builder b, Collection<BrokerRegistrationRecord> brokers,
                            Collection<BrokerLiveness> liveness) {
        Map<Integer, BrokerLiveness> heard = new HashMap<>();
        liveness.forEach(l -> heard.put(l.getBrokerId(), l));
        for (BrokerRegistrationRecord r : brokers) {
            BrokerLiveness l = heard.get(r.getBrokerId());
            InetSocketAddress voter = voters.get(r.getBrokerId());
            ClusterBroker.Builder c = ClusterBroker.newBuilder().setId(r.getBrokerId()).setState(state(r))
                    .setFenced(r.getFenced()).setRack(r.getRack()).setMetricsUrl(r.getMetricsUrl())
                    .setQuorumAddress(voter == null ? "" : QuorumIds.hostPort(voter))
                    .setMetadataOffset(l == null ? -1 : l.getMetadataOffset())
                    .setLastHeartbeatMs(l == null ? -1 : l.getLastHeartbeatMs());
            if (r.getEndpointsCount() > 0) {
                c.setHost(r.getEndpoints(0).getHost()).setPort(r.getEndpoints(0).getPort());
            }
            b.addBrokers(c);
        }
    }

    static String state(BrokerRegistrationRecord r) {
        if (r.getFenced()) {
            return FENCED;
        }
        return r.getInControlledShutdown() ? PENDING_CONTROLLED_SHUTDOWN : RUNNING;
    }
}
