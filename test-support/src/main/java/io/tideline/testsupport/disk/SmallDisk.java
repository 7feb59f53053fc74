package io.tideline.testsupport.disk;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real, small filesystem for tests of a full disk: a tmpfs mounted with {@code size=} on a directory, so a
 * write past it fails with ENOSPC as on a full disk (memory-mapped writes included), not through a mock. Needs
 * root ({@link #canMount()}); {@link #close()} unmounts it, so a test leaves no mount behind.
 */
public final class SmallDisk implements AutoCloseable {
    private static final int CHUNK = 1 << 20;

    private final Path dir;

    private SmallDisk(Path dir) {
        this.dir = dir;
    }

    /** Whether this process may mount a filesystem: it runs as root (CI does). */
    public static boolean canMount() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[2].equals("0");
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /** Mounts a tmpfs of {@code bytes} on {@code dir} (created when missing; it must be empty). */
    public static SmallDisk mount(Path dir, long bytes) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        run(List.of("mount", "-t", "tmpfs", "-o", "size=" + bytes, "tmpfs", dir.toString()));
        return new SmallDisk(dir);
    }

    public Path dir() {
        return dir;
    }

    /**
     * Writes zeros to {@code file} until its filesystem says it is full, and returns how many bytes that took;
     * deleting the file frees them again. Refuses a filesystem larger than {@code largest} bytes, so a test
     * that lost its small disk cannot fill the host's.
     */
    public static long fill(Path file, long largest) throws IOException {
        long total = Files.getFileStore(file.getParent()).getTotalSpace();
        if (total > largest) {
            throw new IllegalStateException(file.getParent() + " is on a filesystem of " + total
                    + " bytes, not a small test disk of at most " + largest);
        }
        byte[] zeros = new byte[CHUNK];
        long written = 0;
        try (OutputStream out = Files.newOutputStream(file)) {
            while (written <= total) {
                out.write(zeros);
                written += zeros.length;
            }
        } catch (IOException full) {
            if (full.getMessage() == null || !full.getMessage().contains("No space left")) {
                throw full;
            }
            return written;
        }
        throw new IllegalStateException(written + " bytes written to " + file + " and its disk is still not full");
    }

    @Override
    public void close() throws IOException, InterruptedException {
        try {
            run(List.of("umount", dir.toString()));
        } catch (IOException busy) {
            // A file still open under it (a node not yet closed) keeps it busy: detach it now, freed when released.
            run(List.of("umount", "-l", dir.toString()));
        }
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish in 30 s");
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed (exit " + p.exitValue() + "): " + output);
        }
    }
}
