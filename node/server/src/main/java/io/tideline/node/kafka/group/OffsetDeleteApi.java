package io.tideline.node.kafka.group;

import io.tideline.common.errors.Errors;
import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartition;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * OffsetDelete v0 ({@code Admin.deleteConsumerGroupOffsets}, {@code kafka-consumer-groups --delete-offsets}).
 * A top-level error (NOT_COORDINATOR, GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP) answers with no topics, as Kafka
 * does; otherwise each partition is NONE or GROUP_SUBSCRIBED_TO_TOPIC.
 */
final class OffsetDeleteApi extends AbstractKafkaApi {
    private final GroupCoordinator coordinator;

    OffsetDeleteApi(GroupCoordinator coordinator) {
        super(ApiKeys.OFFSET_DELETE, ApiKeys.OFFSET_DELETE.oldestVersion(), 0);
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<OffsetDeleteResponseData> handle(KafkaRequest request) {
        OffsetDeleteRequestData req = request.body(OffsetDeleteRequestData.class);
        Map<String, List<Integer>> partitions = new LinkedHashMap<>();
        req.topics().forEach(t -> t.partitions().forEach(p ->
                partitions.computeIfAbsent(t.name(), k -> new ArrayList<>()).add(p.partitionIndex())));
        return coordinator.deleteOffsets(req.groupId(), partitions).thenApply(outcome -> {
            OffsetDeleteResponseData response = new OffsetDeleteResponseData().setErrorCode(outcome.error().code());
            if (outcome.error() != Errors.NONE) {
                return response;
            }
            partitions.forEach((topic, indexes) -> {
                OffsetDeleteResponseTopic t = new OffsetDeleteResponseTopic().setName(topic);
                for (int p : indexes) {
                    if (t.partitions().find(p) == null) {
                        t.partitions().add(new OffsetDeleteResponsePartition().setPartitionIndex(p)
                                .setErrorCode(outcome.partition(topic, p).code()));
                    }
                }
                response.topics().add(t);
            });
            return response;
        });
    }
}
