package io.tideline.store.dir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

class LogDirLockTest {

    private static final long CHILD_TIMEOUT_SECONDS = 60;

    @TempDir
    Path tmp;

    @Test
    void sameDirCannotBeLockedTwiceInOneJvmButCanAfterClose() {
        Path dir = tmp.resolve("logs");
        LogDirLock first = LogDirLock.acquire(dir);
        LogDirInUseException e = assertThrows(LogDirInUseException.class, () -> LogDirLock.acquire(dir));
        assertEquals(Errors.KAFKA_STORAGE_ERROR, e.error());
        assertEquals("Log directory " + dir + " is in use by another process or LogManager (lock file "
                + dir.resolve(".lock") + ")", e.getMessage());
        first.close();
        try (LogDirLock second = LogDirLock.acquire(dir)) {
            assertEquals(dir.resolve(LogDirLock.LOCK_FILE_NAME), second.lockFile());
        }
    }

    @Test
    void acquireCreatesTheDirectoryAndLockFile() {
        Path dir = tmp.resolve("a/b/logs");
        try (LogDirLock lock = LogDirLock.acquire(dir)) {
            assertTrue(Files.isRegularFile(dir.resolve(".lock")));
            assertEquals(dir, lock.logDir());
        }
    }

    @Test
    void relativeAndAbsoluteSpellingsOfOneDirAreTheSameLock() {
        Path dir = tmp.resolve("logs");
        try (LogDirLock lock = LogDirLock.acquire(dir)) {
            LogDirInUseException e = assertThrows(LogDirInUseException.class,
                    () -> LogDirLock.acquire(dir.resolve("../logs/.")));
            assertEquals(lock.logDir(), e.logDir());
        }
    }

    @Test
    void closeIsIdempotent() {
        Path dir = tmp.resolve("logs");
        LogDirLock lock = LogDirLock.acquire(dir);
        lock.close();
        lock.close();
        LogDirLock again = LogDirLock.acquire(dir);
        again.close();
    }

    @Test
    void differentDirsLockIndependently() {
        try (LogDirLock a = LogDirLock.acquire(tmp.resolve("a")); LogDirLock b = LogDirLock.acquire(tmp.resolve("b"))) {
            assertNotEquals(a.lockFile(), b.lockFile());
        }
    }

    @Test
    @DisabledOnOs(OS.WINDOWS)
    void dirLockedByAnotherProcessCannotBeAcquiredUntilThatProcessLetsGo() throws Exception {
        Path dir = tmp.resolve("logs");
        Process child = startHolder(dir);
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("LOCKED", readLine(out, child));

            LogDirInUseException e = assertThrows(LogDirInUseException.class, () -> LogDirLock.acquire(dir));
            assertTrue(e.getMessage().contains(dir.toString()), e.getMessage());

            child.getOutputStream().close(); // the child releases and exits
            assertEquals("RELEASED", readLine(out, child));
            assertTrue(child.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS), "child did not exit");
            try (LogDirLock lock = LogDirLock.acquire(dir)) {
                assertEquals(dir.resolve(".lock"), lock.lockFile());
            }
        } finally {
            stop(child);
        }
    }

    /**
     * POSIX locks belong to the process, and closing any descriptor of the file drops them. A second
     * acquire in the same JVM must fail without opening (and closing) the lock file, or the first lock
     * silently stops protecting the dir against other processes.
     */
    @Test
    @DisabledOnOs(OS.WINDOWS)
    void failedSecondAcquireInThisJvmDoesNotReleaseTheLockForOtherProcesses() throws Exception {
        Path dir = tmp.resolve("logs");
        try (LogDirLock lock = LogDirLock.acquire(dir)) {
            assertThrows(LogDirInUseException.class, () -> LogDirLock.acquire(lock.logDir()));
            Process child = startHolder(dir);
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
                assertEquals("IN_USE", readLine(out, child));
                assertTrue(child.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS), "child did not exit");
                assertEquals(3, child.exitValue());
            } finally {
                stop(child);
            }
        }
    }

    private Process startHolder(Path dir) throws IOException {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                LogDirLockHolder.class.getName(), dir.toString())
                .redirectError(tmp.resolve("child-stderr.txt").toFile())
                .start();
    }

    /** Reads one line from the child, bounded so a hung child fails the test instead of hanging it. */
    private String readLine(BufferedReader out, Process child) throws Exception {
        CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        // On timeout the reader thread stays blocked until stop(child) closes the pipe, then ends.
        String text;
        try {
            text = line.get(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("no output from child " + child.pid() + "; stderr: " + childStderr(), e);
        }
        if (text == null) {
            throw new AssertionError("child " + child.pid() + " closed its output; stderr: " + childStderr());
        }
        return text;
    }

    private String childStderr() {
        try {
            return Files.readString(tmp.resolve("child-stderr.txt"));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private static void stop(Process child) throws InterruptedException {
        child.destroyForcibly();
        if (!child.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new AssertionError("child process " + child.pid() + " did not exit after destroy");
        }
    }
}
