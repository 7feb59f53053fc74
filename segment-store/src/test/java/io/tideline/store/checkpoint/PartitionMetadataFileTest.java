package io.tideline.store.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code partition.metadata} file: Kafka's two lines, written atomically, read strictly. */
class PartitionMetadataFileTest {
    private static final String ID = "Xb3nS4gHQ0y8mC1kqA7dPw";

    @TempDir
    Path dir;

    private PartitionMetadataFile file() {
        return new PartitionMetadataFile(dir);
    }

    private CorruptCheckpointException corrupt(String content) throws IOException {
        Files.writeString(dir.resolve("partition.metadata"), content);
        return assertThrows(CorruptCheckpointException.class, () -> file().read(), content);
    }

    @Test
    void writesKafkasTwoLinesAndReadsThemBack() throws IOException {
        file().write(ID);
        assertEquals("version: 0\ntopic_id: " + ID, Files.readString(dir.resolve("partition.metadata")));
        assertEquals(Optional.of(ID), file().read());
        assertFalse(Files.exists(dir.resolve("partition.metadata.tmp")), "written through a tmp file, renamed");
    }

    @Test
    void aMissingFileIsNoId() throws IOException {
        assertEquals(Optional.empty(), file().read());
    }

    @Test
    void aTrailingNewlineIsAccepted() throws IOException {
        Files.writeString(dir.resolve("partition.metadata"), "version: 0\ntopic_id: " + ID + "\n");
        assertEquals(Optional.of(ID), file().read());
    }

    @Test
    void rewritingReplacesTheId() throws IOException {
        file().write(ID);
        file().write("q9Zr0Lw2TmWc5V-hJ1u_Ag");
        assertEquals(Optional.of("q9Zr0Lw2TmWc5V-hJ1u_Ag"), file().read());
    }

    @Test
    void anythingElseIsCorruptWithItsLine() throws IOException {
        assertEquals(2, corrupt("").lineNumber());
        assertEquals(2, corrupt("version: 0").lineNumber());
        assertEquals(3, corrupt("version: 0\ntopic_id: " + ID + "\nmore").lineNumber());
        assertEquals(1, corrupt("version:0\ntopic_id: " + ID).lineNumber());
        assertEquals(1, corrupt("version: 1\ntopic_id: " + ID).lineNumber());
        assertEquals(2, corrupt("version: 0\ntopic-id: " + ID).lineNumber());
        assertEquals(2, corrupt("version: 0\ntopic_id: ").lineNumber());
        assertEquals(2, corrupt("version: 0\ntopic_id: a b").lineNumber());
        assertEquals(2, corrupt("version: 0\ntopic_id: ../../etc").lineNumber());
        assertEquals(2, corrupt("version: 0\ntopic_id: " + "a".repeat(65)).lineNumber());
        assertEquals(1, corrupt("version: 0\ntopic_id: " + "a".repeat(200)).lineNumber(), "too long to be read");
        Files.write(dir.resolve("partition.metadata"), new byte[] {'v', (byte) 0xC3, (byte) 0x28});
        assertThrows(CorruptCheckpointException.class, () -> file().read(), "not UTF-8");
    }

    @Test
    void onlyTokensAreWritten() {
        assertTrue(PartitionMetadataFile.isValidTopicId(ID));
        for (String bad : new String[] {null, "", "a b", "a\nb", "a/b", "x".repeat(65)}) {
            assertFalse(PartitionMetadataFile.isValidTopicId(bad), String.valueOf(bad));
            assertThrows(IllegalArgumentException.class, () -> file().write(bad));
        }
    }
}
