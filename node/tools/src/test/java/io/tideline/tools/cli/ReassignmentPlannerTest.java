package io.tideline.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tideline.client.PartitionReassignment;
import io.tideline.common.TopicPartition;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReassignmentPlannerTest {
    private static TopicPartition tp(String t, int p) {
        return new TopicPartition(t, p);
    }

    @Test
    void proposalIsKafkasRoundRobinFromTheLowestBrokerAndTheSameEveryTime() {
        Map<TopicPartition, List<Integer>> current = new HashMap<>();
        for (int p = 0; p < 5; p++) {
            current.put(tp("t", p), List.of(1, 2, 3));
        }
        Map<TopicPartition, List<Integer>> proposed = ReassignmentPlanner.propose(current, List.of(4, 2, 3, 1));
        // Partitions 0-3 lead on 1..4 with followers next to them; partition 4 wraps and shifts its followers.
        assertEquals(Map.of(tp("t", 0), List.of(1, 2, 3), tp("t", 1), List.of(2, 3, 4), tp("t", 2), List.of(3, 4, 1),
                tp("t", 3), List.of(4, 1, 2), tp("t", 4), List.of(1, 3, 4)), proposed);
        assertEquals(proposed, ReassignmentPlanner.propose(new HashMap<>(current), List.of(1, 2, 3, 4)));
        for (List<Integer> replicas : proposed.values()) {
            assertEquals(3, new HashSet<>(replicas).size(), "distinct replicas: " + replicas);
        }
    }

    @Test
    void replicationFactorAboveTheBrokersIsKafkasError() {
        CliException e = assertThrows(CliException.class, () ->
                ReassignmentPlanner.propose(Map.of(tp("t", 0), List.of(1, 2, 3)), List.of(1, 2)));
        assertEquals(Cli.EXIT_FAILED, e.exitCode());
        assertEquals("Replication factor: 3 larger than available brokers: 2.", e.getMessage());
    }

    @Test
    void throttlesNameTheSourcesOnTheLeaderSideAndTheNewReplicasOnTheFollowerSide() {
        Map<TopicPartition, List<Integer>> current = Map.of(tp("t", 0), List.of(1, 2, 3), tp("t", 1), List.of(2, 3, 1));
        Map<TopicPartition, List<Integer>> targets = Map.of(tp("t", 0), List.of(1, 2, 4), tp("t", 1), List.of(2, 3, 1));
        // u-0 is already moving from 3 to 4: its sources are its original replicas, not the adding one.
        Map<TopicPartition, PartitionReassignment> ongoing = Map.of(tp("u", 0),
                new PartitionReassignment(tp("u", 0), List.of(3, 4), List.of(4), List.of(3)));
        var moves = ReassignmentPlanner.moves(ongoing, targets, current);
        assertEquals(Map.of("t", "0:1,0:2,0:3,1:1,1:2,1:3", "u", "0:3"), ReassignmentPlanner.leaderThrottles(moves));
        assertEquals(Map.of("t", "0:4", "u", "0:4"), ReassignmentPlanner.followerThrottles(moves));
        assertEquals(Set.of(1, 2, 3, 4), ReassignmentPlanner.brokersInvolved(moves));
    }

    @Test
    void brokerListIsCommaSeparatedIdsWithoutDuplicates() {
        assertEquals(List.of(1, 2, 3), ReassignmentPlanner.parseBrokerList("1,2,3"));
        assertEquals("Broker list contains duplicate entries: [2]",
                assertThrows(CliException.class, () -> ReassignmentPlanner.parseBrokerList("1,2,2")).getMessage());
        assertEquals(Cli.EXIT_USAGE,
                assertThrows(CliException.class, () -> ReassignmentPlanner.parseBrokerList("1,x")).exitCode());
    }
}
