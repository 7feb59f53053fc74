package io.tideline.testsupport.disk;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real small file system for disk-fault tests: a tmpfs of a few MiB mounted on a test's directory, which
 * answers ENOSPC once full exactly as a full disk does (for writes, and as SIGBUS for stores into a mapped
 * hole). {@link #fill()} takes every free block with a filler file and {@link #free()} gives them back;
 * {@link #close()} unmounts it by its path.
 *
 * <p>Mounting needs root. Not root, and {@link #mount} fails at once with one line saying so: a test that needs
 * a real full disk never passes or skips silently (docs/testing.md, "Disk faults").
 */
public final class SmallFileSystem implements AutoCloseable {
    private static final String FILLER = ".filler";

    private final Path mountPoint;
    private boolean mounted;

    private SmallFileSystem(Path mountPoint) {
        this.mountPoint = mountPoint;
    }

    /** Mounts a tmpfs of {@code megabytes} MiB on {@code dir} (created if missing). */
    public static SmallFileSystem mount(Path dir, int megabytes) throws IOException {
        requireRoot();
        Files.createDirectories(dir);
        SmallFileSystem fs = new SmallFileSystem(dir.toAbsolutePath());
        run(List.of("mount", "-t", "tmpfs", "-o", "size=" + megabytes + "m", "tmpfs", fs.mountPoint.toString()));
        fs.mounted = true;
        return fs;
    }

    /** Whether this JVM may mount one: it runs as root (CI does). */
    public static boolean canMount() {
        try {
            return uid() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** Fails with one line when this JVM is not root: mounting a tmpfs needs CAP_SYS_ADMIN. */
    public static void requireRoot() throws IOException {
        int uid = uid();
        if (uid != 0) {
            throw new IllegalStateException("the disk-fault tests need root to mount a small tmpfs (mount -t tmpfs "
                    + "-o size=...), but they run as uid " + uid + "; run them as root (CI is root)");
        }
    }

    private static int uid() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8)) {
            if (line.startsWith("Uid:")) {
                return Integer.parseInt(line.substring(4).trim().split("\\s+")[1]);
            }
        }
        throw new IOException("no Uid line in /proc/self/status");
    }

    public Path path() {
        return mountPoint;
    }

    /** Writes a filler file until the file system answers ENOSPC; returns the bytes it took. */
    public long fill() throws IOException {
        return fill(mountPoint);
    }

    /** Removes the filler: the space {@link #fill()} took is free again. */
    public void free() throws IOException {
        free(mountPoint);
    }

    /**
     * {@link #fill()} for a small file system that another part of the test mounted: a filler file in {@code dir},
     * which must be the mount point of a file system this test made small (the caller checks that it is).
     */
    public static long fill(Path dir) throws IOException {
        ByteBuffer block = ByteBuffer.allocate(4096);
        long written = 0;
        try (FileChannel filler = FileChannel.open(dir.resolve(FILLER), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            while (true) {
                block.clear();
                written += filler.write(block);
            }
        } catch (IOException e) {
            if (!String.valueOf(e.getMessage()).contains("No space left on device")) {
                throw e;
            }
        }
        return written;
    }

    /** {@link #free()} for the file system under {@code dir} that {@link #fill(Path)} filled. */
    public static void free(Path dir) throws IOException {
        Files.deleteIfExists(dir.resolve(FILLER));
    }

    /**
     * Unmounts by path. A file still open on it (a test's node that did not stop) makes a plain unmount fail
     * with EBUSY; the lazy one then detaches it at once and the kernel frees it when the last file closes.
     */
    @Override
    public void close() throws IOException {
        if (!mounted) {
            return;
        }
        mounted = false;
        try {
            run(List.of("umount", mountPoint.toString()));
        } catch (IOException e) {
            run(List.of("umount", "-l", mountPoint.toString()));
        }
    }

    private static void run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish in 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " was interrupted", e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed (exit " + p.exitValue() + "): " + out);
        }
    }
}
