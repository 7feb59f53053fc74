package io.tideline.store.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tideline dump-log}: prints what the files of a segment hold, in the manner of Kafka's
 * {@code kafka-dump-log}, and checks indexes against the {@code .log} next to them.
 *
 * <pre>
 *  .log        baseOffset: 0 lastOffset: 2 count: 3 position: 0 CreateTime: 2023-11-14T22:13:20.002Z
 *              maxTimestamp: 2023-11-14T22:13:20.002Z size: 110 magic: 2 compresscodec: none crc: 2745134400 ...
 *              | offset: 0 CreateTime: 2023-11-14T22:13:20Z keySize: 2 valueSize: 5 sequence: -1 headerKeys: [trace] key: k0 payload: hello
 *  .index      offset: 17 position: 4113
 *  .timeindex  timestamp: 2023-11-14T22:13:20.005Z offset: 17
 *  .txnindex   version: 0 producerId: 7 firstOffset: 10 lastOffset: 12 lastStableOffset: 10
 * </pre>
 *
 * As in Kafka's tool, the value after {@code CreateTime:}/{@code LogAppendTime:} on a batch line is the
 * batch's max timestamp (repeated as {@code maxTimestamp:}); on a record line it is the record's.
 * Timestamps print as ISO-8601 ({@code Instant.toString()}); {@code --timestamps epoch-ms} prints the
 * epoch milliseconds Kafka's {@code kafka-dump-log} prints, so the two outputs can be diffed. A missing
 * timestamp (-1) prints as -1 either way (docs/cli.md, dump-log).
 * Record lines ({@code | ...}) appear with {@code --print-data-log}; keys and values are shown as
 * UTF-8 text when they decode as such, otherwise as {@code 0x} hex.
 *
 * <p>With {@code --verify-index} the entries of {@code .index} and {@code .timeindex} files are checked
 * instead of listed: each offset-index entry must point at the start of a batch whose last offset is
 * the entry's offset, with offsets and positions strictly increasing; each time-index entry must have a
 * timestamp above the previous one, an offset inside the segment, and a timestamp that some batch up
 * to that offset carries or exceeds. Every mismatch is printed.
 *
 * <p>A corrupt batch (bad length, magic, CRC, offsets going backwards, records that do not parse)
 * is reported with its position and reason, and the dump of that file stops there.
 *
 * <p>Exit codes: 0 when everything is consistent; 1 when a mismatch or a corrupt batch was found;
 * 2 on bad usage or a file that cannot be read (one line on stderr, no stack trace).
 *
 * <p>Files are opened read-only and never modified, so the tool can inspect a running broker's files.
 * Indexes of an active segment are preallocated: their trailing all-zero slots are not entries and are
 * not shown. Files renamed for deletion ({@code *.log.deleted} ...) are read like the originals.
 *
 * <p>This class is the command line: it checks the arguments and hands each file to {@link LogPrinter} or
 * {@link IndexPrinter}, which read .log files through {@link TolerantLogReader}.
 */
@Command(name = "dump-log", sortOptions = false,
        description = "Print the batches and records of .log files and the entries of .index, .timeindex "
                + "and .txnindex files; optionally verify indexes against their .log.")
public final class DumpLogCommand implements Callable<Integer> {
    public static final int EXIT_OK = 0;
    public static final int EXIT_MISMATCH = 1;
    public static final int EXIT_USAGE = 2;

    @Option(names = "--files", arity = "1..*", required = true, paramLabel = "FILE",
            description = "Segment files to dump: .log, .index, .timeindex, .txnindex (also with a .deleted suffix).")
    private List<Path> files;

    @Option(names = "--print-data-log", description = "Also print every record of each batch.")
    private boolean printDataLog;

    @Option(names = "--verify-index",
            description = "Check .index and .timeindex entries against the .log next to them instead of listing them.")
    private boolean verifyIndex;

    @Option(names = "--max-bytes", paramLabel = "N", defaultValue = "2147483647",
            description = "Read at most the batches lying within the first N bytes of each .log (default: all).")
    private int maxBytes;

