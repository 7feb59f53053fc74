package io.tideline.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.ConsumerGroupDescription;
import io.tideline.client.ConsumerGroupDescription.Member;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConsumerGroupsOutputTest {
    private static TopicPartition tp(String t, int p) {
        return new TopicPartition(t, p);
    }

    private static ConsumerGroupDescription group(String state, List<Member> members, Map<TopicPartition, Long> offsets) {
        return new ConsumerGroupDescription("g", Errors.NONE, "", 2, state, "consumer", "range", members, offsets);
    }

    @Test
    void rowsListTheBiggestMemberFirstThenCommittedOffsetsNoMemberHolds() {
        Member small = new Member("m-small", "", "c1", "/127.0.0.1", List.of(tp("t", 2)));
        Member big = new Member("m-big", "", "c2", "/127.0.0.2", List.of(tp("t", 1), tp("t", 0)));
        Member idle = new Member("m-idle", "", "c3", "/127.0.0.3", List.of());
        ConsumerGroupDescription g = group("Stable", List.of(small, idle, big), Map.of(tp("t", 0), 4L, tp("t", 2), 9L,
                tp("u", 0), 1L));
        List<ConsumerGroupsOutput.Row> rows = ConsumerGroupsOutput.rows(g, Map.of(tp("t", 0), 10L, tp("t", 1), 3L,
                tp("t", 2), 9L));
        assertEquals(List.of(
                new ConsumerGroupsOutput.Row("g", "t", "0", "4", "10", "6", "m-big", "/127.0.0.2", "c2"),
                new ConsumerGroupsOutput.Row("g", "t", "1", "-", "3", "-", "m-big", "/127.0.0.2", "c2"),
                new ConsumerGroupsOutput.Row("g", "t", "2", "9", "9", "0", "m-small", "/127.0.0.1", "c1"),
                // No log end offset known (the partition's leader did not answer): lag unknown too.
                new ConsumerGroupsOutput.Row("g", "u", "0", "1", "-", "-", "-", "-", "-")), rows);
        assertEquals(java.util.Set.of(tp("t", 0), tp("t", 1), tp("t", 2), tp("u", 0)), ConsumerGroupsOutput.partitions(g));
    }

    @Test
    void theTableHasKafkasColumns() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ConsumerGroupsOutput.printOffsets(List.of(new ConsumerGroupsOutput.Row("g", "t", "0", "4", "10", "6", "m", "/h",
                "c")), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\n");
        assertEquals(List.of("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID",
                "HOST", "CLIENT-ID"), List.of(lines[0].trim().split("\\s+")));
        assertEquals(List.of("g", "t", "0", "4", "10", "6", "m", "/h", "c"), List.of(lines[1].trim().split("\\s+")));
    }

    @Test
    void stateNoticesAreKafkasAndADeadGroupHasNoTable() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        assertTrue(ConsumerGroupsOutput.stateNotice(group("Empty", List.of(), Map.of()), err));
        assertTrue(ConsumerGroupsOutput.stateNotice(group("PreparingRebalance", List.of(), Map.of()), err));
        assertTrue(ConsumerGroupsOutput.stateNotice(group("Stable", List.of(), Map.of()), err));
        assertFalse(ConsumerGroupsOutput.stateNotice(group("Dead", List.of(), Map.of()), err));
        assertEquals("Consumer group 'g' has no active members.\nWarning: Consumer group 'g' is rebalancing.\n"
                + "Error: Consumer group 'g' does not exist.\n", bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void membersShowTheirAssignmentCompactlyWithVerbose() {
        assertEquals("a(0,2), b(1)", ConsumerGroupsOutput.assignment(List.of(tp("b", 1), tp("a", 2), tp("a", 0))));
        assertEquals("-", ConsumerGroupsOutput.assignment(List.of()));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ConsumerGroupsOutput.printMembers(group("Stable", List.of(new Member("m", "static-1", "c", "/h",
                List.of(tp("a", 0)))), Map.of()), true, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\n");
        assertEquals(List.of("GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "ASSIGNMENT"),
                List.of(lines[0].trim().split("\\s+")));
        assertEquals(List.of("g", "m", "static-1", "/h", "c", "1", "a(0)"), List.of(lines[1].trim().split("\\s+")));
    }

    @Test
    void topicArgumentsNameAllPartitionsOrSomeAndBadOnesAreUsageErrors() {
        assertEquals(List.of(tp("a", 0), tp("a", 1), tp("a", 2), tp("b", 3), tp("b", 1)),
                ConsumerGroupsCommand.parseTopics(List.of("a", "b:3,1", "a:1"), t -> 3));
        assertEquals(Cli.EXIT_USAGE, org.junit.jupiter.api.Assertions.assertThrows(CliException.class,
                () -> ConsumerGroupsCommand.parseTopics(List.of("a:x"), t -> 1)).exitCode());
        assertEquals(Cli.EXIT_USAGE, org.junit.jupiter.api.Assertions.assertThrows(CliException.class,
                () -> ConsumerGroupsCommand.parseTopics(List.of("a:-1"), t -> 1)).exitCode());
        assertEquals(java.util.Set.of("stable", "empty"), ConsumerGroupsCommand.states("Stable, EMPTY"));
        assertEquals(Cli.EXIT_USAGE, org.junit.jupiter.api.Assertions.assertThrows(CliException.class,
                () -> ConsumerGroupsCommand.states("Running")).exitCode());
    }

    /** Flags that do not go together are refused before any broker is asked (the bootstrap address is closed). */
    @Test
    void misusedFlagsAreOneLineUsageErrors() {
        String[][] cases = {
                {"consumer-groups", "--describe"},
                {"consumer-groups", "--list", "--group", "g"},
                {"consumer-groups", "--reset-offsets", "--group", "g", "--all-topics"},
                {"consumer-groups", "--reset-offsets", "--group", "g", "--to-earliest"},
                {"consumer-groups", "--reset-offsets", "--group", "g", "--to-earliest", "--all-topics", "--topic", "t"},
                {"consumer-groups", "--reset-offsets", "--group", "g", "--to-earliest", "--all-topics", "--dry-run",
                        "--execute"},
                {"consumer-groups", "--describe", "--group", "g", "--to-earliest"},
                {"consumer-groups", "--delete", "--group", "g", "--members"},
                {"consumer-groups", "--list", "--describe"},
                {"consumer-groups", "--reset-offsets", "--group", "g", "--to-offset", "-3", "--all-topics"},
        };
        for (String[] args : cases) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            String[] all = new String[args.length + 2];
            all[0] = "--bootstrap-server";
            all[1] = "127.0.0.1:1";
            System.arraycopy(args, 0, all, 2, args.length);
            int code = AdminCommand.run(all, new CliIo(new ByteArrayInputStream(new byte[0]),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8)));
            assertEquals(Cli.EXIT_USAGE, code, String.join(" ", args) + ": " + err);
        }
    }
}
