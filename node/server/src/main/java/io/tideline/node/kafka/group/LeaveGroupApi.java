package io.tideline.node.kafka.group;

import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/** LeaveGroup v0-5 (v3+ leaves several members at once, each with its own error). */
final class LeaveGroupApi extends AbstractKafkaApi {
    private final GroupCoordinator coordinator;

    LeaveGroupApi(GroupCoordinator coordinator) {
        super(ApiKeys.LEAVE_GROUP, ApiKeys.LEAVE_GROUP.oldestVersion(), 5);
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<LeaveGroupResponseData> handle(KafkaRequest request) {
        return CompletableFuture.completedFuture(coordinator.leaveGroup(request.body(LeaveGroupRequestData.class),
                request.version()));
    }
}
