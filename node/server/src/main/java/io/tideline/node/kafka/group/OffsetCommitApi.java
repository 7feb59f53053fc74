package io.tideline.node.kafka.group;

import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * OffsetCommit v2-9. v10 names topics by id only (KIP-848); it is not advertised, so kafka-clients uses v9 and
 * topic names, which is how the offsets are kept.
 */
final class OffsetCommitApi extends AbstractKafkaApi {
    private final GroupCoordinator coordinator;

    OffsetCommitApi(GroupCoordinator coordinator) {
        super(ApiKeys.OFFSET_COMMIT, ApiKeys.OFFSET_COMMIT.oldestVersion(), 9);
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<OffsetCommitResponseData> handle(KafkaRequest request) {
        return coordinator.commitOffsets(request.body(OffsetCommitRequestData.class));
    }
}
