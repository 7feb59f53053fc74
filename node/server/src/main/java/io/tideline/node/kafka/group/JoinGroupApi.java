package io.tideline.node.kafka.group;

import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.kafka.KafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/** JoinGroup v0-9 (the oldest kafka-clients still knows); the answer waits for the rebalance. */
final class JoinGroupApi implements KafkaApi {
    private final GroupCoordinator coordinator;

    JoinGroupApi(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys key() {
        return ApiKeys.JOIN_GROUP;
    }

    @Override
    public short minVersion() {
        return ApiKeys.JOIN_GROUP.oldestVersion();
    }

    @Override
    public short maxVersion() {
        return 9;
    }

    @Override
    public CompletableFuture<JoinGroupResponseData> handle(KafkaRequest request) {
        String host = request.peer() == null ? "" : "/" + request.peer().getAddress().getHostAddress();
        return coordinator.joinGroup(request.body(JoinGroupRequestData.class), request.clientId(), host,
                request.version());
    }
}
