package io.tideline.store.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeaderEpochCheckpointFileTest {

    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve(LeaderEpochCheckpointFile.FILE_NAME);
    }

    private void assertCorruptAt(String text, int line, String messagePart) throws IOException {
        Files.write(file(), text.getBytes(StandardCharsets.UTF_8));
        CorruptCheckpointException e = assertThrows(CorruptCheckpointException.class,
                () -> new LeaderEpochCheckpointFile(file()).read());
        assertEquals(line, e.lineNumber(), e.getMessage());
        assertTrue(e.getMessage().contains(file().toString()), e.getMessage());
        assertTrue(e.getMessage().contains("line " + line), e.getMessage());
        assertTrue(e.getMessage().contains(messagePart), e.getMessage());
    }

    @Test
    void roundTripKeepsEntriesInOrder() throws IOException {
        List<EpochEntry> entries = List.of(new EpochEntry(0, 0), new EpochEntry(3, 1500), new EpochEntry(7, 90_000));
        LeaderEpochCheckpointFile checkpoint = new LeaderEpochCheckpointFile(file());
        checkpoint.write(entries);
        assertEquals(entries, checkpoint.read());
        assertEquals("0\n3\n0 0\n3 1500\n7 90000\n", Files.readString(file()));
    }

    @Test
    void emptyListRoundTrips() throws IOException {
        LeaderEpochCheckpointFile checkpoint = new LeaderEpochCheckpointFile(file());
        checkpoint.write(List.of());
        assertEquals("0\n0\n", Files.readString(file()));
        assertEquals(List.of(), checkpoint.read());
    }

    @Test
    void missingFileReadsAsEmptyList() throws IOException {
        assertEquals(List.of(), new LeaderEpochCheckpointFile(file()).read());
    }

    @Test
    void writeLeavesNoTmpFileBehind() throws IOException {
        LeaderEpochCheckpointFile checkpoint = new LeaderEpochCheckpointFile(file());
        checkpoint.write(List.of(new EpochEntry(1, 10)));
        checkpoint.write(List.of(new EpochEntry(1, 10), new EpochEntry(2, 20)));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(LeaderEpochCheckpointFile.FILE_NAME),
                    files.map(p -> p.getFileName().toString()).toList());
        }
    }

    @Test
    void wrongVersionIsReportedOnLineOne() throws IOException {
        assertCorruptAt("2\n0\n", 1, "unsupported version 2");
    }

    @Test
    void emptyFileIsReportedAsMissingVersionLine() throws IOException {
        assertCorruptAt("", 1, "missing version");
    }

    @Test
    void corruptCountLineIsReportedWithFileAndLine() throws IOException {
        assertCorruptAt("0\n1x\n0 0\n", 2, "'1x'");
    }

    @Test
    void countLargerThanTheEntriesIsReportedAtTheFirstMissingLine() throws IOException {
        assertCorruptAt("0\n2\n0 0\n", 4, "ends after 1 entries");
    }

    @Test
    void countSmallerThanTheEntriesIsReportedAtTheFirstExtraLine() throws IOException {
        assertCorruptAt("0\n1\n0 0\n1 5\n", 4, "more lines follow");
    }

    @Test
    void entryWithWrongFieldCountIsReportedWithItsLine() throws IOException {
        assertCorruptAt("0\n2\n0 0\n1 5 9\n", 4, "expected '<epoch> <start offset>'");
        assertCorruptAt("0\n1\n7\n", 3, "expected '<epoch> <start offset>'");
    }

    @Test
    void nonNumericOrNegativeFieldIsReportedWithItsLine() throws IOException {
        assertCorruptAt("0\n1\nx 0\n", 3, "'x 0'");
        assertCorruptAt("0\n1\n-1 0\n", 3, "'-1 0'");
        assertCorruptAt("0\n1\n1 -10\n", 3, "'1 -10'");
    }

    @Test
    void epochOverflowingIntIsReportedWithItsLine() throws IOException {
        assertCorruptAt("0\n1\n2147483648 0\n", 3, "2147483648");
    }

    @Test
    void epochEntryRejectsNegativeValues() {
        assertThrows(IllegalArgumentException.class, () -> new EpochEntry(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> new EpochEntry(0, -1));
    }
}
