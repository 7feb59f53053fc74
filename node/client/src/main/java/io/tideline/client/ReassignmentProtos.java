package io.tideline.client;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.admin.AlterPartitionReassignmentsRequest;
import io.tideline.proto.admin.AlterPartitionReassignmentsResponse;
import io.tideline.proto.admin.ListPartitionReassignmentsRequest;
import io.tideline.proto.admin.ListPartitionReassignmentsResponse;
import io.tideline.proto.admin.ListReassignmentsPartition;
import io.tideline.proto.admin.OngoingPartitionReassignment;
import io.tideline.proto.admin.ReassignPartition;
import io.tideline.proto.admin.ReassignPartitionResult;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The wire form of the reassignment calls of {@link TidelineAdmin}, both ways. Stateless. */
final class ReassignmentProtos {
    private ReassignmentProtos() {
    }

    /** {@code Optional.empty()} is Kafka's null target: cancel. */
    static AlterPartitionReassignmentsRequest alterRequest(Map<TopicPartition, Optional<List<Integer>>> targets) {
        AlterPartitionReassignmentsRequest.Builder b = AlterPartitionReassignmentsRequest.newBuilder();
        targets.forEach((tp, target) -> b.addPartitions(ReassignPartition.newBuilder().setTopic(tp.topic())
                .setPartition(tp.partition()).setCancel(target.isEmpty()).addAllReplicas(target.orElse(List.of()))));
        return b.build();
    }

    /** One result per requested partition, in request order. */
    static Map<TopicPartition, ReassignmentResult> results(Collection<TopicPartition> requested,
                                                           AlterPartitionReassignmentsResponse response) {
        Errors whole = Errors.forCode(response.getErrorCode());
        Map<TopicPartition, ReassignmentResult> answered = new LinkedHashMap<>();
        for (ReassignPartitionResult r : response.getResultsList()) {
            TopicPartition tp = new TopicPartition(r.getTopic(), r.getPartition());
            Errors error = Errors.forCode(r.getErrorCode());
            answered.put(tp, new ReassignmentResult(tp, error, AdminProtos.message(error, r.getErrorMessage())));
        }
        Map<TopicPartition, ReassignmentResult> ordered = new LinkedHashMap<>();
        for (TopicPartition tp : requested) {
            ReassignmentResult r = answered.get(tp);
            if (r == null) {
                r = whole != Errors.NONE ? new ReassignmentResult(tp, whole, AdminProtos.message(whole, response.getErrorMessage()))
                        : new ReassignmentResult(tp, Errors.UNKNOWN_SERVER_ERROR, "the broker's answer does not mention this partition");
            }
            ordered.put(tp, r);
        }
        return ordered;
    }

    static ListPartitionReassignmentsRequest listRequest(Collection<TopicPartition> partitions) {
        ListPartitionReassignmentsRequest.Builder b = ListPartitionReassignmentsRequest.newBuilder();
        partitions.forEach(tp -> b.addPartitions(ListReassignmentsPartition.newBuilder().setTopic(tp.topic())
                .setPartition(tp.partition())));
        return b.build();
    }

    static Map<TopicPartition, PartitionReassignment> ongoing(ListPartitionReassignmentsResponse response) {
        Map<TopicPartition, PartitionReassignment> out = new LinkedHashMap<>();
        for (OngoingPartitionReassignment r : response.getReassignmentsList()) {
            TopicPartition tp = new TopicPartition(r.getTopic(), r.getPartition());
            out.put(tp, new PartitionReassignment(tp, r.getReplicasList(), r.getAddingReplicasList(),
                    r.getRemovingReplicasList()));
        }
        return out;
    }
}
