package io.tideline.store.dir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetaPropertiesTest {

    @TempDir
    Path dir;

    private Properties onDisk() throws IOException {
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(dir.resolve(MetaProperties.FILE_NAME))) {
            props.load(in);
        }
        return props;
    }

    @Test
    void firstEnsureStampsTheDirInKafkaV1Layout() throws IOException {
        MetaProperties meta = MetaProperties.ensure(dir, "MkU3OEVBNTcwNTJENDM2Qg", 3);
        assertEquals("MkU3OEVBNTcwNTJENDM2Qg", meta.clusterId());
        assertEquals(3, meta.nodeId());
        assertTrue(meta.directoryId().matches("[A-Za-z0-9_-]{22}"), meta.directoryId());
        assertFalse(meta.directoryId().startsWith("-"));

        Properties props = onDisk();
        assertEquals("1", props.getProperty("version"));
        assertEquals("MkU3OEVBNTcwNTJENDM2Qg", props.getProperty("cluster.id"));
        assertEquals("3", props.getProperty("node.id"));
        assertEquals(meta.directoryId(), props.getProperty("directory.id"));
        assertEquals(4, props.size());
    }

    @Test
    void fileListsKeysInAFixedOrder() throws IOException {
        MetaProperties meta = MetaProperties.ensure(dir, "c1", 0);
        List<String> lines = Files.readAllLines(dir.resolve(MetaProperties.FILE_NAME));
        assertEquals(List.of("version=1", "cluster.id=c1", "node.id=0", "directory.id=" + meta.directoryId()),
                lines.subList(1, lines.size()));
        assertTrue(lines.get(0).startsWith("#"));
    }

    @Test
    void laterEnsureKeepsTheSameDirectoryId() throws IOException {
        MetaProperties first = MetaProperties.ensure(dir, "c1", 1);
        MetaProperties second = MetaProperties.ensure(dir, "c1", 1);
        assertEquals(first, second);
        assertEquals(Optional.of(first), MetaProperties.read(dir));
    }

    @Test
    void eachDirGetsItsOwnDirectoryId() throws IOException {
        MetaProperties a = MetaProperties.ensure(dir.resolve("a"), "c1", 1);
        MetaProperties b = MetaProperties.ensure(dir.resolve("b"), "c1", 1);
        assertNotEquals(a.directoryId(), b.directoryId());
    }

    @Test
    void otherClusterIdIsRefusedNamingDirAndBothValues() throws IOException {
        MetaProperties.ensure(dir, "cluster-a", 1);
        InconsistentMetaPropertiesException e = assertThrows(InconsistentMetaPropertiesException.class,
                () -> MetaProperties.ensure(dir, "cluster-b", 1));
        assertEquals(Errors.KAFKA_STORAGE_ERROR, e.error());
        assertEquals(dir, e.logDir());
        assertTrue(e.getMessage().contains(dir.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("cluster.id=cluster-a"), e.getMessage());
        assertTrue(e.getMessage().contains("cluster.id=cluster-b"), e.getMessage());
    }

    @Test
    void otherNodeIdIsRefusedNamingDirAndBothValues() throws IOException {
        MetaProperties.ensure(dir, "c1", 1);
        InconsistentMetaPropertiesException e = assertThrows(InconsistentMetaPropertiesException.class,
                () -> MetaProperties.ensure(dir, "c1", 2));
        assertTrue(e.getMessage().contains(dir.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("node.id=1"), e.getMessage());
        assertTrue(e.getMessage().contains("node.id=2"), e.getMessage());
    }

    @Test
    void refusedEnsureLeavesTheFileUntouched() throws IOException {
        MetaProperties.ensure(dir, "c1", 1);
        byte[] before = Files.readAllBytes(dir.resolve(MetaProperties.FILE_NAME));
        assertThrows(InconsistentMetaPropertiesException.class, () -> MetaProperties.ensure(dir, "c2", 1));
        assertEquals(new String(before), Files.readString(dir.resolve(MetaProperties.FILE_NAME)));
    }

    @Test
    void readOfUnstampedDirIsEmpty() {
        assertEquals(Optional.empty(), MetaProperties.read(dir));
        assertEquals(Optional.empty(), MetaProperties.read(dir.resolve("missing")));
    }

    @Test
    void ensureCreatesAMissingDirAndLeavesNoTmpFile() throws IOException {
        Path logDir = dir.resolve("new/log-dir");
        MetaProperties.ensure(logDir, "c1", 1);
        try (Stream<Path> files = Files.list(logDir)) {
            assertEquals(List.of(MetaProperties.FILE_NAME), files.map(p -> p.getFileName().toString()).toList());
        }
    }

    @Test
    void fileWrittenByKafkaInAnyKeyOrderIsAccepted() throws IOException {
        Files.writeString(dir.resolve(MetaProperties.FILE_NAME), "#\n#Thu Jan 01 00:00:00 UTC 2025\n"
                + "node.id=5\ndirectory.id=J8aAPcfLQt2bqs1JT_rMgQ\nversion=1\ncluster.id=abc\n");
        MetaProperties expected = new MetaProperties("abc", 5, "J8aAPcfLQt2bqs1JT_rMgQ");
        assertEquals(Optional.of(expected), MetaProperties.read(dir));
        assertEquals(expected, MetaProperties.ensure(dir, "abc", 5));
    }

    @Test
    void fileWithoutDirectoryIdGetsOneAddedOnce() throws IOException {
        Files.writeString(dir.resolve(MetaProperties.FILE_NAME), "version=1\ncluster.id=abc\nnode.id=5\n");
        MetaProperties upgraded = MetaProperties.ensure(dir, "abc", 5);
        assertEquals(upgraded.directoryId(), onDisk().getProperty("directory.id"));
        assertEquals(upgraded, MetaProperties.ensure(dir, "abc", 5));
    }

    @Test
    void clusterIdWithSpecialCharactersRoundTrips() throws IOException {
        String clusterId = "a=b:c d#é";
        MetaProperties meta = MetaProperties.ensure(dir, clusterId, 1);
        assertEquals(clusterId, onDisk().getProperty("cluster.id"));
        assertEquals(Optional.of(meta), MetaProperties.read(dir));
    }

    @Test
    void unsupportedVersionIsAStorageError() throws IOException {
        Files.writeString(dir.resolve(MetaProperties.FILE_NAME), "version=0\ncluster.id=abc\nbroker.id=5\n");
        TidelineException e = assertThrows(TidelineException.class, () -> MetaProperties.ensure(dir, "abc", 5));
        assertEquals(Errors.KAFKA_STORAGE_ERROR, e.error());
        assertTrue(e.getMessage().contains("version=0"), e.getMessage());
        assertThrows(TidelineException.class, () -> MetaProperties.read(dir));
    }

    @Test
    void missingOrNonNumericNodeIdIsAStorageErrorNamingTheFile() throws IOException {
        Path file = dir.resolve(MetaProperties.FILE_NAME);
        Files.writeString(file, "version=1\ncluster.id=abc\n");
        TidelineException missing = assertThrows(TidelineException.class, () -> MetaProperties.ensure(dir, "abc", 5));
        assertTrue(missing.getMessage().contains(file.toString()) && missing.getMessage().contains("node.id"),
                missing.getMessage());

        Files.writeString(file, "version=1\ncluster.id=abc\nnode.id=five\ndirectory.id=x\n");
        TidelineException bad = assertThrows(TidelineException.class, () -> MetaProperties.read(dir));
        assertTrue(bad.getMessage().contains("five"), bad.getMessage());
    }

    @Test
    void invalidArgumentsAreRejectedBeforeTouchingDisk() {
        assertThrows(IllegalArgumentException.class, () -> MetaProperties.ensure(dir, "", 1));
        assertThrows(IllegalArgumentException.class, () -> MetaProperties.ensure(dir, "c1", -1));
        assertFalse(Files.exists(dir.resolve(MetaProperties.FILE_NAME)));
    }
}
