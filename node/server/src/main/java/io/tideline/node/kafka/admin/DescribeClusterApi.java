package io.tideline.node.kafka.admin;

import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.service.ClusterService;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.Endpoint;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's DescribeCluster (v0-2) over {@link ClusterService#describe} (B64): the cluster id, the
 * brokers with their Kafka listener endpoints (a broker without one is left out, as Kafka leaves out brokers
 * without the request's listener), fenced ones only when v2 asks for them. The controller id is the metadata
 * quorum's leader when it is a broker with a Kafka endpoint, else this broker: every broker accepts the
 * controller's requests and forwards them, so a client sending there gets no NOT_CONTROLLER. When the quorum
 * does not answer in time the answer is still NONE, from this broker's image (Kafka's brokers answer from their
 * metadata cache). Only endpoint type 1 (brokers) is served; 2 is UNSUPPORTED_ENDPOINT_TYPE.
 */
final class DescribeClusterApi extends AbstractKafkaApi {
    /** How long to wait for the quorum's view before answering from the image. */
    static final int QUORUM_TIMEOUT_MS = 2_000;
    private static final byte BROKER_ENDPOINTS = 1;

    private final AdminDeps deps;

    DescribeClusterApi(AdminDeps deps) {
        super(ApiKeys.DESCRIBE_CLUSTER, 0, 2);
        this.deps = deps;
    }

    @Override
    public CompletableFuture<DescribeClusterResponseData> handle(KafkaRequest request) {
        DescribeClusterRequestData data = request.body(DescribeClusterRequestData.class);
        if (request.version() >= 1 && data.endpointType() != BROKER_ENDPOINTS) {
            return CompletableFuture.completedFuture(new DescribeClusterResponseData().setClusterId(deps.clusterId())
                    .setEndpointType(data.endpointType()).setErrorCode(Errors.UNSUPPORTED_ENDPOINT_TYPE.code())
                    .setErrorMessage("only broker endpoints (type 1) are served, got " + data.endpointType()));
        }
        boolean includeFenced = request.version() >= 2 && data.includeFencedBrokers();
        return Answers.call(() -> deps.services().cluster().describe(QUORUM_TIMEOUT_MS))
                .handle((r, e) -> e != null ? unanswered() : answer(r, includeFenced));
    }

    /** When the service fails instead of answering: no cluster id, no brokers, this broker as the controller. */
    private DescribeClusterResponseData unanswered() {
        return new DescribeClusterResponseData().setClusterId("").setEndpointType(BROKER_ENDPOINTS)
                .setControllerId(deps.brokerId());
    }

    private DescribeClusterResponseData answer(ClusterService.Description r, boolean includeFenced) {
        MetadataImage image = deps.image().get();
        DescribeClusterResponseData out = new DescribeClusterResponseData().setClusterId(r.clusterId())
                .setEndpointType(BROKER_ENDPOINTS).setControllerId(deps.brokerId());
        for (ClusterService.Broker b : r.brokers()) {
            BrokerRegistrationRecord registration = image.brokers().get(b.id());
            Optional<Endpoint> endpoint = registration == null ? Optional.empty() : deps.kafkaEndpoint().apply(registration);
            if (endpoint.isEmpty() || (b.fenced() && !includeFenced)) {
                continue;
            }
            out.brokers().add(new DescribeClusterBroker().setBrokerId(b.id()).setHost(endpoint.get().getHost())
                    .setPort(endpoint.get().getPort()).setRack(b.rack().isEmpty() ? null : b.rack())
                    .setIsFenced(b.fenced()));
            if (b.id() == r.controllerId() && !b.fenced()) {
                out.setControllerId(b.id());
            }
        }
        return out;
    }
}
