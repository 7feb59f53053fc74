package io.tideline.node.kafka.group;

import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.kafka.KafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/** Heartbeat v0-4, answered from the coordinator's memory. */
final class HeartbeatApi implements KafkaApi {
    private final GroupCoordinator coordinator;

    HeartbeatApi(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys key() {
        return ApiKeys.HEARTBEAT;
    }

    @Override
    public short minVersion() {
        return ApiKeys.HEARTBEAT.oldestVersion();
    }

    @Override
    public short maxVersion() {
        return 4;
    }

    @Override
    public CompletableFuture<HeartbeatResponseData> handle(KafkaRequest request) {
        return CompletableFuture.completedFuture(coordinator.heartbeat(request.body(HeartbeatRequestData.class)));
    }
}
