package io.tideline.store.tools;

import io.tideline.common.io.FileUtils;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongFunction;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;

/**
 * What every benchmark command shares: its scratch directory (refused unless new or empty, removed at the
 * end), the rounds that alternate a measurement with its baseline, number formatting, the report's
 * environment and RESULT lines, one-line descriptions of I/O failures, and quiet logging. Stateless.
 */
public final class BenchmarkSupport {
    /** Rates are in MB of 10^6 bytes, as the reports say. */
    public static final double MB = 1_000_000.0;

    private BenchmarkSupport() {
    }

    /** One timed step of a round, returning its figures. */
    @FunctionalInterface
    public interface Step<T> {
        T run() throws IOException, InterruptedException;
    }

    /** What a measurement and its baseline returned in one round. */
    public record Turn<M, B>(M measurement, B baseline) {
    }

    /**
     * Runs a measurement and its baseline, the baseline first if asked, each after {@link #settle}. Callers
     * alternate the order from round to round, so that write-back left by the step before or a busy neighbour
     * on the shared machine falls on both sides alike.
     */
    public static <M, B> Turn<M, B> inTurn(boolean baselineFirst, Step<M> measurement, Step<B> baseline)
            throws IOException, InterruptedException {
        B first = null;
        if (baselineFirst) {
            settle();
            first = baseline.run();
        }
        settle();
        M measured = measurement.run();
        if (baselineFirst) {
            return new Turn<>(measured, first);
        }
        settle();
        return new Turn<>(measured, baseline.run());
    }

    /**
     * Collects garbage before a timed step, so that the data prepared for it is already promoted and the step
     * is not charged for copying the benchmark's own data (several 100 ms pauses otherwise).
     */
    public static void settle() {
        System.gc();
    }

    /** The report's line on units and the machine: {@code MB = 10^6 bytes; Java V, N cores, max heap M MiB}. */
    public static String environment() {
        return String.format(Locale.ROOT, "MB = 10^6 bytes; Java %s, %d cores, max heap %d MiB",
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20);
    }

    /** A blank line, then the one line scripts read: {@code prefix key=value ...} in the map's order. */
    public static void printResult(PrintStream out, String prefix, Map<String, String> summary) {
        out.println();
        StringBuilder line = new StringBuilder(prefix);
        summary.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
        out.println(line);
        out.flush();
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

    /** {@code amount} per second over {@code nanos}, one decimal. */
    public static String rate(double amount, long nanos) {
        return fixed(amount / (nanos / 1e9), 1);
    }

    /** One figure per round, formatted by {@code format}, joined with ", ". */
    public static String eachRound(long[] values, LongFunction<String> format) {
        StringBuilder s = new StringBuilder();
        for (long value : values) {
            s.append(s.length() == 0 ? "" : ", ").append(format.apply(value));
        }
        return s.toString();
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
