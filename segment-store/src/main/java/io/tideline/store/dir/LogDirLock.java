package io.tideline.store.dir;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.Set;

/**
 * Exclusive ownership of a log directory: an OS file lock on {@code <log.dir>/.lock}, held for as long
 * as a log manager uses the directory. A second broker pointed at the same directory, or a second log
 * manager in the same JVM, fails with {@link LogDirInUseException} instead of corrupting the logs.
 *
 * <p>The file lock is a POSIX record lock on Linux, which has a trap: it belongs to the process, and
 * closing <em>any</em> descriptor of the file in this process drops it, even one opened only to try
 * the lock again. So {@link #acquire} checks a JVM-wide table of held lock files (by file key) before it
 * opens anything, and nothing else in the process may open a {@code .lock} file. The lock file's content
 * is never used; it is left in place on close (deleting it would race with another process that opened
 * the old inode).
 *
 * <p>Thread-safety: safe for concurrent use; acquire and close are serialized JVM-wide (rare, startup
 * and shutdown).
 */
public final class LogDirLock implements AutoCloseable {

    public static final String LOCK_FILE_NAME = ".lock";

    /**
     * File keys (device + inode) of lock files this JVM holds. Guarded by the class monitor, which also
     * covers the check-then-open in {@link #acquire} so no open of a held lock file can slip in.
     */
    private static final Set<Object> HELD = new HashSet<>();

    private final Path logDir;
    private final Path lockFile;
    private final Object key;
    private final FileChannel channel;
    private final FileLock lock;
    private boolean closed; // guarded by LogDirLock.class

    private LogDirLock(Path logDir, Path lockFile, Object key, FileChannel channel, FileLock lock) {
        this.logDir = logDir;
        this.lockFile = lockFile;
        this.key = key;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Creates {@code logDir} if needed and takes its lock without waiting.
     *
     * @throws LogDirInUseException if another process or this JVM holds it
     * @throws TidelineException    with KAFKA_STORAGE_ERROR if the directory or lock file cannot be
     *                              created or opened
     */
    public static LogDirLock acquire(Path logDir) {
        Path dir = logDir.toAbsolutePath().normalize();
        Path lockFile = dir.resolve(LOCK_FILE_NAME);
        synchronized (LogDirLock.class) {
            try {
                Files.createDirectories(dir);
                if (Files.exists(lockFile) && HELD.contains(fileKey(lockFile))) {
                    throw new LogDirInUseException(dir, lockFile);
                }
                FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE,
                        StandardOpenOption.READ, StandardOpenOption.WRITE);
                FileLock lock;
                try {
                    lock = channel.tryLock();
                } catch (OverlappingFileLockException e) {
                    // Locked in this JVM but not through LogDirLock (or via another name for the same
                    // inode). Closing our channel can drop that lock, see the class comment.
                    lock = null;
                } catch (IOException | RuntimeException e) {
                    channel.close();
                    throw e;
                }
                if (lock == null) {
                    channel.close();
                    throw new LogDirInUseException(dir, lockFile);
                }
                Object key = fileKey(lockFile);
                HELD.add(key);
                return new LogDirLock(dir, lockFile, key, channel, lock);
            } catch (IOException e) {
                throw new TidelineException(Errors.KAFKA_STORAGE_ERROR,
                        "Failed to lock log directory " + dir + " (lock file " + lockFile + "): " + e, e);
            }
        }
    }

    /** Identity of the lock file without opening it: device and inode where the OS has them. */
    private static Object fileKey(Path lockFile) throws IOException {
        Object key = Files.readAttributes(lockFile, BasicFileAttributes.class).fileKey();
        return key != null ? key : lockFile.toRealPath();
    }

    public Path logDir() {
        return logDir;
    }

    public Path lockFile() {
        return lockFile;
    }

    /** Releases the lock; calling it again does nothing. */
    @Override
    public void close() {
        synchronized (LogDirLock.class) {
            if (closed) {
                return;
            }
            closed = true;
            try {
                try {
                    lock.release();
                } finally {
                    channel.close(); // releases the lock too, if release() failed
                    HELD.remove(key);
                }
            } catch (IOException e) {
                throw new TidelineException(Errors.KAFKA_STORAGE_ERROR,
                        "Failed to release the lock on log directory " + logDir + ": " + e, e);
            }
        }
    }

    @Override
    public String toString() {
        return "LogDirLock(" + lockFile + ")";
    }
}