    @Option(names = "--timestamps", paramLabel = "iso|epoch-ms", defaultValue = "iso",
            converter = TimestampFormatConverter.class,
            description = "iso (default): ISO-8601; epoch-ms: milliseconds, as Kafka's kafka-dump-log prints them.")
    private TimestampFormat timestamps = TimestampFormat.iso;

    static final class TimestampFormatConverter implements CommandLine.ITypeConverter<TimestampFormat> {
        @Override
        public TimestampFormat convert(String value) {
            return switch (value) {
                case "iso" -> TimestampFormat.iso;
                case "epoch-ms" -> TimestampFormat.epoch_ms;
                default -> throw new CommandLine.TypeConversionException("must be iso or epoch-ms, got '" + value + "'");
            };
        }
    }

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    private final PrintStream out;
    private final PrintStream err;

    private DumpLogCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command as {@code main} would, writing to the given streams; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        CommandLine cmd = new CommandLine(new DumpLogCommand(out, err));
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        cmd.setParameterExceptionHandler((e, a) -> {
            err.println("dump-log: " + e.getMessage() + " (see --help)");
            return EXIT_USAGE;
        });
        cmd.setExecutionExceptionHandler((e, c, p) -> {
            err.println("dump-log: " + describe(e));
            return EXIT_USAGE;
        });
        int code = cmd.execute(args);
        out.flush();
        return code;
    }

    @Override
    public Integer call() {
        if (maxBytes <= 0) {
            err.println("dump-log: --max-bytes must be positive, got " + maxBytes);
            return EXIT_USAGE;
        }
        // Check every argument before printing anything, so a typo does not leave half a dump.
        for (Path file : files) {
            String problem = unusable(file);
            if (problem != null) {
                err.println("dump-log: " + problem);
                return EXIT_USAGE;
            }
        }
        LogPrinter logs = new LogPrinter(out, timestamps, printDataLog, maxBytes);
        IndexPrinter indexes = new IndexPrinter(out, timestamps, verifyIndex);
        for (Path file : files) {
            try {
                dump(file, logs, indexes);
            } catch (IOException e) {
                out.flush();
                err.println("dump-log: cannot read " + file + ": " + describe(e));
                return EXIT_USAGE;
            } catch (UnusableFileException e) {
                out.flush();
                err.println("dump-log: " + e.getMessage());
                return EXIT_USAGE;
            }
        }
        return logs.problems() + indexes.problems() == 0 ? EXIT_OK : EXIT_MISMATCH;
    }

    private static String unusable(Path file) {
        if (!Files.exists(file)) {
            return "no such file: " + file;
        }
        if (!Files.isRegularFile(file)) {
            return "not a regular file: " + file;
        }
        if (!Files.isReadable(file)) {
            return "cannot read " + file + ": permission denied";
        }
        SegmentFileKind kind = SegmentFileKind.of(file);
        if (kind == null) {
            return "unsupported file " + file + ": expected a .log, .index, .timeindex or .txnindex file";
        }
        if (kind != SegmentFileKind.LOG && SegmentFileKind.baseOffsetOf(file) < 0) {
            return "cannot tell the base offset of " + file + ": its name must be the 20-digit base offset";
        }
        return null;
    }

    private void dump(Path file, LogPrinter logs, IndexPrinter indexes) throws IOException {
        out.println("Dumping " + file);
        switch (SegmentFileKind.of(file)) {
            case LOG -> logs.print(file);
            case OFFSET_INDEX -> indexes.printOffsetIndex(file);
            case TIME_INDEX -> indexes.printTimeIndex(file);
            case TXN_INDEX -> indexes.printTxnIndex(file);
        }
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return message == null ? e.getClass().getSimpleName() : message;
    }

    /** A file that cannot be worked on for a reason found after the arguments were checked. */
    static final class UnusableFileException extends RuntimeException {
        UnusableFileException(String message) {
            super(message);
        }
    }
}
