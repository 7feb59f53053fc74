package io.tideline.common.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** File-system steps whose order matters for durability. */
public final class FileUtils {
    private FileUtils() {
    }

    /**
     * Renames atomically where the file system allows it, then fsyncs the parent directory so that
     * the rename itself survives a power loss (a renamed file whose directory entry is lost would
     * reappear under its old name after a crash).
     */
    public static void atomicMoveWithFallback(Path source, Path target) throws IOException {
        atomicMoveWithoutDirectoryFsync(source, target);
        fsyncDirectory(target.toAbsolutePath().getParent());
    }

    /**
     * The rename alone; the caller fsyncs the directory once after a group of renames (a directory
     * fsync costs milliseconds on a shared disk, and a retention pass renames thousands of files).
     */
    public static void atomicMoveWithoutDirectoryFsync(Path source, Path target) throws IOException {
        try {
            Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(source, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * Flushes a directory's entries (file creations, renames, deletions) to disk. Every failure is the
     * caller's: a directory whose fsync failed may have lost the entries that a checkpoint, a new segment or
     * a deletion relies on, so it is a storage error like a failed write (docs/behaviours.md B141).
     */
    public static void fsyncDirectory(Path dir) throws IOException {
        fsyncDirectory(dir, d -> FileChannel.open(d, StandardOpenOption.READ));
    }

    /** How {@link #fsyncDirectory} opens a directory: the seam a test uses to make its open or fsync fail. */
    @FunctionalInterface
    interface DirectoryOpener {
        FileChannel open(Path dir) throws IOException;
    }

    static void fsyncDirectory(Path dir, DirectoryOpener opener) throws IOException {
        if (dir == null) {
            return;
        }
        try (FileChannel channel = opener.open(dir)) {
            channel.force(true);
        }
    }

    /** Writes {@code content} to {@code target} via a tmp file, fsync and atomic rename. */
    public static void writeAtomically(Path target, byte[] content) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try {
            writeAndSync(tmp, content);
            atomicMoveWithFallback(tmp, target);
        } catch (IOException | RuntimeException e) {
            // A failed write (an interrupt, a full disk) leaves the target as it was and no half-written file;
            // anything else at that path is not this write's to remove.
            try {
                if (Files.isRegularFile(tmp, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.deleteIfExists(tmp);
                }
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Replaces {@code file}'s content and fsyncs it: the first half of an atomic write, for callers
     * that must do something between the write and the rename (a checksum file, say).
     */
    public static void writeAndSync(Path file, byte[] content) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(content);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        }
    }

    /** Deletes a directory tree; missing paths are fine. */
    public static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (Path p : (Iterable<Path>) paths.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
