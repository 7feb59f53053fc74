package io.tideline.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OffsetJsonFileTest {
    @TempDir
    Path dir;

    @Test
    void readsKafkasOffsetFileFormatInFileOrder() {
        Map<TopicPartition, Long> offsets = OffsetJsonFile.parse("""
                {
                  "partitions": [
                    { "topic": "orders", "partition": 1, "offset": 1000 },
                    { "topic": "orders", "partition": 0, "offset": -1 },
                    { "topic": "audit", "partition": 0, "offset": 0, "note": "unknown fields are ignored" }
                  ],
                  "version": 1
                }
                """);
        assertEquals(List.of(new TopicPartition("orders", 1), new TopicPartition("orders", 0),
                new TopicPartition("audit", 0)), List.copyOf(offsets.keySet()));
        assertEquals(List.of(1000L, -1L, 0L), List.copyOf(offsets.values()));
    }

    @Test
    void versionMayBeLeftOutAndOffsetsTheBrokerRefusesAreStillSent() {
        // docs/behaviours.md B54: values below -1 are OFFSET_OUT_OF_RANGE at the broker, per partition,
        // not a file error.
        Map<TopicPartition, Long> offsets = OffsetJsonFile.parse(
                "{\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":-5}]}");
        assertEquals(Map.of(new TopicPartition("t", 0), -5L), offsets);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "trailing comma       | {\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":1},],\"version\":1}      | not valid JSON",
        "single quotes        | {'partitions':[]}                                                                         | not valid JSON: malformed JSON at line 1 column 3",
        "unterminated         | {\"partitions\":[{\"topic\":\"t\"                                                         | not valid JSON",
        "trailing data        | {\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":1}]} {}                      | not valid JSON",
        "empty                | ``                                                                                        | the file is empty",
        "array root           | [1,2]                                                                                     | the document must be a JSON object, got an array",
        "no partitions field  | {\"version\":1}                                                                           | missing field \"partitions\"",
        "partitions not array | {\"partitions\":{}}                                                                       | \"partitions\" must be an array, got an object",
        "empty partitions     | {\"partitions\":[],\"version\":1}                                                         | \"partitions\" is empty",
        "wrong version        | {\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":1}],\"version\":2}           | unsupported \"version\" 2",
        "missing offset       | {\"partitions\":[{\"topic\":\"t\",\"partition\":0}]}                                      | partitions[0]: missing field \"offset\"",
        "missing topic        | {\"partitions\":[{\"partition\":0,\"offset\":1}]}                                         | partitions[0]: missing field \"topic\"",
        "empty topic          | {\"partitions\":[{\"topic\":\"\",\"partition\":0,\"offset\":1}]}                          | partitions[0]: \"topic\" must be a non-empty string",
        "numeric topic        | {\"partitions\":[{\"topic\":7,\"partition\":0,\"offset\":1}]}                             | partitions[0]: \"topic\" must be a non-empty string, got 7",
        "string offset        | {\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":\"5\"}]}                     | partitions[0]: \"offset\" must be an integer, got \"5\"",
        "fractional partition | {\"partitions\":[{\"topic\":\"t\",\"partition\":0.5,\"offset\":1}]}                       | partitions[0]: \"partition\" must be an integer, got 0.5",
        "negative partition   | {\"partitions\":[{\"topic\":\"t\",\"partition\":-1,\"offset\":1}]}                        | partitions[0]: \"partition\" must be >= 0, got -1",
        "huge partition       | {\"partitions\":[{\"topic\":\"t\",\"partition\":4294967296,\"offset\":1}]}                | partitions[0]: \"partition\" is out of range",
        "offset beyond long   | {\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":99999999999999999999}]}      | partitions[0]: \"offset\" must be an integer",
        "null offset          | {\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":null}]}                      | partitions[0]: \"offset\" must be a number, got null",
        "entry not an object  | {\"partitions\":[\"t-0\"]}                                                                | partitions[0] must be a JSON object",
        "same partition twice | {\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":1},{\"topic\":\"t\",\"partition\":0,\"offset\":2}]} | partitions[1]: partition t-0 is listed twice",
    })
    void refusesABadFileNamingTheProblem(String name, String json, String expected) {
        CliException e = assertThrows(CliException.class, () -> OffsetJsonFile.parse(json == null ? "" : json));
        assertEquals(Cli.EXIT_USAGE, e.exitCode());
        assertTrue(e.getMessage().contains(expected), name + ": " + e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), "one line: " + e.getMessage());
    }

    @Test
    void namesTheFileWhenReadingFails() throws Exception {
        Path missing = dir.resolve("missing.json");
        CliException e = assertThrows(CliException.class, () -> OffsetJsonFile.read(missing));
        assertEquals("cannot read " + missing + ": no such file", e.getMessage());

        Path bad = Files.writeString(dir.resolve("bad.json"), "{\"partitions\":[{\"topic\":\"t\",\"partition\":0}]}");
        e = assertThrows(CliException.class, () -> OffsetJsonFile.read(bad));
        assertEquals("bad offset JSON file " + bad + ": partitions[0]: missing field \"offset\"", e.getMessage());
    }
}
