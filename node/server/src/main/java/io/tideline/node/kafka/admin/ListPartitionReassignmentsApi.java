package io.tideline.node.kafka.admin;

import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.service.PartitionRef;
import io.tideline.node.service.ReassignmentsService;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingTopicReassignment;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Kafka's ListPartitionReassignments (v0) over {@link ReassignmentsService#list}, answered from this broker's image:
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
        List<PartitionRef> wanted = new ArrayList<>();
        if (data.topics() != null) {
            data.topics().forEach(t -> t.partitionIndexes().forEach(p -> wanted.add(new PartitionRef(t.name(), p))));
            // The service reads "no partitions" as "all"; Kafka's non-null empty list asks for none.
            if (wanted.isEmpty()) {
                return CompletableFuture.completedFuture(new ListPartitionReassignmentsResponseData());
            }
        }
        return Answers.call(() -> CompletableFuture.completedFuture(deps.services().reassignments().list(wanted)))
                .thenApply(r -> {
            Map<String, OngoingTopicReassignment> topics = new LinkedHashMap<>();
            for (ReassignmentsService.Ongoing p : r) {
                topics.computeIfAbsent(p.topic(), n -> new OngoingTopicReassignment().setName(n)
                        .setPartitions(new ArrayList<>())).partitions().add(
                        new ListPartitionReassignmentsResponseData.OngoingPartitionReassignment()
                                .setPartitionIndex(p.partition()).setReplicas(new ArrayList<>(p.replicas()))
                                .setAddingReplicas(new ArrayList<>(p.addingReplicas()))
                                .setRemovingReplicas(new ArrayList<>(p.removingReplicas())));
            }
            return new ListPartitionReassignmentsResponseData().setTopics(new ArrayList<>(topics.values()));
        });
    }
}
