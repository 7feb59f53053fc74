package io.tideline.store.dir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.io.MappedBuffers;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

class DeletedOpenFilesScannerTest {

    @TempDir
    Path tmp;

    private Path logDir;
    private final DeletedOpenFilesScanner scanner = new DeletedOpenFilesScanner();

    @BeforeEach
    void createLogDir() throws IOException {
        logDir = Files.createDirectories(tmp.resolve("logs/orders-0"));
    }

    private static Path fileOfSize(Path path, int bytes) throws IOException {
        Files.write(path, new byte[bytes]);
        return path;
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void deletedFileStillOpenIsReportedWithItsSizeUntilTheChannelCloses() throws IOException {
        Path segment = fileOfSize(logDir.resolve("00000000000000000000.log"), 12_345);
        FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ);
        try {
            Files.delete(segment);
            List<DeletedOpenFile> found = scanner.scan(List.of(tmp.resolve("logs")));
            assertEquals(List.of(new DeletedOpenFile(segment, 12_345, DeletedOpenFile.FD)), found);
            assertEquals(new DeletedOpenFilesScanner.Summary(1, 12_345), DeletedOpenFilesScanner.summarize(found));
        } finally {
            channel.close();
        }
        assertEquals(List.of(), scanner.scan(List.of(tmp.resolve("logs"))));
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void deletedFileStillMappedIsReportedAsMmapUntilUnmapped() throws IOException {
        Path index = fileOfSize(logDir.resolve("00000000000000000000.index"), 8192);
        MappedByteBuffer mapped;
        try (FileChannel channel = FileChannel.open(index, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, 8192);
        }
        Files.delete(index);
        try {
            List<DeletedOpenFile> found = scanner.scan(List.of(tmp.resolve("logs")));
            assertEquals(List.of(new DeletedOpenFile(index, 8192, DeletedOpenFile.MMAP)), found);
            mapped.putInt(0, 42); // the buffer is still usable, and still reachable here
        } finally {
            MappedBuffers.unmap(mapped);
        }
        assertEquals(List.of(), scanner.scan(List.of(tmp.resolve("logs"))));
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void fileHeldOpenAndMappedIsReportedOnceAsFdAndMmap() throws IOException {
        Path index = fileOfSize(logDir.resolve("00000000000000000000.timeindex"), 4096 * 3);
        FileChannel channel = FileChannel.open(index, StandardOpenOption.READ);
        MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, 4096);
        try {
            Files.delete(index);
            assertEquals(List.of(new DeletedOpenFile(index, 4096 * 3, DeletedOpenFile.FD_AND_MMAP)),
                    scanner.scan(List.of(tmp.resolve("logs"))));
        } finally {
            MappedBuffers.unmap(mapped);
            channel.close();
        }
        assertEquals(List.of(), scanner.scan(List.of(tmp.resolve("logs"))));
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void deletedFileOutsideTheLogDirsIsNotReported() throws IOException {
        Path elsewhere = Files.createDirectories(tmp.resolve("logs-other"));
        Path file = fileOfSize(elsewhere.resolve("x.log"), 100);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            Files.delete(file);
            // "logs-other" shares a string prefix with "logs" but is not under it
            assertEquals(List.of(), scanner.scan(List.of(tmp.resolve("logs"))));
            assertEquals(1, scanner.scan(List.of(elsewhere)).size());
            assertTrue(channel.isOpen());
        }
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void openFileThatIsNotDeletedIsNotReported() throws IOException {
        Path segment = fileOfSize(logDir.resolve("00000000000000000000.log"), 100);
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ)) {
            assertEquals(List.of(), scanner.scan(List.of(tmp.resolve("logs"))));
            assertTrue(channel.isOpen());
        }
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void liveFileWhoseNameEndsInDeletedIsNotReported() throws IOException {
        Path tricky = fileOfSize(logDir.resolve("x.log (deleted)"), 100);
        try (FileChannel channel = FileChannel.open(tricky, StandardOpenOption.READ)) {
            assertEquals(List.of(), scanner.scan(List.of(tmp.resolve("logs"))));
            assertTrue(channel.isOpen());
        }
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void logDirGivenThroughASymlinkStillMatches() throws IOException {
        Path link = Files.createSymbolicLink(tmp.resolve("logs-link"), tmp.resolve("logs"));
        Path segment = fileOfSize(logDir.resolve("00000000000000000000.log"), 10);
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ)) {
            Files.delete(segment);
            List<DeletedOpenFile> found = scanner.scan(List.of(link));
            assertEquals(1, found.size(), found.toString());
            assertEquals(10, found.get(0).bytes());
            assertTrue(channel.isOpen());
        }
    }

