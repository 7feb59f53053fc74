package io.tideline.store.tools;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.store.index.OffsetIndex;
import io.tideline.store.index.TimeIndex;
import io.tideline.store.index.TxnIndex;
import io.tideline.store.record.Header;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.TimestampType;
import io.tideline.store.segment.LogFileNames;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
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
 */
@Command(name = "dump-log", sortOptions = false,
        description = "Print the batches and records of .log files and the entries of .index, .timeindex "
                + "and .txnindex files; optionally verify indexes against their .log.")
public final class DumpLogCommand implements Callable<Integer> {
    public static final int EXIT_OK = 0;
    public static final int EXIT_MISMATCH = 1;
    public static final int EXIT_USAGE = 2;

    /** Smallest value of a v2 batch's length field: the header after baseOffset and length. */
    private static final int MIN_BATCH_LENGTH = RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD;

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

    /** How timestamps print: ISO-8601 for people, or Kafka's epoch milliseconds for diffing with its tool. */
    enum TimestampFormat {
        iso, epoch_ms;

        String format(long timestamp) {
            return this == epoch_ms || timestamp < 0 ? Long.toString(timestamp)
                    : java.time.Instant.ofEpochMilli(timestamp).toString();
        }
    }

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
    private int problems;

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
        for (Path file : files) {
            try {
                dump(file);
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
        return problems == 0 ? EXIT_OK : EXIT_MISMATCH;
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
        FileKind kind = FileKind.of(file);
        if (kind == null) {
            return "unsupported file " + file + ": expected a .log, .index, .timeindex or .txnindex file";
        }
        if (kind != FileKind.LOG && baseOffsetOf(file) < 0) {
            return "cannot tell the base offset of " + file + ": its name must be the 20-digit base offset";
        }
        return null;
    }

    private void dump(Path file) throws IOException {
        out.println("Dumping " + file);
        switch (FileKind.of(file)) {
            case LOG -> dumpLog(file);
            case OFFSET_INDEX -> {
                reportPartialEntry(file, OffsetIndex.ENTRY_SIZE);
                if (verifyIndex) {
                    verifyOffsetIndex(file);
                } else {
                    dumpOffsetIndex(file);
                }
            }
            case TIME_INDEX -> {
                reportPartialEntry(file, TimeIndex.ENTRY_SIZE);
                if (verifyIndex) {
                    verifyTimeIndex(file);
                } else {
                    dumpTimeIndex(file);
                }
            }
            case TXN_INDEX -> {
                reportPartialEntry(file, TxnIndex.ENTRY_SIZE);
                dumpTxnIndex(file);
            }
        }
    }

    /** Index files hold whole entries; bytes past the last whole one mean damage (they are ignored). */
    private void reportPartialEntry(Path file, int entrySize) throws IOException {
        long size = Files.size(file);
        long rest = size % entrySize;
        if (rest > 0) {
            problems++;
            out.println("Corrupt tail: " + rest + " bytes at position " + (size - rest) + " are not a whole "
                    + entrySize + "-byte entry and are ignored");
        }
    }

    // ---------------------------------------------------------------- .log

    private void dumpLog(Path file) throws IOException {
        long base = baseOffsetOf(file);
        if (base >= 0) {
            out.println("Starting offset: " + base);
        }
        try (LogReader reader = new LogReader(file, maxBytes, true)) {
            long previousLastOffset = -1;
            ByteBuffer bytes;
            while ((bytes = reader.next()) != null) {
                int position = reader.position();
                RecordBatch batch = RecordBatch.wrap(bytes);
                if (batch.magic() != RecordBatch.MAGIC) {
                    corrupt(reader, "magic is " + batch.magic() + "; only magic 2 (the v2 batch format) is supported");
                    return;
                }
                out.println(batchLine(batch, position));
                if (!batch.isValid()) {
                    corrupt(reader, "the CRC-32C check fails (stored " + batch.checksum() + ", computed "
                            + batch.computeChecksum() + ")");
                    return;
                }
                if (batch.lastOffsetDelta() < 0 || batch.recordCount() < 0) {
                    corrupt(reader, "negative lastOffsetDelta (" + batch.lastOffsetDelta() + ") or record count ("
                            + batch.recordCount() + ")");
                    return;
                }
                if (batch.baseOffset() <= previousLastOffset) {
                    corrupt(reader, "base offset " + batch.baseOffset() + " is not above the previous batch's last offset "
                            + previousLastOffset);
                    return;
                }
                previousLastOffset = batch.lastOffset();
                if (printDataLog && !printRecords(reader, batch)) {
                    return;
                }
                reader.advance();
            }
            if (reader.problem() != null) {
                corrupt(reader, reader.problem());
            } else if (reader.stoppedAtLimit()) {
                out.println("Stopped at --max-bytes " + maxBytes + ": " + (reader.fileSize() - reader.position())
                        + " bytes from position " + reader.position() + " not shown");
            }
        }
    }

    /** Prints the records of a valid batch; false (after reporting) when they do not parse. */
    private boolean printRecords(LogReader reader, RecordBatch batch) {
        List<Record> records;
        try {
            records = batch.records();
        } catch (TidelineException e) {
            if (e.error() == Errors.UNSUPPORTED_COMPRESSION_TYPE) {
                out.println("| records not shown: " + batch.compressionType().label + " is not decoded by this tool");
                return true;
            }
            corrupt(reader, e.getMessage());
            return false;
        }
        String timeLabel = timestampLabel(batch);
        for (Record r : records) {
            int sequence = batch.baseSequence() < 0 ? -1 : batch.baseSequence() + (int) (r.offset() - batch.baseOffset());
            out.println("| offset: " + r.offset()
                    + " " + timeLabel + ": " + timestamps.format(r.timestamp())
                    + " keySize: " + (r.key() == null ? -1 : r.key().length)
                    + " valueSize: " + (r.value() == null ? -1 : r.value().length)
                    + " sequence: " + sequence
                    + " headerKeys: " + r.headers().stream().map(Header::key).collect(Collectors.joining(", ", "[", "]"))
                    + " key: " + printable(r.key())
                    + " payload: " + printable(r.value()));
        }
        return true;
    }

    private String batchLine(RecordBatch batch, int position) {
        String codec;
        try {
            codec = batch.compressionType().label;
        } catch (TidelineException e) {
            codec = "unknown(" + (batch.attributes() & 0x07) + ")";
        }
        return "baseOffset: " + batch.baseOffset()
                + " lastOffset: " + batch.lastOffset()
                + " count: " + batch.recordCount()
                + " position: " + position
                + " " + timestampLabel(batch) + ": " + timestamps.format(batch.maxTimestamp())
                + " maxTimestamp: " + timestamps.format(batch.maxTimestamp())
                + " size: " + batch.sizeInBytes()
                + " magic: " + batch.magic()
                + " compresscodec: " + codec
                + " crc: " + batch.checksum()
                + " isvalid: " + batch.isValid()
                + " partitionLeaderEpoch: " + batch.partitionLeaderEpoch()
                + " producerId: " + batch.producerId()
                + " producerEpoch: " + batch.producerEpoch()
                + " baseSequence: " + batch.baseSequence()
                + " isTransactional: " + batch.isTransactional()
                + " isControl: " + batch.isControlBatch();
    }

    private static String timestampLabel(RecordBatch batch) {
        return batch.timestampType() == TimestampType.LOG_APPEND_TIME
                ? "LogAppendTime" : "CreateTime";
    }

    private void corrupt(LogReader reader, String reason) {
        problems++;
        long rest = reader.fileSize() - reader.position();
        out.println("Corrupt batch at position " + reader.position() + ": " + reason + ". The dump of this file stops here ("
                + rest + " bytes from this position not shown).");
    }

    // ---------------------------------------------------------------- indexes

    private void dumpOffsetIndex(Path file) throws IOException {
        for (IndexEntry e : offsetIndexEntries(file)) {
            out.println("offset: " + e.offset() + " position: " + e.position());
        }
    }

    private void dumpTimeIndex(Path file) throws IOException {
        for (TimeEntry e : timeIndexEntries(file)) {
            out.println("timestamp: " + timestamps.format(e.timestamp()) + " offset: " + e.offset());
        }
    }

    private void verifyOffsetIndex(Path file) throws IOException {
        List<IndexEntry> entries = offsetIndexEntries(file);
        Path logFile = siblingLog(file);
        LogSummary log = LogSummary.scan(logFile);
        int mismatches = 0;
        IndexEntry previous = null;
        for (int i = 0; i < entries.size(); i++) {
            IndexEntry e = entries.get(i);
            List<String> reasons = new ArrayList<>();
            if (previous != null && e.offset() <= previous.offset()) {
                reasons.add("offset is not above the previous entry's (" + previous.offset() + ")");
            }
            if (previous != null && e.position() <= previous.position()) {
                reasons.add("position is not above the previous entry's (" + previous.position() + ")");
            }
            BatchSummary batch = log.batchAt(e.position());
            if (batch == null) {
                reasons.add("no batch of " + logFile.getFileName() + " starts at position " + e.position()
                        + " (the log has " + log.validBytes() + " valid bytes)");
            } else if (batch.lastOffset() != e.offset()) {
                reasons.add("the batch at that position ends at offset " + batch.lastOffset() + ", not " + e.offset());
            }
            for (String reason : reasons) {
                mismatches++;
                out.println("Mismatch in " + file.getFileName() + " entry " + i + " (offset: " + e.offset()
                        + " position: " + e.position() + "): " + reason);
            }
            previous = e;
        }
        summarize(file, logFile, entries.size(), mismatches, log);
    }

    private void verifyTimeIndex(Path file) throws IOException {
        List<TimeEntry> entries = timeIndexEntries(file);
        Path logFile = siblingLog(file);
        LogSummary log = LogSummary.scan(logFile);
        long base = baseOffsetOf(file);
        int mismatches = 0;
        TimeEntry previous = null;
        for (int i = 0; i < entries.size(); i++) {
            TimeEntry e = entries.get(i);
            List<String> reasons = new ArrayList<>();
            if (previous != null && e.timestamp() <= previous.timestamp()) {
                reasons.add("timestamp is not above the previous entry's (" + timestamps.format(previous.timestamp()) + ")");
            }
            if (previous != null && e.offset() < previous.offset()) {
                reasons.add("offset is below the previous entry's (" + previous.offset() + ")");
            }
            if (log.batches().isEmpty()) {
                reasons.add("offset " + e.offset() + " is outside the segment: " + logFile.getFileName() + " holds no batch");
            } else if (e.offset() < base || e.offset() > log.lastOffset()) {
                reasons.add("offset " + e.offset() + " is outside the segment [" + base + ", " + log.lastOffset() + "]");
            } else {
                long max = log.maxTimestampUpTo(e.offset());
                if (e.timestamp() > max) {
                    reasons.add("no batch up to offset " + e.offset() + " has a timestamp that high (largest: " + timestamps.format(max) + ")");
                }
            }
            for (String reason : reasons) {
                mismatches++;
                out.println("Mismatch in " + file.getFileName() + " entry " + i + " (timestamp: " + timestamps.format(e.timestamp())
                        + " offset: " + e.offset() + "): " + reason);
            }
            previous = e;
        }
        summarize(file, logFile, entries.size(), mismatches, log);
    }

    private void summarize(Path index, Path logFile, int entries, int mismatches, LogSummary log) {
        problems += mismatches;
        if (log.problem() != null) {
            out.println("Note: " + logFile.getFileName() + " is corrupt at position " + log.validBytes() + " ("
                    + log.problem() + "); entries past it cannot match");
        }
        out.println((mismatches == 0 ? "Verified " : "Verification failed: ") + index.getFileName() + " against "
                + logFile.getFileName() + ": " + entries + " entries, " + mismatches + " mismatches");
    }

    private static Path siblingLog(Path index) {
        String name = index.getFileName().toString();
        String deleted = name.endsWith(LogFileNames.DELETED_SUFFIX) ? LogFileNames.DELETED_SUFFIX : "";
        String prefix = name.substring(0, name.indexOf('.'));
        Path log = index.resolveSibling(prefix + LogFileNames.LOG_SUFFIX + deleted);
        if (!Files.isReadable(log)) {
            throw new UnusableFileException("cannot verify " + index + ": its log " + log + " is missing or unreadable");
        }
        return log;
    }

    private static List<IndexEntry> offsetIndexEntries(Path file) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
        long base = baseOffsetOf(file);
        int used = usedEntries(bytes, OffsetIndex.ENTRY_SIZE);
        List<IndexEntry> entries = new ArrayList<>(used);
        for (int i = 0; i < used; i++) {
            int at = i * OffsetIndex.ENTRY_SIZE;
            entries.add(new IndexEntry(base + bytes.getInt(at), bytes.getInt(at + 4)));
        }
        return entries;
    }

