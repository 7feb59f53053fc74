package io.tideline.node.kafka.admin;

import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.service.RecordsService;
import io.tideline.node.service.RecordsService.DeleteRecordsTarget;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's DeleteRecords (v0-2): {@link RecordsService#deleteRecords}, so the offset table is exactly
 * docs/behaviours.md B23-B25 (-1 the high watermark, 0 a no-op, below -1 or above the high watermark
 * OFFSET_OUT_OF_RANGE, NOT_LEADER_OR_FOLLOWER off the leader, REQUEST_TIMED_OUT with the low watermark so far,
 * timeout_ms 0 the default 30 s). The answer has no message field; the low watermark is -1 on errors (B23).
 */
final class DeleteRecordsApi extends AbstractKafkaApi {
    private final AdminDeps deps;

    DeleteRecordsApi(AdminDeps deps) {
        super(ApiKeys.DELETE_RECORDS, 0, 2);
        this.deps = deps;
    }

    @Override
    public CompletableFuture<DeleteRecordsResponseData> handle(KafkaRequest request) {
        DeleteRecordsRequestData data = request.body(DeleteRecordsRequestData.class);
        List<DeleteRecordsTarget> targets = new ArrayList<>();
        data.topics().forEach(t -> t.partitions().forEach(p -> targets.add(new DeleteRecordsTarget(t.name(),
                p.partitionIndex(), p.offset()))));
        if (targets.isEmpty()) {
            return CompletableFuture.completedFuture(new DeleteRecordsResponseData());
        }
        return Answers.call(() -> deps.services().records().deleteRecords(targets, data.timeoutMs())).handle((r, e) -> {
            DeleteRecordsResponseData out = new DeleteRecordsResponseData();
            if (e != null) {
                // Every partition of the request gets the failure: the client retries what it must.
                data.topics().forEach(t -> t.partitions().forEach(p -> topic(out, t.name()).partitions().add(
                        new DeleteRecordsPartitionResult().setPartitionIndex(p.partitionIndex()).setLowWatermark(-1)
                                .setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()))));
                return out;
            }
            for (RecordsService.DeleteRecordsResult p : r) {
                topic(out, p.topic()).partitions().add(new DeleteRecordsPartitionResult()
                        .setPartitionIndex(p.partition()).setLowWatermark(p.lowWatermark())
                        .setErrorCode(p.error().code()));
            }
            return out;
        });
    }

    private static DeleteRecordsTopicResult topic(DeleteRecordsResponseData out, String name) {
        DeleteRecordsTopicResult t = out.topics().find(name);
        if (t == null) {
            t = new DeleteRecordsTopicResult().setName(name);
            out.topics().add(t);
        }
        return t;
    }
}
