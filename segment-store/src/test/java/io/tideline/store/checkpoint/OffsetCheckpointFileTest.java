package io.tideline.store.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OffsetCheckpointFileTest {

    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve(io.tideline.store.segment.LogFileNames.RECOVERY_POINT_CHECKPOINT);
    }

    private void writeRaw(String text) throws IOException {
        Files.write(file(), text.getBytes(StandardCharsets.UTF_8));
    }

    private CorruptCheckpointException readCorrupt(String text) throws IOException {
        writeRaw(text);
        return assertThrows(CorruptCheckpointException.class, () -> new OffsetCheckpointFile(file()).read());
    }

    private void assertCorruptAt(String text, int line, String messagePart) throws IOException {
        CorruptCheckpointException e = readCorrupt(text);
        assertEquals(line, e.lineNumber(), e.getMessage());
        assertEquals(file(), e.file());
        assertTrue(e.getMessage().contains(file().toString()), e.getMessage());
        assertTrue(e.getMessage().contains("line " + line), e.getMessage());
        assertTrue(e.getMessage().contains(messagePart), e.getMessage());
    }

    @Test
    void roundTripKeepsEveryOffset() throws IOException {
        Map<TopicPartition, Long> offsets = Map.of(
                new TopicPartition("orders", 0), 1500L,
                new TopicPartition("orders", 1), 0L,
                new TopicPartition("clicks", 7), Long.MAX_VALUE);
        OffsetCheckpointFile checkpoint = new OffsetCheckpointFile(file());
        checkpoint.write(offsets);
        assertEquals(offsets, checkpoint.read());
    }

    @Test
    void fileIsKafkaTextFormatSortedByTopicThenPartition() throws IOException {
        new OffsetCheckpointFile(file()).write(Map.of(
                new TopicPartition("orders", 10), 5L,
                new TopicPartition("orders", 2), 3L,
                new TopicPartition("clicks", 0), 9L));
        assertEquals("0\n3\nclicks 0 9\norders 2 3\norders 10 5\n", Files.readString(file()));
    }

    @Test
    void emptyMapWritesVersionAndZeroCountAndReadsBackEmpty() throws IOException {
        OffsetCheckpointFile checkpoint = new OffsetCheckpointFile(file());
        checkpoint.write(Map.of());
        assertEquals("0\n0\n", Files.readString(file()));
        assertEquals(Map.of(), checkpoint.read());
    }

    @Test
    void missingFileReadsAsEmptyMap() throws IOException {
        assertEquals(Map.of(), new OffsetCheckpointFile(dir.resolve("nope")).read());
    }

    @Test
    void topicWithDashesAndDotsRoundTrips() throws IOException {
        TopicPartition tp = new TopicPartition("eu-west.orders-v2.dlq", 12);
        OffsetCheckpointFile checkpoint = new OffsetCheckpointFile(file());
        checkpoint.write(Map.of(tp, 42L));
        assertEquals("0\n1\neu-west.orders-v2.dlq 12 42\n", Files.readString(file()));
        assertEquals(Map.of(tp, 42L), checkpoint.read());
    }

    @Test
    void writeReplacesThePreviousContentAndLeavesNoTmpFileBehind() throws IOException {
        OffsetCheckpointFile checkpoint = new OffsetCheckpointFile(file());
        checkpoint.write(Map.of(new TopicPartition("a", 0), 1L, new TopicPartition("b", 0), 2L));
        checkpoint.write(Map.of(new TopicPartition("a", 0), 3L));
        assertEquals(Map.of(new TopicPartition("a", 0), 3L), checkpoint.read());
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(file().getFileName().toString()),
                    files.map(p -> p.getFileName().toString()).toList());
        }
    }

    @Test
    void fileWrittenByKafkaWithoutTrailingNewlineIsAccepted() throws IOException {
        writeRaw("0\n1\norders 0 7");
        assertEquals(Map.of(new TopicPartition("orders", 0), 7L), new OffsetCheckpointFile(file()).read());
    }

    @Test
    void emptyFileIsReportedAsMissingVersionLine() throws IOException {
        assertCorruptAt("", 1, "missing version");
    }

    @Test
    void wrongVersionIsReportedOnLineOne() throws IOException {
        assertCorruptAt("1\n0\n", 1, "unsupported version 1");
    }

    @Test
    void nonNumericVersionIsReportedOnLineOne() throws IOException {
        assertCorruptAt("v0\n0\n", 1, "'v0'");
    }

    @Test
    void missingCountLineIsReportedOnLineTwo() throws IOException {
        assertCorruptAt("0\n", 2, "missing entry count");
    }

    @Test
    void corruptCountLineIsReportedWithFileAndLine() throws IOException {
        assertCorruptAt("0\ntwo\norders 0 1\norders 1 2\n", 2, "'two'");
    }

    @Test
    void negativeCountIsReportedOnLineTwo() throws IOException {
        assertCorruptAt("0\n-1\n", 2, "'-1'");
    }

    @Test
    void countLargerThanTheEntriesIsReportedAtTheFirstMissingLine() throws IOException {
        assertCorruptAt("0\n3\norders 0 1\norders 1 2\n", 5, "ends after 2 entries");
    }

    @Test
    void countSmallerThanTheEntriesIsReportedAtTheFirstExtraLine() throws IOException {
        assertCorruptAt("0\n1\norders 0 1\norders 1 2\n", 4, "more lines follow");
    }

    @Test
    void trailingBlankLineIsReportedAsExtraContent() throws IOException {
        assertCorruptAt("0\n1\norders 0 1\n\n", 4, "more lines follow");
    }

    @Test
    void entryWithTooFewFieldsIsReportedWithItsLine() throws IOException {
        assertCorruptAt("0\n2\norders 0 1\norders 1\n", 4, "expected '<topic> <partition> <offset>'");
    }

    @Test
    void entryWithTooManyFieldsIsReportedWithItsLine() throws IOException {
        assertCorruptAt("0\n1\norders 0 1 9\n", 3, "'orders 0 1 9'");
    }

    @Test
    void nonNumericPartitionIsReportedWithItsLine() throws IOException {
        assertCorruptAt("0\n1\norders x 1\n", 3, "'orders x 1'");
    }

    @Test
    void nonNumericOffsetIsReportedWithItsLine() throws IOException {
        assertCorruptAt("0\n1\norders 0 12a\n", 3, "'orders 0 12a'");
    }

    @Test
    void negativeOffsetIsReportedWithItsLine() throws IOException {
        assertCorruptAt("0\n1\norders 0 -5\n", 3, "'orders 0 -5'");
    }

    @Test
    void offsetOverflowingLongIsReportedWithItsLine() throws IOException {
        assertCorruptAt("0\n1\norders 0 99999999999999999999\n", 3, "99999999999999999999");
    }

    @Test
    void doubleSpaceOrTabSeparatorIsReportedWithItsLine() throws IOException {
        assertCorruptAt("0\n1\norders  0 1\n", 3, "expected");
        assertCorruptAt("0\n1\norders\t0\t1\n", 3, "expected");
    }

    @Test
    void windowsLineEndingIsReportedAsCorrupt() throws IOException {
        assertCorruptAt("0\r\n0\r\n", 1, "'0\r'");
    }

    @Test
    void duplicatePartitionIsReportedAtItsSecondLine() throws IOException {
        assertCorruptAt("0\n2\norders 0 1\norders 0 2\n", 4, "listed more than once");
    }

    @Test
    void invalidUtf8IsReportedWithItsLine() throws IOException {
        Files.write(file(), new byte[] {'0', '\n', '1', '\n', 'o', (byte) 0xff, ' ', '0', ' ', '1', '\n'});
        CorruptCheckpointException e = assertThrows(CorruptCheckpointException.class,
                () -> new OffsetCheckpointFile(file()).read());
        assertEquals(3, e.lineNumber());
    }

    @Test
    void negativeOffsetIsRejectedOnWriteAndTheOldFileSurvives() throws IOException {
        OffsetCheckpointFile checkpoint = new OffsetCheckpointFile(file());
        checkpoint.write(Map.of(new TopicPartition("a", 0), 1L));
        assertThrows(IllegalArgumentException.class,
                () -> checkpoint.write(Map.of(new TopicPartition("a", 0), -1L)));
        assertEquals(Map.of(new TopicPartition("a", 0), 1L), checkpoint.read());
    }

    @Test
    void topicWithWhitespaceIsRejectedOnWrite() {
        OffsetCheckpointFile checkpoint = new OffsetCheckpointFile(file());
        assertThrows(IllegalArgumentException.class,
                () -> checkpoint.write(Map.of(new TopicPartition("bad topic", 0), 1L)));
        assertThrows(IllegalArgumentException.class,
                () -> checkpoint.write(Map.of(new TopicPartition("bad\ntopic", 0), 1L)));
    }

    @Test
    void concurrentWritersAlwaysLeaveOneCompleteCheckpoint() throws Exception {
        OffsetCheckpointFile checkpoint = new OffsetCheckpointFile(file());
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> writes = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                long value = w;
                writes.add(pool.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        checkpoint.write(Map.of(new TopicPartition("t", 0), value, new TopicPartition("t", 1), value));
                        Map<TopicPartition, Long> read = checkpoint.read();
                        assertEquals(2, read.size());
                        assertEquals(read.get(new TopicPartition("t", 0)), read.get(new TopicPartition("t", 1)));
                    }
                    return null;
                }));
            }
            for (Future<?> f : writes) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
        assertTrue(Files.notExists(dir.resolve(file().getFileName() + ".tmp")));
    }
}
