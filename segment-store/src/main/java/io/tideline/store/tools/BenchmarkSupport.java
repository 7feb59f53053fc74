package io.tideline.store.tools;

import io.tideline.common.io.FileUtils;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;

/**
 * What every benchmark command shares: its scratch directory (refused unless new or empty, removed at the
 * end), number formatting, one-line descriptions of I/O failures, and quiet logging. Stateless.
 */
public final class BenchmarkSupport {
    private BenchmarkSupport() {
    }

    /** Creates the directory if needed and proves it writable; refuses a non-empty one. True if created. */
    public static boolean prepareDirectory(Path dir) throws IOException {
        boolean created = !Files.exists(dir);
        if (!created) {
            if (!Files.isDirectory(dir)) {
                throw new IOException("not a directory");
            }
            try (Stream<Path> children = Files.list(dir)) {
                if (children.findAny().isPresent()) {
                    throw new IOException("not empty (give a new or empty directory; it is removed at the end)");
                }
            }
        }
        Files.createDirectories(dir);
        Path probe = dir.resolve(".write-probe");
        Files.write(probe, new byte[] {1});
        Files.delete(probe);
        return created;
    }

    /** Removes what the run left: the directory itself if the run created it, else its content. */
    public static void cleanUp(Path dir, boolean created) throws IOException {
        if (created) {
            FileUtils.deleteRecursively(dir);
            return;
        }
        try (Stream<Path> children = Files.list(dir)) {
            for (Path child : (Iterable<Path>) children::iterator) {
                FileUtils.deleteRecursively(child);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    public static String duration(long nanos) {
        return nanos >= 1_000_000_000L ? String.format(Locale.ROOT, "%.2f s", nanos / 1e9)
                : String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
    }

    public static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    /** A one-line reason for an I/O failure, for the command's single error line. */
    public static String describe(Throwable e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file or directory: " + e.getMessage();
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied: " + e.getMessage();
        }
        if (e instanceof java.nio.file.FileSystemException fs && fs.getReason() != null) {
            return fs.getReason() + ": " + fs.getFile();
        }
        String message = e.getMessage();
        return message == null ? e.getClass().getSimpleName() : message;
    }

    /**
     * The launcher runs without a logging config; logback's default would print every roll, deletion
     * or fetcher start at DEBUG/INFO into the table. Lowered to WARN by reflection, since logback is only
     * a runtime dependency.
     */
    public static void quietLogging() {
        if (System.getProperty("logback.configurationFile") != null) {
            return; // the user chose a configuration
        }
        try {
            Class<?> level = Class.forName("ch.qos.logback.classic.Level");
            Object warn = level.getField("WARN").get(null);
            // The node's logback.xml (on the launcher's class path) sets io.tideline to INFO itself.
            for (String name : new String[] {org.slf4j.Logger.ROOT_LOGGER_NAME, "io.tideline"}) {
                Object logger = LoggerFactory.getLogger(name);
                logger.getClass().getMethod("setLevel", level).invoke(logger, warn);
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            // another slf4j binding, or none: leave its configuration alone
        }
    }
}
