package io.tideline.node.kafka.group;

import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.kafka.KafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * OffsetCommit v2-9. v10 names topics by id only (KIP-848); it is not advertised, so kafka-clients uses v9 and
 * topic names, which is how the offsets are kept.
 */
final class OffsetCommitApi implements KafkaApi {
    private final GroupCoordinator coordinator;

    OffsetCommitApi(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys key() {
        return ApiKeys.OFFSET_COMMIT;
    }

    @Override
    public short minVersion() {
        return ApiKeys.OFFSET_COMMIT.oldestVersion();
    }

    @Override
    public short maxVersion() {
        return 9;
    }

    @Override
    public CompletableFuture<OffsetCommitResponseData> handle(KafkaRequest request) {
        return coordinator.commitOffsets(request.body(OffsetCommitRequestData.class));
    }
}
