package io.tideline.node.api;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.admin.AlterPartitionReassignmentsRequest;
import io.tideline.proto.admin.AlterPartitionReassignmentsResponse;
import io.tideline.proto.admin.ListPartitionReassignmentsRequest;
import io.tideline.proto.admin.ListPartitionReassignmentsResponse;
import io.tideline.proto.admin.ListReassignmentsPartition;
import io.tideline.proto.admin.OngoingPartitionReassignment;
import io.tideline.proto.admin.ReassignPartition;
import io.tideline.proto.admin.ReassignPartitionResult;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.ItemResult;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.TargetReassignment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The admin API's reassignments (Kafka's AlterPartitionReassignments and ListPartitionReassignments, KIP-455).
 * Alter: request-level checks here (a partition named twice, an empty target that is not a cancel), the rest
 * (unknown partition, duplicate or unregistered replicas, cancel of nothing) by the controller, which answers
 * per partition. List: from this broker's metadata image. Stateless; thread-safe.
 */
final class ReassignmentsApi {
    private final Supplier<MetadataImage> image;
    private final ControllerClient controller;

    ReassignmentsApi(Supplier<MetadataImage> image, ControllerClient controller) {
        this.image = Objects.requireNonNull(image, "image");
        this.controller = Objects.requireNonNull(controller, "controller");
    }

    CompletableFuture<AlterPartitionReassignmentsResponse> alter(AlterPartitionReassignmentsRequest request) {
        List<ReassignPartition> items = request.getPartitionsList();
        Set<TopicPartition> twice = RequestChecks.listedTwice(items, ReassignPartition::getTopic,
                ReassignPartition::getPartition);
        ReassignPartitionResult[] results = new ReassignPartitionResult[items.size()];
        List<TargetReassignment> targets = new ArrayList<>();
        List<Integer> sentIndexes = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            ReassignPartition p = items.get(i);
            String problem = problem(p, twice);
            if (problem != null) {
                Errors error = listedTwice(p, twice) ? Errors.INVALID_REQUEST : Errors.INVALID_REPLICA_ASSIGNMENT;
                results[i] = result(p, error, problem);
                continue;
            }
            // The controller reads an empty target as a cancel; that is why a cancel is a flag here.
            targets.add(TargetReassignment.newBuilder().setTopic(p.getTopic()).setPartition(p.getPartition())
                    .addAllReplicas(p.getCancel() ? List.of() : p.getReplicasList()).build());
            sentIndexes.add(i);
        }
        if (targets.isEmpty()) {
            return CompletableFuture.completedFuture(response(results));
        }
        return controller.alterReassignments(targets).handle((r, e) -> {
            for (int k = 0; k < sentIndexes.size(); k++) {
                int i = sentIndexes.get(k);
                results[i] = fromController(items.get(i), r, e, k);
            }
            return response(results);
        });
    }

    /** A negative partition is never in {@code twice} (RequestChecks.listedTwice), and is no TopicPartition. */
    private static boolean listedTwice(ReassignPartition p, Set<TopicPartition> twice) {
        return p.getPartition() >= 0 && twice.contains(new TopicPartition(p.getTopic(), p.getPartition()));
    }

    private static String problem(ReassignPartition p, Set<TopicPartition> twice) {
        if (listedTwice(p, twice)) {
            return p.getTopic() + "-" + p.getPartition() + " is listed twice in the request";
        }
        if (p.getCancel() && p.getReplicasCount() > 0) {
            return "a cancel of " + p.getTopic() + "-" + p.getPartition() + " names no replicas, got "
                    + p.getReplicasList();
        }
        if (!p.getCancel() && p.getReplicasCount() == 0) {
            return "the target replicas of " + p.getTopic() + "-" + p.getPartition() + " are empty";
        }
        return null;
    }

    /** The controller answers one item per target, in order; a whole-command failure applies to each. */
    private static ReassignPartitionResult fromController(ReassignPartition p, ControllerResponse r, Throwable e,
                                                          int index) {
        if (e != null) {
            return result(p, Errors.UNKNOWN_SERVER_ERROR, String.valueOf(e.getMessage()));
        }
        if (r.getErrorCode() != Errors.NONE.code()) {
            return result(p, Errors.forCode(r.getErrorCode()), r.getErrorMessage());
        }
        if (index >= r.getResultsCount()) {
            return result(p, Errors.UNKNOWN_SERVER_ERROR, "the controller's answer does not mention this partition");
        }
        ItemResult item = r.getResults(index);
        return result(p, Errors.forCode(item.getErrorCode()), item.getErrorMessage());
    }

    private static ReassignPartitionResult result(ReassignPartition p, Errors error, String message) {
        return ReassignPartitionResult.newBuilder().setTopic(p.getTopic()).setPartition(p.getPartition())
                .setErrorCode(error.code()).setErrorMessage(message == null ? "" : message).build();
    }

    private static AlterPartitionReassignmentsResponse response(ReassignPartitionResult[] results) {
        return AlterPartitionReassignmentsResponse.newBuilder().addAllResults(List.of(results)).build();
    }

    /**
     * A partition as a request names it: any number, since a partition that cannot exist (a negative one) is
     * simply one that no reassignment moves, left out of the answer like any other (B163).
     */
    private record Named(String topic, int partition) {
    }

    ListPartitionReassignmentsResponse list(ListPartitionReassignmentsRequest request) {
        Set<Named> wanted = new HashSet<>();
        for (ListReassignmentsPartition p : request.getPartitionsList()) {
            wanted.add(new Named(p.getTopic(), p.getPartition()));
        }
        ListPartitionReassignmentsResponse.Builder b = ListPartitionReassignmentsResponse.newBuilder();
        // The image's maps are sorted: topics by name, partitions by number.
        for (TopicImage t : image.get().topics().values()) {
            for (PartitionRecord p : t.partitions().values()) {
                boolean inProgress = p.getAddingReplicasCount() > 0 || p.getRemovingReplicasCount() > 0;
                if (!inProgress || (!wanted.isEmpty() && !wanted.contains(new Named(t.name(), p.getPartition())))) {
                    continue;
                }
                b.addReassignments(OngoingPartitionReassignment.newBuilder().setTopic(t.name())
                        .setPartition(p.getPartition()).addAllReplicas(p.getReplicasList())
                        .addAllAddingReplicas(p.getAddingReplicasList())
                        .addAllRemovingReplicas(p.getRemovingReplicasList()));
            }
        }
        return b.build();
    }
}