    private static List<TimeEntry> timeIndexEntries(Path file) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
        long base = baseOffsetOf(file);
        int used = usedEntries(bytes, TimeIndex.ENTRY_SIZE);
        List<TimeEntry> entries = new ArrayList<>(used);
        for (int i = 0; i < used; i++) {
            int at = i * TimeIndex.ENTRY_SIZE;
            entries.add(new TimeEntry(bytes.getLong(at), base + bytes.getInt(at + 8)));
        }
        return entries;
    }

    /**
     * Entries up to the last one holding a non-zero byte: the all-zero tail is the unused part of a
     * preallocated (active or uncleanly closed) index. Neither index ever writes an all-zero entry,
     * since no entry is added for the batch at position 0.
     */
    private static int usedEntries(ByteBuffer bytes, int entrySize) {
        int whole = bytes.limit() / entrySize;
        for (int i = whole * entrySize - 1; i >= 0; i--) {
            if (bytes.get(i) != 0) {
                return i / entrySize + 1;
            }
        }
        return 0;
    }

    private void dumpTxnIndex(Path file) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
        int whole = bytes.limit() / TxnIndex.ENTRY_SIZE;
        for (int i = 0; i < whole; i++) {
            int at = i * TxnIndex.ENTRY_SIZE;
            short version = bytes.getShort(at);
            if (version != 0) {
                problems++;
                out.println("Corrupt entry " + i + " at position " + at + ": version " + version
                        + " is not 0. The dump of this file stops here.");
                return;
            }
            out.println("version: " + version + " producerId: " + bytes.getLong(at + 2) + " firstOffset: "
                    + bytes.getLong(at + 10) + " lastOffset: " + bytes.getLong(at + 18) + " lastStableOffset: "
                    + bytes.getLong(at + 26));
        }
    }

    // ---------------------------------------------------------------- helpers

    private static long baseOffsetOf(Path file) {
        String name = file.getFileName().toString();
        int dot = name.indexOf('.');
        String digits = dot < 0 ? name : name.substring(0, dot);
        if (digits.length() != 20 || !digits.chars().allMatch(Character::isDigit)) {
            return -1;
        }
        try {
            return LogFileNames.offsetFromFileName(name);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static String printable(byte[] bytes) {
        if (bytes == null) {
            return "null";
        }
        try {
            CharBuffer text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
            boolean plain = text.chars().noneMatch(c -> Character.isISOControl(c));
            if (plain) {
                return text.toString();
            }
        } catch (CharacterCodingException e) {
            // binary: fall through to hex
        }
        return "0x" + HexFormat.of().formatHex(bytes);
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return message == null ? e.getClass().getSimpleName() : message;
    }

    private enum FileKind {
        LOG(LogFileNames.LOG_SUFFIX),
        OFFSET_INDEX(LogFileNames.INDEX_SUFFIX),
        TIME_INDEX(LogFileNames.TIME_INDEX_SUFFIX),
        TXN_INDEX(LogFileNames.TXN_INDEX_SUFFIX);

        private final String suffix;

        FileKind(String suffix) {
            this.suffix = suffix;
        }

        static FileKind of(Path file) {
            String name = file.getFileName().toString();
            if (name.endsWith(LogFileNames.DELETED_SUFFIX)) {
                name = name.substring(0, name.length() - LogFileNames.DELETED_SUFFIX.length());
            }
            for (FileKind kind : values()) {
                if (name.endsWith(kind.suffix)) {
                    return kind;
                }
            }
            return null;
        }
    }

    private record IndexEntry(long offset, int position) {
    }

    private record TimeEntry(long timestamp, long offset) {
    }

    private record BatchSummary(int position, long baseOffset, long lastOffset, long maxTimestamp) {
    }

    /** The batch headers of a .log up to its end or its first bad bytes, for index verification. */
    private record LogSummary(List<BatchSummary> batches, int validBytes, String problem) {
        static LogSummary scan(Path file) throws IOException {
            List<BatchSummary> batches = new ArrayList<>();
            try (LogReader reader = new LogReader(file, Integer.MAX_VALUE, false)) {
                ByteBuffer header;
                while ((header = reader.next()) != null) {
                    long base = header.getLong(RecordBatch.BASE_OFFSET_OFFSET);
                    long last = base + header.getInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET);
                    batches.add(new BatchSummary(reader.position(), base, last,
                            header.getLong(RecordBatch.MAX_TIMESTAMP_OFFSET)));
                    reader.advance();
                }
                return new LogSummary(batches, reader.position(), reader.problem());
            }
        }

        BatchSummary batchAt(int position) {
            int lo = 0;
            int hi = batches.size() - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                int p = batches.get(mid).position();
                if (p == position) {
                    return batches.get(mid);
                } else if (p < position) {
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            return null;
        }

        long lastOffset() {
            return batches.get(batches.size() - 1).lastOffset();
        }

        /** Largest max timestamp among batches that start at or below {@code offset}. */
        long maxTimestampUpTo(long offset) {
            long max = RecordBatch.NO_TIMESTAMP;
            for (BatchSummary b : batches) {
                if (b.baseOffset() > offset) {
                    break;
                }
                max = Math.max(max, b.maxTimestamp());
            }
            return max;
        }
    }

    /**
     * Walks the batches of a .log through a read-only channel. {@link #next()} returns the batch at the
     * current position (whole, or only its fixed header) without moving; {@link #advance()} moves past
     * it. It stops at the end of the file, at bytes that cannot be a batch ({@link #problem()}), or
     * before a batch that would end past the byte limit ({@link #stoppedAtLimit()}).
     */
    private static final class LogReader implements AutoCloseable {
        private final FileChannel channel;
        private final long fileSize;
        private final long limit;
        private final boolean wholeBatches;
        private int position;
        private int currentSize;
        private String problem;
        private boolean stoppedAtLimit;

        LogReader(Path file, long limit, boolean wholeBatches) throws IOException {
            this.channel = FileChannel.open(file, StandardOpenOption.READ);
            this.fileSize = channel.size();
            this.limit = limit;
            this.wholeBatches = wholeBatches;
            if (fileSize > Integer.MAX_VALUE) {
                channel.close();
                throw new IOException("it is larger than 2 GiB (" + fileSize + " bytes), so not a segment file");
            }
        }

        ByteBuffer next() throws IOException {
            long remaining = fileSize - position;
            if (remaining == 0) {
                return null;
            }
            if (remaining < RecordBatch.HEADER_SIZE) {
                problem = remaining + " bytes at the end of the file are fewer than a batch header ("
                        + RecordBatch.HEADER_SIZE + " bytes)";
                return null;
            }
            ByteBuffer header = readAt(position, RecordBatch.HEADER_SIZE);
            int length = header.getInt(RecordBatch.LENGTH_OFFSET);
            if (length < MIN_BATCH_LENGTH) {
                problem = "the length field says " + length + " bytes, below the v2 minimum of " + MIN_BATCH_LENGTH;
                return null;
            }
            long size = (long) length + RecordBatch.LOG_OVERHEAD;
            if (size > remaining) {
                problem = "the batch of " + size + " bytes runs past the end of the file (" + remaining
                        + " bytes from here)";
                return null;
            }
            if (position + size > limit) {
                stoppedAtLimit = true;
                return null;
            }
            currentSize = (int) size;
            return wholeBatches ? readAt(position, currentSize) : header;
        }

        void advance() {
            position += currentSize;
            currentSize = 0;
        }

        private ByteBuffer readAt(long at, int size) throws IOException {
            ByteBuffer buffer = ByteBuffer.allocate(size);
            while (buffer.hasRemaining()) {
                if (channel.read(buffer, at + buffer.position()) < 0) {
                    throw new IOException("the file ended while reading " + size + " bytes at position " + at);
                }
            }
            return buffer.flip();
        }

        int position() {
            return position;
        }

        long fileSize() {
            return fileSize;
        }

        String problem() {
            return problem;
        }

        boolean stoppedAtLimit() {
            return stoppedAtLimit;
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /** A file that cannot be worked on for a reason found after the arguments were checked. */
    private static final class UnusableFileException extends RuntimeException {
        UnusableFileException(String message) {
            super(message);
        }
    }
}
