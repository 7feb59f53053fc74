package io.tideline.node.service;

import io.tideline.common.errors.Errors;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.proto.metadata.ConfigEntry;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.CreatableTopic;
import io.tideline.proto.metadata.CreatePartitionsItem;
import io.tideline.proto.metadata.ItemResult;
import io.tideline.proto.metadata.ReplicaAssignment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Topic changes: CreateTopics, DeleteTopics and CreatePartitions go to the metadata quorum, which validates them
 * (names, counts, assignments, configs) and answers per topic. Stateless; thread-safe.
 */
public final class TopicsService {
    private final ControllerClient controller;
    private final int defaultNumPartitions;
    private final int defaultReplicationFactor;

    /** A topic to create; -1 partitions or replication factor without assignments is unset (see {@link #withDefaults}). */
    public record NewTopic(String name, int numPartitions, int replicationFactor, List<ConfigValue> configs,
                           List<Assignment> assignments) {
        public NewTopic {
            configs = List.copyOf(configs);
            assignments = List.copyOf(assignments);
        }
    }

    /** The replicas of one partition of a new topic, the preferred leader first. */
    public record Assignment(int partition, List<Integer> replicas) {
        public Assignment {
            replicas = List.copyOf(replicas);
        }
    }

    /** A topic that gets partitions up to {@code totalCount}. */
    public record NewPartitions(String name, int totalCount) {
    }

    /** The answer for one topic; {@code topicId} is "" unless the controller names it. */
    public record TopicResult(String name, ApiError error, String topicId) {
    }

    /**
     * @param defaultNumPartitions     num.partitions, for a new topic's -1 partitions without assignments
     * @param defaultReplicationFactor default.replication.factor, for its -1 replication factor without assignments
     */
    public TopicsService(ControllerClient controller, int defaultNumPartitions, int defaultReplicationFactor) {
        this.controller = Objects.requireNonNull(controller, "controller");
        this.defaultNumPartitions = defaultNumPartitions;
        this.defaultReplicationFactor = defaultReplicationFactor;
    }

    /**
     * The topic with this broker's defaults in place of -1: without assignments -1 is "unset", as in Kafka's
     * CreateTopics (docs/behaviours.md B242).
     */
    public NewTopic withDefaults(NewTopic t) {
        boolean assigned = !t.assignments().isEmpty();
        return new NewTopic(t.name(), t.numPartitions() == -1 && !assigned ? defaultNumPartitions : t.numPartitions(),
                t.replicationFactor() == -1 && !assigned ? defaultReplicationFactor : t.replicationFactor(),
                t.configs(), t.assignments());
    }

    /** Creates (or with {@code validateOnly} only validates) the topics; the future never fails. */
    public CompletableFuture<List<TopicResult>> createTopics(List<NewTopic> topics, boolean validateOnly) {
        List<CreatableTopic> commands = new ArrayList<>();
        for (NewTopic requested : topics) {
            NewTopic t = withDefaults(requested);
            CreatableTopic.Builder c = CreatableTopic.newBuilder().setName(t.name())
                    .setNumPartitions(t.numPartitions()).setReplicationFactor(t.replicationFactor());
            for (ConfigValue v : t.configs()) {
                c.addConfigs(ConfigEntry.newBuilder().setKey(v.key()).setValue(v.value()));
            }
            for (Assignment a : t.assignments()) {
                c.addAssignments(ReplicaAssignment.newBuilder().setPartition(a.partition()).addAllReplicas(a.replicas()));
            }
            commands.add(c.build());
        }
        List<String> names = topics.stream().map(NewTopic::name).toList();
        return controller.createTopics(commands, validateOnly).handle((r, e) -> topicResults(names, r, e));
    }

    /** The future never fails. */
    public CompletableFuture<List<TopicResult>> deleteTopics(List<String> names) {
        List<String> copy = List.copyOf(names);
        return controller.deleteTopics(copy).handle((r, e) -> topicResults(copy, r, e));
    }

    /** The future never fails. */
    public CompletableFuture<List<TopicResult>> createPartitions(List<NewPartitions> topics) {
        List<CreatePartitionsItem> items = topics.stream().map(t -> CreatePartitionsItem.newBuilder()
                .setName(t.name()).setTotalCount(t.totalCount()).build()).toList();
        List<String> names = topics.stream().map(NewPartitions::name).toList();
        return controller.createPartitions(items).handle((r, e) -> topicResults(names, r, e));
    }

    /**
     * Per-topic results of a controller command, in the controller's order; a whole-command failure applies to
     * every topic named.
     */
    private static List<TopicResult> topicResults(List<String> names, ControllerResponse r, Throwable e) {
        List<TopicResult> results = new ArrayList<>();
        if (e != null || r.getErrorCode() != Errors.NONE.code()) {
            ApiError error = e != null ? ApiError.unexpected(e)
                    : new ApiError(Errors.forCode(r.getErrorCode()), r.getErrorMessage());
            for (String name : names) {
                results.add(new TopicResult(name, error, ""));
            }
            return results;
        }
        for (ItemResult item : r.getResultsList()) {
            results.add(new TopicResult(item.getName(), new ApiError(Errors.forCode(item.getErrorCode()),
                    item.getErrorMessage()), item.getTopicId()));
        }
        return results;
    }
}
