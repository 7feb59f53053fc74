package io.tideline.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ReassignmentJsonTest {

    @Test
    void writesKafkasReassignmentJsonSortedAndReadsItBack() {
        Map<TopicPartition, List<Integer>> assignment = new TreeMap<>(ReassignmentJson.ORDER.reversed());
        assignment.put(new TopicPartition("t", 1), List.of(2, 3, 1));
        assignment.put(new TopicPartition("t", 0), List.of(1, 2, 3));
        assignment.put(new TopicPartition("a", 0), List.of(4));
        String json = ReassignmentJson.format(assignment);
        assertEquals("{\"version\":1,\"partitions\":["
                + "{\"topic\":\"a\",\"partition\":0,\"replicas\":[4],\"log_dirs\":[\"any\"]},"
                + "{\"topic\":\"t\",\"partition\":0,\"replicas\":[1,2,3],\"log_dirs\":[\"any\",\"any\",\"any\"]},"
                + "{\"topic\":\"t\",\"partition\":1,\"replicas\":[2,3,1],\"log_dirs\":[\"any\",\"any\",\"any\"]}]}", json);
        Map<TopicPartition, List<Integer>> back = ReassignmentJson.parseReassignment(json);
        assertEquals(List.of(new TopicPartition("a", 0), new TopicPartition("t", 0), new TopicPartition("t", 1)),
                List.copyOf(back.keySet()));
        assertEquals(List.of(2, 3, 1), back.get(new TopicPartition("t", 1)));
    }

    @Test
    void logDirsAndVersionMayBeLeftOut() {
        Map<TopicPartition, List<Integer>> targets = ReassignmentJson.parseReassignment(
                "{\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[1,2,4]}]}");
        assertEquals(Map.of(new TopicPartition("t", 0), List.of(1, 2, 4)), targets);
    }

    @Test
    void readsKafkasTopicsToMoveFile() {
        assertEquals(List.of("t", "u"), ReassignmentJson.parseTopics(
                "{\"topics\":[{\"topic\":\"t\"},{\"topic\":\"u\"}],\"version\":1}"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "not json           | {\"partitions\":[                                                                      | not valid JSON",
        "version 2          | {\"version\":2,\"partitions\":[]}                                                       | Not supported version field value 2",
        "no partitions      | {\"version\":1}                                                                         | missing field \"partitions\"",
        "empty list         | {\"partitions\":[]}                                                                     | Partition reassignment list cannot be empty",
        "empty replicas     | {\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[]}]}                    | Partition replica list cannot be empty",
        "string replica     | {\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[\"1\"]}]}               | partitions[0].replicas[0] must be an integer, got \"1\"",
        "missing replicas   | {\"partitions\":[{\"topic\":\"t\",\"partition\":0}]}                                    | partitions[0]: missing field \"replicas\"",
        "negative partition | {\"partitions\":[{\"topic\":\"t\",\"partition\":-1,\"replicas\":[1]}]}                  | partitions[0]: \"partition\" must be >= 0",
        "duplicate replicas | {\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[1,2,1]}]}                | Partition replica lists may not contain duplicate entries: t-0 contains multiple entries for 1",
        "duplicate parts    | {\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[1]},{\"topic\":\"t\",\"partition\":0,\"replicas\":[2]}]} | Partition reassignment contains duplicate topic partitions: t-0",
        "log dirs size      | {\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[1,2],\"log_dirs\":[\"any\"]}]} | Size of replicas list [1, 2] is different from size of log dirs list [any] for partition t-0",
        "a real log dir     | {\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[1],\"log_dirs\":[\"/d\"]}]} | only \"any\" is supported",
    })
    void refusesABadReassignmentFileInKafkasWords(String name, String json, String expected) {
        CliException e = assertThrows(CliException.class, () -> ReassignmentJson.parseReassignment(json));
        assertEquals(Cli.EXIT_USAGE, e.exitCode());
        assertTrue(e.getMessage().contains(expected), name + ": " + e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), "one line: " + e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "duplicate topics | {\"topics\":[{\"topic\":\"t\"},{\"topic\":\"t\"}]} | List of topics to reassign contains duplicate entries: [t]",
        "no topics        | {\"topics\":[]}                                  | \"topics\" is empty",
        "topic not string | {\"topics\":[{\"topic\":1}]}                     | topics[0]: \"topic\" must be a non-empty string",
    })
    void refusesABadTopicsFile(String name, String json, String expected) {
        CliException e = assertThrows(CliException.class, () -> ReassignmentJson.parseTopics(json));
        assertEquals(Cli.EXIT_USAGE, e.exitCode());
        assertTrue(e.getMessage().contains(expected), name + ": " + e.getMessage());
    }
}
