package io.tideline.node.kafka;

import io.tideline.node.controller.CommandChecks;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.CreatableTopic;
import io.tideline.proto.metadata.ItemResult;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code auto.create.topics.enable}: the topics a Kafka Metadata request names that do not exist are created
 * through the controller with this broker's {@code num.partitions} and {@code default.replication.factor}
 * (docs/behaviours.md B240-B241). The controller validates them as any CreateTopics (name rules, replication
 * factor against the registered brokers, {@code max.partitions}); before it is asked, this class refuses what Kafka's
 * broker refuses without asking (an invalid name, one of Kafka's internal topics) and bounds the request to what
 * one CreateTopics may add.
 *
 * <p>Stateless apart from its settings; safe for concurrent use.
 */
public final class TopicAutoCreation {
    private static final Logger log = LoggerFactory.getLogger(TopicAutoCreation.class);

    private final boolean enabled;
    private final int numPartitions;
    private final int replicationFactor;
    private final Function<List<CreatableTopic>, CompletableFuture<ControllerResponse>> controller;

    /**
     * @param controller sends one CreateTopics command to the controller (not validate-only)
     */
    public TopicAutoCreation(boolean enabled, int numPartitions, int replicationFactor,
                             Function<List<CreatableTopic>, CompletableFuture<ControllerResponse>> controller) {
        this.enabled = enabled;
        this.numPartitions = numPartitions;
        this.replicationFactor = replicationFactor;
        this.controller = controller;
    }

    public boolean enabled() {
        return enabled;
    }

    /** What to do with the missing topics of one request: those to send, and the answers of the others. */
    record Plan(List<String> create, Map<String, Errors> refused) {
    }

    /**
     * Decides without the controller. An invalid name is INVALID_TOPIC_EXCEPTION, as Kafka's broker answers
     * before it asks its controller; Kafka's internal topics ({@code __consumer_offsets}, ...) hold nothing here
     * (group offsets live in the metadata quorum), so they are not created and stay UNKNOWN_TOPIC_OR_PARTITION.
     * Topics past what one CreateTopics may add ({@link CommandChecks#MAX_PARTITIONS_PER_REQUEST} partitions,
     * {@link CommandChecks#MAX_ITEMS_PER_REQUEST} topics) are UNKNOWN_TOPIC_OR_PARTITION too, retriable: the
     * client's next Metadata creates the next ones. The first topic is always sent, so a num.partitions above the
     * bound gets the controller's refusal rather than silence.
     */
    static Plan plan(Collection<String> missing, int numPartitions) {
        List<String> create = new ArrayList<>();
        Map<String, Errors> refused = new LinkedHashMap<>();
        long partitions = 0;
        for (String name : new LinkedHashSet<>(missing)) {
            if (!validName(name)) {
                refused.put(name, Errors.INVALID_TOPIC_EXCEPTION);
            } else if (Topic.isInternal(name)) {
                refused.put(name, Errors.UNKNOWN_TOPIC_OR_PARTITION);
            } else if (!create.isEmpty() && (create.size() >= CommandChecks.MAX_ITEMS_PER_REQUEST
                    || partitions + numPartitions > CommandChecks.MAX_PARTITIONS_PER_REQUEST)) {
                refused.put(name, Errors.UNKNOWN_TOPIC_OR_PARTITION);
            } else {
                create.add(name);
                partitions += numPartitions;
            }
        }
        return new Plan(create, refused);
    }

    static boolean validName(String name) {
        try {
            Topic.validate(name);
            return true;
        } catch (InvalidTopicException e) {
            return false;
        }
    }

    /**
     * Creates what {@link #plan} allows and completes with each missing topic's outcome: NONE when the controller
     * created it (or another request did first), else the error the Metadata answer carries for it. Never
     * completes exceptionally: a controller that cannot be reached leaves the topics UNKNOWN_TOPIC_OR_PARTITION,
     * which clients retry.
     */
    public CompletableFuture<Map<String, Errors>> create(Collection<String> missing, String clientId) {
        if (!enabled) {
            throw new IllegalStateException("auto topic creation is disabled");
        }
        Plan plan = plan(missing, numPartitions);
        Map<String, Errors> outcome = new LinkedHashMap<>(plan.refused());
        if (plan.create().isEmpty()) {
            return CompletableFuture.completedFuture(outcome);
        }
        List<CreatableTopic> topics = plan.create().stream().map(name -> CreatableTopic.newBuilder().setName(name)
                .setNumPartitions(numPartitions).setReplicationFactor(replicationFactor).build()).toList();
        return controller.apply(topics).handle((response, failure) -> {
            if (failure != null || response.getErrorCode() != Errors.NONE.code()) {
                Errors error = failure != null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.forCode((short) response.getErrorCode());
                log.info("Auto-creating topics {} for client '{}' failed: {}", plan.create(), clientId,
                        failure != null ? failure.toString() : error + " " + response.getErrorMessage());
                plan.create().forEach(name -> outcome.put(name, error));
                return outcome;
            }
            Map<String, ItemResult> byName = new LinkedHashMap<>();
            response.getResultsList().forEach(r -> byName.put(r.getName(), r));
            for (String name : plan.create()) {
                ItemResult r = byName.get(name);
                Errors error = r == null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.forCode((short) r.getErrorCode());
                if (error == Errors.NONE) {
                    log.info("Auto-created topic '{}' ({} partitions, replication factor {}) for client '{}'", name,
                            numPartitions, replicationFactor, clientId);
                } else if (error == Errors.TOPIC_ALREADY_EXISTS) {
                    error = Errors.NONE;
                } else {
                    log.info("Auto-creating topic '{}' for client '{}' failed: {} {}", name, clientId, error,
                            r.getErrorMessage());
                }
                outcome.put(name, error);
            }
            return outcome;
        });
    }
}
