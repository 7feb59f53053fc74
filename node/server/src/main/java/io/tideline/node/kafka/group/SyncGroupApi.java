package io.tideline.node.kafka.group;

import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.kafka.KafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/** SyncGroup v0-5; a follower's answer waits for the leader's assignment to be stored. */
final class SyncGroupApi implements KafkaApi {
    private final GroupCoordinator coordinator;

    SyncGroupApi(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys key() {
        return ApiKeys.SYNC_GROUP;
    }

    @Override
    public short minVersion() {
        return ApiKeys.SYNC_GROUP.oldestVersion();
    }

    @Override
    public short maxVersion() {
        return 5;
    }

    @Override
    public CompletableFuture<SyncGroupResponseData> handle(KafkaRequest request) {
        return coordinator.syncGroup(request.body(SyncGroupRequestData.class));
    }
}
