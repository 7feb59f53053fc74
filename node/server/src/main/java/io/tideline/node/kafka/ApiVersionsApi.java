package io.tideline.node.kafka;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;

/**
 * ApiVersions v0-v4: the table of {@link KafkaApis}, exactly the APIs and versions registered, ApiVersions itself
 * included. v3+ requests name the client software; a name or version outside Kafka's pattern is answered with
 * INVALID_REQUEST, as Kafka does. A version not served is answered by the listener (v0, UNSUPPORTED_VERSION,
 * the table). No features are advertised: no client of this listener negotiates any.
 */
final class ApiVersionsApi extends AbstractKafkaApi {
    private final KafkaApis apis;

    ApiVersionsApi(KafkaApis apis) {
        super(ApiKeys.API_VERSIONS, 0, 4);
        this.apis = apis;
    }

    @Override
    public CompletableFuture<ApiVersionsResponseData> handle(KafkaRequest request) {
        ApiVersionsRequest parsed = new ApiVersionsRequest(request.body(ApiVersionsRequestData.class), request.version());
        ApiVersionsResponseData response = new ApiVersionsResponseData().setApiKeys(apis.versions());
        if (!parsed.isValid()) {
            response.setErrorCode(Errors.INVALID_REQUEST.code());
        }
        return CompletableFuture.completedFuture(response);
    }
}
