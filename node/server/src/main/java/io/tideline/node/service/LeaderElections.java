package io.tideline.node.service;

import io.tideline.common.errors.Errors;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.proto.metadata.ItemResult;
import io.tideline.proto.metadata.TopicPartitionRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * ElectLeaders, which the controller runs: type 0 elects the preferred leader, 1 an unclean one (any other type
 * is INVALID_REQUEST); no partitions means every partition. Stateless; thread-safe.
 */
public final class LeaderElections {
    public static final int PREFERRED = 0;
    public static final int UNCLEAN = 1;

    private final ControllerClient controller;

    /** A whole-request error (no partition results then), or NONE with one result per partition elected or not. */
    public record Outcome(ApiError error, List<PartitionOutcome> results) {
        public Outcome {
            results = List.copyOf(results);
        }
    }

    public record PartitionOutcome(String topic, int partition, ApiError error) {
    }

    public LeaderElections(ControllerClient controller) {
        this.controller = Objects.requireNonNull(controller, "controller");
    }

    /** The future never fails. */
    public CompletableFuture<Outcome> electLeaders(List<PartitionRef> partitions, int electionType) {
        if (electionType != PREFERRED && electionType != UNCLEAN) {
            return CompletableFuture.completedFuture(new Outcome(new ApiError(Errors.INVALID_REQUEST,
                    "election_type must be 0 (preferred) or 1 (unclean), got " + electionType), List.of()));
        }
        List<TopicPartitionRef> refs = partitions.stream().map(p -> TopicPartitionRef.newBuilder()
                .setTopic(p.topic()).setPartition(p.partition()).build()).toList();
        return controller.electLeaders(refs, electionType).handle((r, e) -> {
            if (e != null) {
                return new Outcome(ApiError.unexpected(e), List.of());
            }
            if (r.getErrorCode() != Errors.NONE.code()) {
                return new Outcome(new ApiError(Errors.forCode(r.getErrorCode()), r.getErrorMessage()), List.of());
            }
            List<PartitionOutcome> results = new ArrayList<>();
            for (ItemResult item : r.getResultsList()) {
                // The controller names an item "topic-partition"; topic names may contain '-'.
                int dash = item.getName().lastIndexOf('-');
                results.add(new PartitionOutcome(item.getName().substring(0, dash),
                        Integer.parseInt(item.getName().substring(dash + 1)),
                        new ApiError(Errors.forCode(item.getErrorCode()), item.getErrorMessage())));
            }
            return new Outcome(ApiError.NONE, results);
        });
    }
}
