package io.tideline.node.kafka.group;

import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/** SyncGroup v0-5; a follower's answer waits for the leader's assignment to be stored. */
final class SyncGroupApi extends AbstractKafkaApi {
    private final GroupCoordinator coordinator;

    SyncGroupApi(GroupCoordinator coordinator) {
        super(ApiKeys.SYNC_GROUP, ApiKeys.SYNC_GROUP.oldestVersion(), 5);
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<SyncGroupResponseData> handle(KafkaRequest request) {
        return coordinator.syncGroup(request.body(SyncGroupRequestData.class));
    }
}
