package io.tideline.node.group;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;

/**
 * OffsetCommit's Kafka message to and from the coordinator's own {@link GroupOffsets.OffsetCommit}, so Kafka's
 * OffsetCommit and the admin API's offset reset run one commit operation. Stateless.
 */
final class OffsetCommitMessages {
    private OffsetCommitMessages() {
    }

    static GroupOffsets.OffsetCommit toCommit(OffsetCommitRequestData req) {
        List<GroupOffsets.PartitionOffset> offsets = new ArrayList<>();
        for (OffsetCommitRequestData.OffsetCommitRequestTopic t : req.topics()) {
            for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                offsets.add(new GroupOffsets.PartitionOffset(t.name(), p.partitionIndex(), p.committedOffset(),
                        p.committedLeaderEpoch(), p.committedMetadata()));
            }
        }
        return new GroupOffsets.OffsetCommit(req.groupId(), req.generationIdOrMemberEpoch(), req.memberId(),
                req.groupInstanceId(), offsets);
    }

    static OffsetCommitResponseData answer(OffsetCommitRequestData req, GroupOffsets.CommitOutcome outcome) {
        OffsetCommitResponseData response = new OffsetCommitResponseData();
        for (OffsetCommitRequestData.OffsetCommitRequestTopic t : req.topics()) {
            OffsetCommitResponseTopic topic = new OffsetCommitResponseTopic().setName(t.name());
            for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                topic.partitions().add(new OffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex())
                        .setErrorCode(outcome.partition(t.name(), p.partitionIndex()).code()));
            }
            response.topics().add(topic);
        }
        return response;
    }
}
