package io.tideline.node.kafka.group;

import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.group.GroupOffsets;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * OffsetFetch v1-9 (v8+ several groups per request; v10's topic ids are not advertised). Null topics (v2+) ask
 * for every committed offset of the group. require_stable (v7+) is accepted: with no transactions there is never
 * a pending transactional commit to wait for.
 */
final class OffsetFetchApi extends AbstractKafkaApi {
    private final GroupCoordinator coordinator;

    OffsetFetchApi(GroupCoordinator coordinator) {
        super(ApiKeys.OFFSET_FETCH, ApiKeys.OFFSET_FETCH.oldestVersion(), 9);
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<OffsetFetchResponseData> handle(KafkaRequest request) {
        OffsetFetchRequestData req = request.body(OffsetFetchRequestData.class);
        OffsetFetchResponseData response = new OffsetFetchResponseData();
        if (request.version() >= 8) {
            for (OffsetFetchRequestData.OffsetFetchRequestGroup g : req.groups()) {
                Map<String, List<Integer>> topics = null;
                if (g.topics() != null) {
                    topics = new LinkedHashMap<>();
                    for (OffsetFetchRequestData.OffsetFetchRequestTopics t : g.topics()) {
                        topics.put(t.name(), t.partitionIndexes());
                    }
                }
                GroupOffsets.Fetched fetched = coordinator.fetchOffsets(g.groupId(), topics);
                OffsetFetchResponseData.OffsetFetchResponseGroup group = new OffsetFetchResponseData
                        .OffsetFetchResponseGroup().setGroupId(g.groupId()).setErrorCode(fetched.error().code());
                for (GroupOffsets.FetchedTopic t : fetched.topics()) {
                    OffsetFetchResponseData.OffsetFetchResponseTopics topic = new OffsetFetchResponseData
                            .OffsetFetchResponseTopics().setName(t.name());
                    for (GroupOffsets.FetchedPartition p : t.partitions()) {
                        topic.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                                .setPartitionIndex(p.partition()).setCommittedOffset(p.offset())
                                .setCommittedLeaderEpoch(p.leaderEpoch()).setMetadata(p.metadata()));
                    }
                    group.topics().add(topic);
                }
                response.groups().add(group);
            }
            return CompletableFuture.completedFuture(response);
        }
        Map<String, List<Integer>> topics = null;
        if (req.topics() != null) {
            topics = new LinkedHashMap<>();
            for (OffsetFetchRequestData.OffsetFetchRequestTopic t : req.topics()) {
                topics.put(t.name(), t.partitionIndexes());
            }
        }
        GroupOffsets.Fetched fetched = coordinator.fetchOffsets(req.groupId(), topics);
        response.setErrorCode(fetched.error().code());
        if (fetched.error().code() != 0 && topics != null) {
            // Before v2 there is no top-level error: every partition asked for carries it.
            topics.forEach((name, partitions) -> {
                OffsetFetchResponseData.OffsetFetchResponseTopic topic = new OffsetFetchResponseData
                        .OffsetFetchResponseTopic().setName(name);
                partitions.forEach(p -> topic.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartition()
                        .setPartitionIndex(p).setCommittedOffset(-1).setMetadata("")
                        .setErrorCode(fetched.error().code())));
                response.topics().add(topic);
            });
            return CompletableFuture.completedFuture(response);
        }
        for (GroupOffsets.FetchedTopic t : fetched.topics()) {
            OffsetFetchResponseData.OffsetFetchResponseTopic topic = new OffsetFetchResponseData.OffsetFetchResponseTopic()
                    .setName(t.name());
            for (GroupOffsets.FetchedPartition p : t.partitions()) {
                topic.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartition()
                        .setPartitionIndex(p.partition()).setCommittedOffset(p.offset())
                        .setCommittedLeaderEpoch(p.leaderEpoch()).setMetadata(p.metadata()));
            }
            response.topics().add(topic);
        }
        return CompletableFuture.completedFuture(response);
    }
}
