package io.tideline.node.kafka.admin;

import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.proto.admin.ListPartitionReassignmentsRequest;
import io.tideline.proto.admin.ListReassignmentsPartition;
import io.tideline.proto.admin.OngoingPartitionReassignment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingTopicReassignment;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Kafka's ListPartitionReassignments (v0) over the gRPC admin service's, answered from this broker's image:
 * null topics lists every reassignment in progress, named partitions only those (unknown or idle ones are left
 * out, as in Kafka). Replicas are all of them during a move, adding and removing ones named apart.
 */
final class ListPartitionReassignmentsApi extends AbstractKafkaApi {
    private final AdminDeps deps;

    ListPartitionReassignmentsApi(AdminDeps deps) {
        super(ApiKeys.LIST_PARTITION_REASSIGNMENTS, 0, 0);
        this.deps = deps;
    }

    @Override
    public CompletableFuture<ListPartitionReassignmentsResponseData> handle(KafkaRequest request) {
        ListPartitionReassignmentsRequestData data = request.body(ListPartitionReassignmentsRequestData.class);
        ListPartitionReassignmentsRequest.Builder grpc = ListPartitionReassignmentsRequest.newBuilder();
        if (data.topics() != null) {
            data.topics().forEach(t -> t.partitionIndexes().forEach(p -> grpc.addPartitions(
                    ListReassignmentsPartition.newBuilder().setTopic(t.name()).setPartition(p))));
            // The gRPC call reads "no partitions" as "all"; Kafka's non-null empty list asks for none.
            if (grpc.getPartitionsCount() == 0) {
                return CompletableFuture.completedFuture(new ListPartitionReassignmentsResponseData());
            }
        }
        return GrpcCall.call(deps.admin()::listPartitionReassignments, grpc.build()).thenApply(r -> {
            Map<String, OngoingTopicReassignment> topics = new LinkedHashMap<>();
            for (OngoingPartitionReassignment p : r.getReassignmentsList()) {
                topics.computeIfAbsent(p.getTopic(), n -> new OngoingTopicReassignment().setName(n)
                        .setPartitions(new ArrayList<>())).partitions().add(
                        new ListPartitionReassignmentsResponseData.OngoingPartitionReassignment()
                                .setPartitionIndex(p.getPartition()).setReplicas(new ArrayList<>(p.getReplicasList()))
                                .setAddingReplicas(new ArrayList<>(p.getAddingReplicasList()))
                                .setRemovingReplicas(new ArrayList<>(p.getRemovingReplicasList())));
            }
            return new ListPartitionReassignmentsResponseData().setTopics(new ArrayList<>(topics.values()));
        });
    }
}
