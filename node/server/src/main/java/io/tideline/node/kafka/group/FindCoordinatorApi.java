package io.tideline.node.kafka.group;

import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.group.GroupOwnership;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.ErrorMessages;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.metadata.MetadataImage;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;

/**
 * FindCoordinator v0-6: a group's coordinator is chosen from the image ({@link GroupOwnership}), so any broker
 * answers it. Transaction and share coordinators are not served: COORDINATOR_NOT_AVAILABLE with a message, which
 * a transactional producer treats as retriable and an operator reads in its error.
 */
final class FindCoordinatorApi extends AbstractKafkaApi {
    private final GroupCoordinator coordinator;
    private final KafkaEndpoints endpoints;

    FindCoordinatorApi(GroupCoordinator coordinator, KafkaEndpoints endpoints) {
        super(ApiKeys.FIND_COORDINATOR, ApiKeys.FIND_COORDINATOR.oldestVersion(), 6);
        this.coordinator = coordinator;
        this.endpoints = endpoints;
    }

    @Override
    public CompletableFuture<FindCoordinatorResponseData> handle(KafkaRequest request) {
        FindCoordinatorRequestData req = request.body(FindCoordinatorRequestData.class);
        MetadataImage image = coordinator.images().image();
        FindCoordinatorResponseData response = new FindCoordinatorResponseData();
        if (request.version() >= 4) {
            for (String key : req.coordinatorKeys()) {
                FindCoordinatorResponseData.Coordinator c = find(image, req.keyType(), key);
                response.coordinators().add(c);
            }
        } else {
            FindCoordinatorResponseData.Coordinator c = find(image, req.keyType(), req.key());
            response.setErrorCode(c.errorCode()).setErrorMessage(ErrorMessages.bounded(c.errorMessage()))
                    .setNodeId(c.nodeId())
                    .setHost(c.host()).setPort(c.port());
        }
        return CompletableFuture.completedFuture(response);
    }

    private FindCoordinatorResponseData.Coordinator find(MetadataImage image, byte keyType, String key) {
        FindCoordinatorResponseData.Coordinator c = new FindCoordinatorResponseData.Coordinator().setKey(key)
                .setNodeId(-1).setHost("").setPort(-1);
        if (keyType != CoordinatorType.GROUP.id()) {
            return c.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code())
                    .setErrorMessage("only group coordinators are served (no transactions, no share groups)");
        }
        if (key == null || key.isEmpty()) {
            return c.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("the group id is empty");
        }
        OptionalInt owner = GroupOwnership.coordinator(image, key);
        Optional<KafkaEndpoints.HostPort> address = owner.isPresent()
                ? endpoints.of(image, owner.getAsInt()) : Optional.empty();
        if (address.isEmpty()) {
            return c.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code())
                    .setErrorMessage("no live broker with a Kafka listener coordinates the group");
        }
        return c.setNodeId(owner.getAsInt()).setHost(address.get().host()).setPort(address.get().port())
                .setErrorCode(Errors.NONE.code());
    }

}