    @Test
    void noProcfsMeansAnEmptyList() {
        DeletedOpenFilesScanner noProc = new DeletedOpenFilesScanner(tmp.resolve("no-proc"));
        assertEquals(List.of(), noProc.scan(List.of(logDir)));
    }

    @Test
    void noLogDirsMeansAnEmptyList() {
        assertEquals(List.of(), scanner.scan(List.of()));
    }

    /** A descriptor closed between listing and reading shows up as a dangling link: skipped, no error. */
    @Test
    @EnabledOnOs(OS.LINUX)
    void descriptorThatClosedDuringTheScanIsSkipped() throws IOException {
        Path fakeProc = Files.createDirectories(tmp.resolve("proc/self"));
        Path fdDir = Files.createDirectories(fakeProc.resolve("fd"));
        Files.createSymbolicLink(fdDir.resolve("7"), Path.of(logDir.resolve("gone.log") + " (deleted)"));
        Files.writeString(fakeProc.resolve("maps"), "");
        assertEquals(List.of(), new DeletedOpenFilesScanner(fakeProc).scan(List.of(logDir)));
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void mapsLinesAreParsedForPathsWithSpacesAndSeveralRegionsPerFile() throws IOException {
        Path fakeProc = Files.createDirectories(tmp.resolve("proc/self"));
        Files.createDirectories(fakeProc.resolve("fd"));
        String dirText = logDir.toString();
        Files.writeString(fakeProc.resolve("maps"), String.join("\n",
                "7f0000000000-7f0000002000 r--s 00000000 08:01 1234       " + dirText + "/a b.index (deleted)",
                "7f0000010000-7f0000011000 r--s 00004000 08:01 1234       " + dirText + "/a b.index (deleted)",
                "7f0000020000-7f0000021000 r--s 00000000 08:01 99         " + dirText + "/live.index",
                "7f0000030000-7f0000031000 rw-p 00000000 00:00 0 ",
                "7f0000040000-7f0000041000 r--p 00000000 08:01 77         /usr/lib/libc.so.6 (deleted)",
                "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0          [stack]",
                "garbage line") + "\n");
        List<DeletedOpenFile> found = new DeletedOpenFilesScanner(fakeProc).scan(List.of(logDir));
        // regions cover file bytes [0, 0x2000) and [0x4000, 0x5000): the furthest mapped position is 0x5000
        assertEquals(List.of(new DeletedOpenFile(logDir.resolve("a b.index"), 0x5000, DeletedOpenFile.MMAP)), found);
    }

    @Test
    void deletedPathMatchesOnlyDeletedFilesStrictlyUnderARoot() {
        List<Path> roots = List.of(Path.of("/data/logs"));
        assertEquals(Path.of("/data/logs/t-0/0.log"), DeletedOpenFilesScanner.deletedPath("/data/logs/t-0/0.log (deleted)", roots));
        assertNull(DeletedOpenFilesScanner.deletedPath("/data/logs/t-0/0.log", roots));
        assertNull(DeletedOpenFilesScanner.deletedPath("/data/logs2/0.log (deleted)", roots));
        assertNull(DeletedOpenFilesScanner.deletedPath("/data/logs (deleted)", roots));
        assertNull(DeletedOpenFilesScanner.deletedPath("socket:[12345]", roots));
        assertNull(DeletedOpenFilesScanner.deletedPath("/data/logs/../other/0.log (deleted)", roots));
    }

    @Test
    void summaryAddsCountAndBytes() {
        DeletedOpenFilesScanner.Summary summary = DeletedOpenFilesScanner.summarize(List.of(
                new DeletedOpenFile(Path.of("/a"), 10, DeletedOpenFile.FD),
                new DeletedOpenFile(Path.of("/b"), 32, DeletedOpenFile.MMAP)));
        assertEquals(new DeletedOpenFilesScanner.Summary(2, 42), summary);
        assertEquals(new DeletedOpenFilesScanner.Summary(0, 0), DeletedOpenFilesScanner.summarize(List.of()));
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void resultsAreLargestFirst() throws IOException {
        Path small = fileOfSize(logDir.resolve("1.log"), 10);
        Path big = fileOfSize(logDir.resolve("2.log"), 1000);
        try (FileChannel a = FileChannel.open(small, StandardOpenOption.READ);
             FileChannel b = FileChannel.open(big, StandardOpenOption.READ)) {
            Files.delete(small);
            Files.delete(big);
            assertEquals(List.of(new DeletedOpenFile(big, 1000, DeletedOpenFile.FD),
                    new DeletedOpenFile(small, 10, DeletedOpenFile.FD)), scanner.scan(List.of(logDir)));
            assertTrue(a.isOpen() && b.isOpen());
        }
    }
}
