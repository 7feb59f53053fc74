package io.tideline.node.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.node.controller.CommandChecks;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.CreatableTopic;
import io.tideline.proto.metadata.ItemResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** The decisions of auto.create.topics.enable (docs/behaviours.md B240-B241) against a scripted controller. */
class TopicAutoCreationTest {
    private final List<List<CreatableTopic>> sent = new ArrayList<>();

    private TopicAutoCreation creation(int partitions, int replicationFactor, ControllerResponse answer) {
        return new TopicAutoCreation(true, partitions, replicationFactor, topics -> {
            sent.add(topics);
            return CompletableFuture.completedFuture(answer);
        });
    }

    private static ItemResult item(String name, Errors error) {
        return ItemResult.newBuilder().setName(name).setErrorCode(error.code()).build();
    }

    @Test
    void missingTopicsAreSentWithTheBrokersDefaultsAndInvalidOrInternalNamesAreNot() {
        ControllerResponse answer = ControllerResponse.newBuilder().addResults(item("orders", Errors.NONE))
                .addResults(item("raced", Errors.TOPIC_ALREADY_EXISTS)).build();
        Map<String, Errors> outcome = creation(3, 2, answer)
                .create(List.of("orders", "bad name!", "__consumer_offsets", "raced", "orders"), "c1").join();

        assertEquals(1, sent.size());
        assertEquals(List.of("orders", "raced"), sent.get(0).stream().map(CreatableTopic::getName).toList());
        sent.get(0).forEach(t -> {
            assertEquals(3, t.getNumPartitions());
            assertEquals(2, t.getReplicationFactor());
            assertEquals(0, t.getAssignmentsCount());
        });
        assertEquals(Map.of("orders", Errors.NONE, "raced", Errors.NONE, "bad name!", Errors.INVALID_TOPIC_EXCEPTION,
                "__consumer_offsets", Errors.UNKNOWN_TOPIC_OR_PARTITION), outcome);
    }

    @Test
    void theControllersRefusalOfATopicIsItsAnswer() {
        ControllerResponse answer = ControllerResponse.newBuilder()
                .addResults(item("wide", Errors.INVALID_REPLICATION_FACTOR)).build();
        assertEquals(Map.of("wide", Errors.INVALID_REPLICATION_FACTOR),
                creation(1, 4, answer).create(List.of("wide"), "c1").join());

        ControllerResponse whole = ControllerResponse.newBuilder().setErrorCode(Errors.POLICY_VIOLATION.code())
                .setErrorMessage("cluster full").build();
        assertEquals(Map.of("a", Errors.POLICY_VIOLATION, "b", Errors.POLICY_VIOLATION),
                creation(1, 1, whole).create(List.of("a", "b"), "c1").join());
    }

    @Test
    void aControllerThatCannotBeReachedLeavesTheTopicsUnknownWhichClientsRetry() {
        TopicAutoCreation failing = new TopicAutoCreation(true, 1, 1,
                topics -> CompletableFuture.failedFuture(new IllegalStateException("no quorum")));
        assertEquals(Map.of("t", Errors.UNKNOWN_TOPIC_OR_PARTITION), failing.create(List.of("t"), "c1").join());
    }

    @Test
    void oneRequestCreatesNoMoreThanOneCreateTopicsMayAdd() {
        List<String> names = IntStream.range(0, 30).mapToObj(i -> "t" + i).toList();
        int perTopic = 1000;
        TopicAutoCreation.Plan plan = TopicAutoCreation.plan(names, perTopic);
        assertEquals(CommandChecks.MAX_PARTITIONS_PER_REQUEST / perTopic, plan.create().size());
        assertEquals(names.subList(0, plan.create().size()), plan.create());
        assertEquals(names.size() - plan.create().size(), plan.refused().size());
        assertTrue(plan.refused().values().stream().allMatch(e -> e == Errors.UNKNOWN_TOPIC_OR_PARTITION));

        List<String> many = IntStream.range(0, CommandChecks.MAX_ITEMS_PER_REQUEST + 5).mapToObj(i -> "m" + i).toList();
        assertEquals(CommandChecks.MAX_ITEMS_PER_REQUEST, TopicAutoCreation.plan(many, 1).create().size());

        // A num.partitions above the bound still sends the first topic, so the controller's refusal is the answer.
        TopicAutoCreation.Plan huge = TopicAutoCreation.plan(List.of("h1", "h2"), CommandChecks.MAX_PARTITIONS_PER_REQUEST + 1);
        assertEquals(List.of("h1"), huge.create());
        assertEquals(Map.of("h2", Errors.UNKNOWN_TOPIC_OR_PARTITION), huge.refused());
    }
}
