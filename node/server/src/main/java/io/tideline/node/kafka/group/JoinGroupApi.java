package io.tideline.node.kafka.group;

import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/** JoinGroup v0-9 (the oldest kafka-clients still knows); the answer waits for the rebalance. */
final class JoinGroupApi extends AbstractKafkaApi {
    private final GroupCoordinator coordinator;

    JoinGroupApi(GroupCoordinator coordinator) {
        super(ApiKeys.JOIN_GROUP, ApiKeys.JOIN_GROUP.oldestVersion(), 9);
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<JoinGroupResponseData> handle(KafkaRequest request) {
        String host = request.peer() == null ? "" : "/" + request.peer().getAddress().getHostAddress();
        return coordinator.joinGroup(request.body(JoinGroupRequestData.class), request.clientId(), host,
                request.version());
    }
}
