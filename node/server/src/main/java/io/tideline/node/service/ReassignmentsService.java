package io.tideline.node.service;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.ItemResult;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.TargetReassignment;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Reassignments (Kafka's AlterPartitionReassignments and ListPartitionReassignments, KIP-455). Alter: request-level
 * checks here (a partition named twice, an empty target that is not a cancel), the rest (unknown partition,
 * duplicate or unregistered replicas, cancel of nothing) by the controller, which answers per partition. List:
 * from this broker's metadata image. Stateless; thread-safe.
 */
public final class ReassignmentsService {
    private final Supplier<MetadataImage> image;
    private final ControllerClient controller;

    /** A target replica list (B65), or a cancel of the reassignment in progress (B66), which names no replicas. */
    public record Reassignment(String topic, int partition, boolean cancel, List<Integer> replicas) {
        public Reassignment {
            replicas = List.copyOf(replicas);
        }
    }

    public record ReassignmentResult(String topic, int partition, ApiError error) {
    }

    /** A reassignment in progress: all replicas during the move, the adding and removing ones named apart. */
    public record Ongoing(String topic, int partition, List<Integer> replicas, List<Integer> addingReplicas,
                          List<Integer> removingReplicas) {
    }

    public ReassignmentsService(Supplier<MetadataImage> image, ControllerClient controller) {
        this.image = Objects.requireNonNull(image, "image");
        this.controller = Objects.requireNonNull(controller, "controller");
    }

    /** One result per item, in request order; the future never fails. */
    public CompletableFuture<List<ReassignmentResult>> alter(List<Reassignment> items) {
        Set<TopicPartition> twice = RequestChecks.listedTwice(items, Reassignment::topic, Reassignment::partition);
        ReassignmentResult[] results = new ReassignmentResult[items.size()];
        List<TargetReassignment> targets = new ArrayList<>();
        List<Integer> sentIndexes = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            Reassignment p = items.get(i);
            String problem = problem(p, twice);
            if (problem != null) {
                Errors error = listedTwice(p, twice) ? Errors.INVALID_REQUEST : Errors.INVALID_REPLICA_ASSIGNMENT;
                results[i] = result(p, error, problem);
                continue;
            }
            // The controller reads an empty target as a cancel; that is why a cancel is a flag here.
            targets.add(TargetReassignment.newBuilder().setTopic(p.topic()).setPartition(p.partition())
                    .addAllReplicas(p.cancel() ? List.of() : p.replicas()).build());
            sentIndexes.add(i);
        }
        if (targets.isEmpty()) {
            return CompletableFuture.completedFuture(List.of(results));
        }
        return controller.alterReassignments(targets).handle((r, e) -> {
            for (int k = 0; k < sentIndexes.size(); k++) {
                int i = sentIndexes.get(k);
                results[i] = fromController(items.get(i), r, e, k);
            }
            return List.of(results);
        });
    }

    /** A negative partition is never in {@code twice} (RequestChecks.listedTwice), and is no TopicPartition. */
    private static boolean listedTwice(Reassignment p, Set<TopicPartition> twice) {
        return p.partition() >= 0 && twice.contains(new TopicPartition(p.topic(), p.partition()));
    }

    private static String problem(Reassignment p, Set<TopicPartition> twice) {
        if (listedTwice(p, twice)) {
            return p.topic() + "-" + p.partition() + " is listed twice in the request";
        }
        if (p.cancel() && !p.replicas().isEmpty()) {
            return "a cancel of " + p.topic() + "-" + p.partition() + " names no replicas, got " + p.replicas();
        }
        if (!p.cancel() && p.replicas().isEmpty()) {
            return "the target replicas of " + p.topic() + "-" + p.partition() + " are empty";
        }
        return null;
    }

    /** The controller answers one item per target, in order; a whole-command failure applies to each. */
    private static ReassignmentResult fromController(Reassignment p, ControllerResponse r, Throwable e, int index) {
        if (e != null) {
            return new ReassignmentResult(p.topic(), p.partition(), ApiError.unexpected(e));
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

    private static ReassignmentResult result(Reassignment p, Errors error, String message) {
        return new ReassignmentResult(p.topic(), p.partition(), new ApiError(error, message));
    }

    /**
     * The reassignments in progress, of every partition when {@code wanted} is empty, else of those named (any
     * number: a partition that cannot exist is simply one that no reassignment moves, left out like any other,
     * B163). Sorted by topic, then partition.
     */
    public List<Ongoing> list(Collection<PartitionRef> wanted) {
        Set<PartitionRef> named = new HashSet<>(wanted);
        List<Ongoing> out = new ArrayList<>();
        // The image's maps are sorted: topics by name, partitions by number.
        for (TopicImage t : image.get().topics().values()) {
            for (PartitionRecord p : t.partitions().values()) {
                boolean inProgress = p.getAddingReplicasCount() > 0 || p.getRemovingReplicasCount() > 0;
                if (!inProgress || (!named.isEmpty() && !named.contains(new PartitionRef(t.name(), p.getPartition())))) {
                    continue;
                }
                out.add(new Ongoing(t.name(), p.getPartition(), List.copyOf(p.getReplicasList()),
                        List.copyOf(p.getAddingReplicasList()), List.copyOf(p.getRemovingReplicasList())));
            }
        }
        return out;
    }
}
