package io.tideline.node.kafka.group;

import io.tideline.common.errors.Errors;
import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/** DeleteGroups v0-3: NON_EMPTY_GROUP while members are present, GROUP_ID_NOT_FOUND for an unknown group. */
final class DeleteGroupsApi extends AbstractKafkaApi {
    private final GroupCoordinator coordinator;

    DeleteGroupsApi(GroupCoordinator coordinator) {
        super(ApiKeys.DELETE_GROUPS, ApiKeys.DELETE_GROUPS.oldestVersion(), 3);
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<DeleteGroupsResponseData> handle(KafkaRequest request) {
        DeleteGroupsRequestData req = request.body(DeleteGroupsRequestData.class);
        return coordinator.deleteGroups(req.groupsNames()).thenApply(results -> {
            DeleteGroupsResponseData response = new DeleteGroupsResponseData();
            results.forEach((id, error) -> response.results().add(new DeleteGroupsResponseData.DeletableGroupResult()
                    .setGroupId(id).setErrorCode(error.code())
                    .setErrorMessage(error == Errors.NONE ? null : error.defaultMessage())));
            return response;
        });
    }
}
