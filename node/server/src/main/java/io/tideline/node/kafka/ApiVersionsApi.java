package io.tideline.node.kafka;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;

/**
 * ApiVersions v0-v5: the table of {@link KafkaApis}, exactly the APIs and versions registered, ApiVersions itself
 * included. v3+ requests name the client software; a name or version outside Kafka's pattern is answered with
 * INVALID_REQUEST, as Kafka does. v5 (KIP-1242) may name the cluster and node the client means to reach; when
 * either is not this one, the answer is REBOOTSTRAP_REQUIRED (the client's metadata is stale: it starts again
 * from its bootstrap servers). A version not served is answered by the listener (v0, UNSUPPORTED_VERSION, the
 * table). From v4 the answer reports the feature levels of {@link KafkaFeatures} (all 0, none finalized).
 *
 * <p>v5 because kafka-clients 4.4 asks for it first on every connection: answering v4 only cost each new
 * connection a second ApiVersions round trip.
 */
final class ApiVersionsApi extends AbstractKafkaApi {
    private final KafkaApis apis;
    private final int nodeId;
    private final String clusterId;

    ApiVersionsApi(KafkaApis apis, int nodeId, String clusterId) {
        super(ApiKeys.API_VERSIONS, 0, 5);
        this.apis = apis;
        this.nodeId = nodeId;
        this.clusterId = clusterId;
    }

    @Override
    public CompletableFuture<ApiVersionsResponseData> handle(KafkaRequest request) {
        ApiVersionsRequest parsed = new ApiVersionsRequest(request.body(ApiVersionsRequestData.class), request.version());
        ApiVersionsResponseData response = new ApiVersionsResponseData().setApiKeys(apis.versions())
                .setSupportedFeatures(KafkaFeatures.supported(request.version()));
        ApiVersionsRequestData data = parsed.data();
        if (!parsed.isValid()) {
            response.setErrorCode(Errors.INVALID_REQUEST.code());
        } else if (request.version() >= 5 && ((data.clusterId() != null && !data.clusterId().equals(clusterId))
                || (data.nodeId() >= 0 && data.nodeId() != nodeId))) {
            response.setErrorCode(Errors.REBOOTSTRAP_REQUIRED.code());
        }
        return CompletableFuture.completedFuture(response);
    }
}
