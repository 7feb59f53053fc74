package io.tideline.node.kafka.admin;

import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.ErrorMessages;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.service.ReassignmentsService;
import io.tideline.node.service.ReassignmentsService.Reassignment;
import io.tideline.node.service.ReassignmentsService.ReassignmentResult;
import io.tideline.proto.metadata.PartitionRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignableTopicResponse;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's AlterPartitionReassignments (v0-1, KIP-455) over {@link ReassignmentsService#alter}: a null replica list
 * cancels the reassignment in progress (B66), a list is the target (B65); the controller validates each
 * partition. v1's allow_replication_factor_change=false refuses a target whose size differs from the
 * partition's replication factor with INVALID_REPLICATION_FACTOR, checked against this broker's image.
 */
final class AlterPartitionReassignmentsApi extends AbstractKafkaApi {
    private final AdminDeps deps;

    AlterPartitionReassignmentsApi(AdminDeps deps) {
        super(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, 0, 1);
        this.deps = deps;
    }

    /**
     * One partition of the request, answered in request order: refused here, or the {@code index}-th item
     * sent to the service (which answers by position).
     */
    private record Slot(String topic, int partition, ReassignablePartitionResponse refused, int index) {
    }

    @Override
    public CompletableFuture<AlterPartitionReassignmentsResponseData> handle(KafkaRequest request) {
        AlterPartitionReassignmentsRequestData data = request.body(AlterPartitionReassignmentsRequestData.class);
        boolean checkFactor = request.version() >= 1 && !data.allowReplicationFactorChange();
        MetadataImage image = deps.image().get();
        List<Slot> order = new ArrayList<>();
        List<Reassignment> sent = new ArrayList<>();
        for (ReassignableTopic t : data.topics()) {
            for (ReassignablePartition p : t.partitions()) {
                String refused = checkFactor && p.replicas() != null ? factorChange(image, t.name(), p) : null;
                if (refused != null) {
                    order.add(new Slot(t.name(), p.partitionIndex(), new ReassignablePartitionResponse()
                            .setPartitionIndex(p.partitionIndex()).setErrorCode(Errors.INVALID_REPLICATION_FACTOR.code())
                            .setErrorMessage(ErrorMessages.bounded(refused)), -1));
                    continue;
                }
                order.add(new Slot(t.name(), p.partitionIndex(), null, sent.size()));
                sent.add(new Reassignment(t.name(), p.partitionIndex(), p.replicas() == null,
                        p.replicas() == null ? List.of() : p.replicas()));
            }
        }
        CompletableFuture<List<ReassignmentResult>> answer = sent.isEmpty()
                ? CompletableFuture.completedFuture(List.of())
                : Answers.call(() -> deps.services().reassignments().alter(sent));
        return answer.handle((r, e) -> {
            AlterPartitionReassignmentsResponseData out = new AlterPartitionReassignmentsResponseData()
                    .setAllowReplicationFactorChange(data.allowReplicationFactorChange());
            Map<String, ReassignableTopicResponse> topics = new LinkedHashMap<>();
            for (Slot slot : order) {
                ReassignablePartitionResponse result = slot.refused() != null ? slot.refused()
                        : fromService(slot.partition(), r, e, slot.index());
                topics.computeIfAbsent(slot.topic(), n -> new ReassignableTopicResponse().setName(n)
                        .setPartitions(new ArrayList<>())).partitions().add(result);
            }
            out.setResponses(new ArrayList<>(topics.values()));
            return out;
        });
    }

    private static ReassignablePartitionResponse fromService(int partition, List<ReassignmentResult> r,
                                                             Throwable e, int index) {
        ReassignablePartitionResponse out = new ReassignablePartitionResponse().setPartitionIndex(partition);
        if (e != null || index >= r.size()) {
            return out.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code())
                    .setErrorMessage(e != null ? Answers.message(e) : "the answer does not mention this partition");
        }
        ReassignmentResult item = r.get(index);
        return out.setErrorCode(item.error().code()).setErrorMessage(Answers.message(item.error().message()));
    }

    /** Why a target changes the replication factor, or null when it does not (or the partition is unknown). */
    private static String factorChange(MetadataImage image, String topic, ReassignablePartition p) {
        PartitionRecord record = image.topic(topic).map(t -> t.partition(p.partitionIndex())).orElse(null);
        if (record == null) {
            return null;
        }
        // During a move the replica list holds the original replicas plus the adding ones.
        int factor = record.getReplicasCount() - record.getAddingReplicasCount();
        if (p.replicas().size() == factor) {
            return null;
        }
        return "the target " + p.replicas() + " of " + topic + "-" + p.partitionIndex() + " changes the replication "
                + "factor from " + factor + " and allow_replication_factor_change is false";
    }
}
