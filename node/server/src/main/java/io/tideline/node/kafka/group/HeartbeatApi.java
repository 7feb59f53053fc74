package io.tideline.node.kafka.group;

import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/** Heartbeat v0-4, answered from the coordinator's memory. */
final class HeartbeatApi extends AbstractKafkaApi {
    private final GroupCoordinator coordinator;

    HeartbeatApi(GroupCoordinator coordinator) {
        super(ApiKeys.HEARTBEAT, ApiKeys.HEARTBEAT.oldestVersion(), 4);
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<HeartbeatResponseData> handle(KafkaRequest request) {
        return CompletableFuture.completedFuture(coordinator.heartbeat(request.body(HeartbeatRequestData.class)));
    }
}
