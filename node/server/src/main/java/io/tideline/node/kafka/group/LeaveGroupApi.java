package io.tideline.node.kafka.group;

import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.kafka.KafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/** LeaveGroup v0-5 (v3+ leaves several members at once, each with its own error). */
final class LeaveGroupApi implements KafkaApi {
    private final GroupCoordinator coordinator;

    LeaveGroupApi(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys key() {
        return ApiKeys.LEAVE_GROUP;
    }

    @Override
    public short minVersion() {
        return ApiKeys.LEAVE_GROUP.oldestVersion();
    }

    @Override
    public short maxVersion() {
        return 5;
    }

    @Override
    public CompletableFuture<LeaveGroupResponseData> handle(KafkaRequest request) {
        return CompletableFuture.completedFuture(coordinator.leaveGroup(request.body(LeaveGroupRequestData.class),
                request.version()));
    }
}
