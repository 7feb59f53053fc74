package io.tideline.node.kafka.group;

import io.tideline.common.errors.Errors;
import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.kafka.KafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/** DeleteGroups v0-3: NON_EMPTY_GROUP while members are present, GROUP_ID_NOT_FOUND for an unknown group. */
final class DeleteGroupsApi implements KafkaApi {
    private final GroupCoordinator coordinator;

    DeleteGroupsApi(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys key() {
        return ApiKeys.DELETE_GROUPS;
    }

    @Override
    public short minVersion() {
        return ApiKeys.DELETE_GROUPS.oldestVersion();
    }

    @Override
    public short maxVersion() {
        return 3;
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
