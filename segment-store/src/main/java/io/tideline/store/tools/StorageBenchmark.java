package io.tideline.store.tools;

import static io.tideline.store.tools.AppendReadComparison.SEED;
import static io.tideline.store.tools.AppendReadComparison.buildBatches;
import static io.tideline.store.tools.AppendReadComparison.openLog;
import static io.tideline.store.tools.AppendReadComparison.totalBytes;
import static io.tideline.store.tools.BenchmarkSupport.MB;
import static io.tideline.store.tools.BenchmarkSupport.duration;
import static io.tideline.store.tools.BenchmarkSupport.environment;
import static io.tideline.store.tools.BenchmarkSupport.fixed;
import static io.tideline.store.tools.BenchmarkSupport.printResult;
import static io.tideline.store.tools.BenchmarkSupport.rate;
import static io.tideline.store.tools.BenchmarkSupport.settle;

import io.tideline.common.io.FileUtils;
import io.tideline.common.time.Time;
import io.tideline.store.config.LogConfig;
import io.tideline.store.log.Log;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.retention.SegmentDeleter;
import io.tideline.store.segment.LogFileNames;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tideline bench-storage}: measures the store against the file system it sits on, in one run.
 *
 * <ul>
 *   <li>append, per shape: N records of S random (fixed-seed, incompressible) bytes in batches of B
 *       into segments of X bytes, built before the clock starts, through {@link Log#appendAsLeader};
 *       next to it a plain {@link FileChannel} writing the same serialized batches, one write per
 *       batch. Both are timed twice: until the last write returns (page cache) and until one fsync at
 *       the end returns (on disk). The ratios append/raw are the figures that matter: the store's
 *       overhead over the bytes it has to write anyway, with and without the disk in the measurement.
 *       By default two shapes run: {@link #BULK} (large batches, no roll) and {@link #PRODUCER} (what
 *       a producer sends by default, a roll every 16 MiB); the shape options run one shape of their
 *       own instead.</li>
 *   <li>sequential read of the whole log with {@link Log#read} (1 MiB per read, copied into memory, batch
 *       headers walked to find the next offset) next to a plain sequential read of the raw file.</li>
 *   <li>one retention pass over a log of 10,000 one-batch segments: a pass that deletes nothing, then one
 *       that finds all closed segments expired (the mock clock moved past retention.ms), then the unlink
 *       after file.delete.delay.ms.</li>
 *   <li>recovery: 1 GiB written through a log, the process "crashes" ({@link Log#abandon()}), and the
 *       reopen with no clean-shutdown marker and recovery point 0 validates every batch.</li>
 * </ul>
 *
 * Output: a table for people, then one {@code RESULT bench-storage key=value ...} line for scripts.
 * Bad arguments or an unusable directory: one line on stderr, exit code 2.
 */
@Command(name = "bench-storage", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Measures append, sequential read, retention and recovery of the segment store, "
                + "each next to a plain FileChannel doing the same I/O where there is one. Append and read run for "
                + "two shapes: bulk (2,000,000 records of 100 bytes in batches of 100, 1 GiB segments) and producer "
                + "(400,000 records of 1 KiB in batches of 16, 16 MiB segments), unless the shape options give one.")
public final class StorageBenchmark extends BenchmarkCommand {
    static final String SUMMARY_PREFIX = "RESULT bench-storage";
    private static final long RETENTION_MS = 60 * 60 * 1000L;
    private static final long FILE_DELETE_DELAY_MS = 60_000L;
    /** Batches the recovery log cycles through (it appends them again and again up to --recovery-bytes). */
    private static final int RECOVERY_BATCHES = 1000;

    /** 100-byte records in batches of 100 into Kafka's default 1 GiB segments: no roll during the run. */
    static final Shape BULK = new Shape("bulk", 2_000_000, 100, 100, LogConfig.SEGMENT_BYTES_DEFAULT);
    /**
     * What a producer sends with its defaults (1 KiB records, batch.size 16 KiB: 16 records a batch)
     * into 16 MiB segments: a roll about every 1,000 batches.
     */
    static final Shape PRODUCER = new Shape("producer", 400_000, 1024, 16, 16 * 1024 * 1024);

    @Option(names = "--dir", required = true, paramLabel = "D",
            description = "Directory to work in; created if missing, must be empty. Removed at the end unless --keep.")
    Path dir;

    @Option(names = "--records", paramLabel = "N",
            description = "Records to append. Any of the four shape options runs that one shape (named custom) instead "
                    + "of the two default shapes; an option not given takes the bulk shape's value (2000000).")
    Integer records;

    @Option(names = "--record-size", paramLabel = "S", description = "Value bytes per record (bulk: 100, producer: 1024).")
    Integer recordSize;

    @Option(names = "--batch-size", paramLabel = "B", description = "Records per batch (bulk: 100, producer: 16).")
    Integer batchSize;

    @Option(names = "--segment-bytes", paramLabel = "X",
            description = "segment.bytes of the append logs (bulk: 1073741824, producer: 16777216).")
    Integer segmentBytes;

    @Option(names = "--recovery-bytes", paramLabel = "BYTES", defaultValue = "1073741824",
            description = "Bytes written before the simulated crash (default ${DEFAULT-VALUE}, 1 GiB).")
    long recoveryBytes;


    @Option(names = "--keep", description = "Keep the directory for inspection.")
    boolean keep;

    @Option(names = "--rounds", defaultValue = "3",
            description = "Alternating rounds of append/raw write and read/raw read; the best of each side is reported (default 3).")
    int rounds;

    @Option(names = "--retention-segments", hidden = true, defaultValue = "10000")
    int retentionSegments;

    @Option(names = "--warmup-records", hidden = true, defaultValue = "200000",
            description = "Records of the untimed warm-up round of each shape (capped at its records).")
    int warmupRecords;

    @Option(names = "--scale", hidden = true, defaultValue = "1",
            description = "Multiplies the records of the default shapes (tests run them small).")
    double scale;

    /** One workload: N records of S bytes in batches of B, appended to segments of X bytes. */
    record Shape(String name, int records, int recordSize, int batchSize, int segmentBytes) {
        String describe() {
            return String.format(Locale.ROOT, "%,d records of %,d bytes in batches of %d, segment.bytes %,d",
                    records, recordSize, batchSize, segmentBytes);
        }

        Shape scaled(double factor) {
            return new Shape(name, (int) Math.max(1, Math.round(records * factor)), recordSize, batchSize, segmentBytes);
        }
    }

    /** The shapes this run measures, in order: the two defaults, or the one the shape options describe. */
    List<Shape> shapes() {
        if (records == null && recordSize == null && batchSize == null && segmentBytes == null) {
            return List.of(BULK.scaled(scale), PRODUCER.scaled(scale));
        }
        return List.of(new Shape("custom", records != null ? records : BULK.records(),
                recordSize != null ? recordSize : BULK.recordSize(), batchSize != null ? batchSize : BULK.batchSize(),
                segmentBytes != null ? segmentBytes : BULK.segmentBytes()));
    }

    private StorageBenchmark() {
        super("bench-storage");
    }

    public static void main(String[] args) {
        runAndExit(new StorageBenchmark(), args);
    }

    /** Parses, runs and reports; returns the exit code (0 ok, 1 the run failed, 2 bad arguments or directory). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return new StorageBenchmark().launch(args, out, err);
    }

    @Override
    protected Path dir() {
        return dir;
    }

    @Override
    protected boolean keep() {
        return keep;
    }

    @Override
    protected String validate() {
        if (records != null && records < 1) {
            return "--records must be at least 1, got " + records;
        }
        if (recordSize != null && recordSize < 0) {
            return "--record-size must not be negative, got " + recordSize;
        }
        if (batchSize != null && batchSize < 1) {
            return "--batch-size must be at least 1, got " + batchSize;
        }
        if (segmentBytes != null && segmentBytes < 1024) {
            return "--segment-bytes must be at least 1024, got " + segmentBytes;
        }
        if (!(scale > 0)) {
            return "--scale must be positive, got " + scale;
        }
        for (Shape shape : shapes()) {
            // An upper bound on one batch: header plus, per record, the value and at most 21 bytes of framing.
            long batchBytes = RecordBatch.RECORDS_OFFSET
                    + (long) Math.min(shape.batchSize(), shape.records()) * (shape.recordSize() + 21L);
            if (batchBytes > shape.segmentBytes()) {
                return "a batch of " + shape.batchSize() + " records of " + shape.recordSize()
                        + " bytes does not fit in --segment-bytes " + shape.segmentBytes();
            }
        }
        if (recoveryBytes < 1) {
            return "--recovery-bytes must be at least 1, got " + recoveryBytes;
        }
        if (retentionSegments < 2) {
            return "--retention-segments must be at least 2, got " + retentionSegments;
        }
        if (rounds < 1) {
            return "--rounds must be at least 1, got " + rounds;
        }
        if (warmupRecords < 0) {
            return "--warmup-records must not be negative, got " + warmupRecords;
        }
        return null;
    }

    // ---------------------------------------------------------------- the run

    @Override
    protected void execute(PrintStream out) throws IOException, InterruptedException {
        long timestamp = System.currentTimeMillis();
        List<Shape> shapes = shapes();
        out.printf(Locale.ROOT, "bench-storage: %s, dir %s%n", shapes.size() == 1 ? "1 shape" : shapes.size() + " shapes",
                dir.toAbsolutePath());
        out.println("writes timed twice: into the page cache, and until one fsync at the end returns (on disk); "
                + environment());
        out.println("append/read figures: best of " + rounds + " alternating rounds of store and raw file; "
                + "the store flushes each segment closed by a roll on a scheduler thread, as a broker does");
        out.flush();

        Map<String, String> summary = new LinkedHashMap<>();
        summary.put("shapes", String.join(",", shapes.stream().map(Shape::name).toList()));
        Map<String, double[]> ratios = new LinkedHashMap<>();
        for (Shape shape : shapes) {
            ratios.put(shape.name(), appendAndRead(out, shape, summary, timestamp));
        }

        out.println();
        out.printf(Locale.ROOT, "%-44s %14s %10s %12s%n", "measurement", "records/s", "MB/s", "time");
        retention(out, summary, timestamp);
        recovery(out, summary, shapes.get(0), timestamp);

        out.println();
        out.printf(Locale.ROOT, "%-44s %14s %10s%n", "append / raw write", "page cache", "on disk");
        ratios.forEach((name, r) -> out.printf(Locale.ROOT, "%-44s %14s %10s%n", name,
                String.format(Locale.ROOT, "%.2fx", r[0]), String.format(Locale.ROOT, "%.2fx", r[1])));

        printResult(out, SUMMARY_PREFIX, summary);
    }

    /**
     * The append and read comparison of one shape, in {@code dir/<shape>}: a warm-up, then the timed
     * rounds; prints the shape's table, adds its figures to {@code summary} under {@code <shape>_} and
     * returns the append/raw ratios {page cache, on disk}.
     */
    private double[] appendAndRead(PrintStream out, Shape shape, Map<String, String> summary, long timestamp)
            throws IOException, InterruptedException {
        AppendReadComparison comparison = new AppendReadComparison(rounds);
        Path base = dir.resolve(shape.name());
        int warmup = Math.min(warmupRecords, shape.records());
        if (warmup > 0) {
            // JIT warm-up: the same code paths on fewer bytes, timings thrown away.
            List<MemoryRecords> warmBatches = buildBatches(shape, warmup, timestamp);
            Path warmDir = base.resolve("warmup");
            comparison.compare(warmDir, shape, warmBatches, warmup, totalBytes(warmBatches));
            FileUtils.deleteRecursively(warmDir);
        }

        List<MemoryRecords> batches = buildBatches(shape, shape.records(), timestamp);
        long bytes = totalBytes(batches);
        int records = shape.records();
        String p = shape.name() + "_";
        summary.put(p + "records", Integer.toString(records));
        summary.put(p + "record_size", Integer.toString(shape.recordSize()));
        summary.put(p + "batch_size", Integer.toString(shape.batchSize()));
        summary.put(p + "segment_bytes", Integer.toString(shape.segmentBytes()));
        summary.put(p + "bytes", Long.toString(bytes));
        out.println();
        out.printf(Locale.ROOT, "shape %s: %s (%,d batches, %.1f MB)%n", shape.name(), shape.describe(), batches.size(),
                bytes / MB);
        out.printf(Locale.ROOT, "%-44s %14s %10s %12s%n", "measurement", "records/s", "MB/s", "time");
        out.flush();

        AppendReadComparison.Comparison best = comparison.compare(base, shape, batches, records, bytes);
        row(out, "append (Log.appendAsLeader, " + best.segments() + " segment(s))", records, bytes,
                best.append().pageCacheNs());
        row(out, "raw write (FileChannel, 1 write per batch)", records, bytes, best.rawWrite().pageCacheNs());
        double appendToRaw = (double) best.rawWrite().pageCacheNs() / best.append().pageCacheNs();
        ratioRow(out, "append / raw write (page cache)", appendToRaw);
        row(out, "append + fsync at the end (on disk)", records, bytes, best.append().durableNs());
        row(out, "raw write + fsync at the end (on disk)", records, bytes, best.rawWrite().durableNs());
        double durableToRaw = (double) best.rawWrite().durableNs() / best.append().durableNs();
        ratioRow(out, "append / raw write (on disk)", durableToRaw);
        row(out, "sequential read (Log.read, 1 MiB per read)", records, bytes, best.readNs());
        row(out, "raw read (FileChannel, 1 MiB per read)", -1, bytes, best.rawReadNs());
        double readToRaw = (double) best.rawReadNs() / best.readNs();
        ratioRow(out, "read / raw read", readToRaw);
        summary.put(p + "segments", Integer.toString(best.segments()));
        summary.put(p + "append_records_per_s", rate(records, best.append().pageCacheNs()));
        summary.put(p + "append_mb_per_s", rate(bytes / MB, best.append().pageCacheNs()));
        summary.put(p + "raw_write_mb_per_s", rate(bytes / MB, best.rawWrite().pageCacheNs()));
        summary.put(p + "append_to_raw", fixed(appendToRaw, 3));
        summary.put(p + "append_durable_mb_per_s", rate(bytes / MB, best.append().durableNs()));
        summary.put(p + "raw_write_durable_mb_per_s", rate(bytes / MB, best.rawWrite().durableNs()));
        summary.put(p + "append_to_raw_durable", fixed(durableToRaw, 3));
        summary.put(p + "read_records_per_s", rate(records, best.readNs()));
        summary.put(p + "read_mb_per_s", rate(bytes / MB, best.readNs()));
        summary.put(p + "raw_read_mb_per_s", rate(bytes / MB, best.rawReadNs()));
        summary.put(p + "read_to_raw", fixed(readToRaw, 3));
        return new double[] {appendToRaw, durableToRaw};
    }

    // ---------------------------------------------------------------- retention

    private void retention(PrintStream out, Map<String, String> summary, long timestamp) throws IOException {
        Path logDir = dir.resolve("retention-0");
        writeOneBatchSegments(logDir, retentionSegments, timestamp);
        SteppedClock time = new SteppedClock(timestamp + 1000);
        SteppedClock scheduler = time;
        LogConfig config = LogConfig.fromMap(Map.of(
                LogConfig.SEGMENT_BYTES_CONFIG, 1024,
                LogConfig.RETENTION_MS_CONFIG, RETENTION_MS,
                LogConfig.FILE_DELETE_DELAY_MS_CONFIG, FILE_DELETE_DELAY_MS));
        long openStart = System.nanoTime();
        Log log = Log.open(logDir, config, time, scheduler, new Random(SEED), new SegmentDeleter(scheduler), 0L,
                retentionSegments, -1L, true);
        long openNs = System.nanoTime() - openStart;
        try {
            if (log.numberOfSegments() != retentionSegments) {
                throw new IllegalStateException("the retention log has " + log.numberOfSegments() + " segments, expected "
                        + retentionSegments);
            }
            long noopStart = System.nanoTime();
            int keptAll = log.deleteOldSegments();
            long noopNs = System.nanoTime() - noopStart;
            if (keptAll != 0) {
                throw new IllegalStateException("a pass inside retention.ms deleted " + keptAll + " segments");
            }
            time.advance(RETENTION_MS + 1);
            long passStart = System.nanoTime();
            int deleted = log.deleteOldSegments();
            long passNs = System.nanoTime() - passStart;
            if (deleted != retentionSegments - 1) {
                throw new IllegalStateException("the expired pass deleted " + deleted + " segments, expected "
                        + (retentionSegments - 1));
            }
            long unlinkStart = System.nanoTime();
            time.advance(FILE_DELETE_DELAY_MS); // runs the delayed unlink on this thread
            long unlinkNs = System.nanoTime() - unlinkStart;

            String n = String.format(Locale.ROOT, "%,d", retentionSegments);
            msRow(out, "open a log of " + n + " segments", openNs);
            msRow(out, "retention pass, " + n + " segments, deletes none", noopNs);
            msRow(out, "retention pass, " + n + " segments, deletes " + String.format(Locale.ROOT, "%,d", deleted), passNs);
            msRow(out, "unlink of those after file.delete.delay.ms", unlinkNs);
            summary.put("retention_segments", Integer.toString(retentionSegments));
            summary.put("retention_open_ms", fixed(openNs / 1e6, 3));
            summary.put("retention_noop_pass_ms", fixed(noopNs / 1e6, 3));
            summary.put("retention_deleted", Integer.toString(deleted));
            summary.put("retention_delete_pass_ms", fixed(passNs / 1e6, 3));
            summary.put("retention_unlink_ms", fixed(unlinkNs / 1e6, 3));
        } finally {
            log.close();
        }
    }

    /**
     * Lays out {@code count} closed segments of one small batch each, as a log rolled at every batch
     * would have left them: the batch, an empty offset index (sparse: nothing under
     * index.interval.bytes) and a time index holding the final entry written on roll. Written directly
     * because building them through a log would fsync each one after its roll, which costs about a
     * minute on a shared disk and is not what is measured here.
     */
    private static void writeOneBatchSegments(Path logDir, int count, long timestamp) throws IOException {
        Files.createDirectories(logDir);
        RecordBatch batch = new RecordBatchBuilder(0L).append(timestamp, null, new byte[100]).build();
        ByteBuffer timeEntry = ByteBuffer.allocate(12).putLong(0, timestamp).putInt(8, 0);
        for (long base = 0; base < count; base++) {
            batch.setBaseOffset(base); // not covered by the CRC
            writeFile(LogFileNames.logFile(logDir, base), batch.buffer());
            writeFile(LogFileNames.offsetIndexFile(logDir, base), ByteBuffer.allocate(0));
            writeFile(LogFileNames.timeIndexFile(logDir, base), timeEntry.duplicate());
        }
    }

    private static void writeFile(Path file, ByteBuffer content) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            while (content.hasRemaining()) {
                channel.write(content);
            }
        }
    }

    // ---------------------------------------------------------------- recovery

    /**
     * Recovery of {@code --recovery-bytes} written in {@code shape}'s batches and segments (the first
     * shape of the run): a thousand batches of it, appended again and again.
     */
    private void recovery(PrintStream out, Map<String, String> summary, Shape shape, long timestamp) throws IOException {
        Path logDir = dir.resolve("recovery-0");
        List<MemoryRecords> batches = buildBatches(shape, Math.min(shape.records(), RECOVERY_BATCHES * shape.batchSize()),
                timestamp);
        long written = 0;
        long records = 0;
        long endOffset;
        try (Log log = openLog(logDir, shape.segmentBytes(), Time.SYSTEM, new SteppedClock())) {
            for (int i = 0; written < recoveryBytes; i++) {
                MemoryRecords batch = batches.get(i % batches.size());
                records += log.appendAsLeader(batch, 0).numRecords();
                written += batch.sizeInBytes();
            }
            // On disk before the "crash", so the timed reopen measures validation, not the write-back of
            // dirty pages that the recovery's own flush would otherwise pay for.
            log.flush();
            endOffset = log.logEndOffset();
            log.abandon();
        }
        LogConfig config = LogConfig.fromMap(Map.of(
                LogConfig.SEGMENT_BYTES_CONFIG, shape.segmentBytes(),
                LogConfig.MAX_MESSAGE_BYTES_CONFIG, shape.segmentBytes(),
                LogConfig.RETENTION_MS_CONFIG, -1L));
        settle();
        long start = System.nanoTime();
        SteppedClock recoveryScheduler = new SteppedClock();
        Log recovered = Log.open(logDir, config, Time.SYSTEM, recoveryScheduler, new Random(SEED),
                new SegmentDeleter(recoveryScheduler), 0L, 0L, -1L, false);
        long recoveryNs = System.nanoTime() - start;
        try {
            if (recovered.logEndOffset() != endOffset || recovered.recoveredSegmentsOnLoad() != recovered.numberOfSegments()) {
                throw new IllegalStateException("recovery ended at offset " + recovered.logEndOffset() + " (expected "
                        + endOffset + ") after validating " + recovered.recoveredSegmentsOnLoad() + " of "
                        + recovered.numberOfSegments() + " segments");
            }
            String label = String.format(Locale.ROOT, "recovery of %.1f MB after a crash (%d segment(s), shape %s)", written / MB,
                    recovered.numberOfSegments(), shape.name());
            row(out, label, records, written, recoveryNs);
            summary.put("recovery_bytes", Long.toString(written));
            summary.put("recovery_segments", Integer.toString(recovered.numberOfSegments()));
            summary.put("recovery_s", fixed(recoveryNs / 1e9, 3));
            summary.put("recovery_mb_per_s", rate(written / MB, recoveryNs));
        } finally {
            recovered.close();
        }
    }

    // ---------------------------------------------------------------- output

    private static void row(PrintStream out, String label, long records, long bytes, long nanos) {
        String recordsPerSecond = records < 0 ? "-" : String.format(Locale.ROOT, "%,.0f", records / (nanos / 1e9));
        out.printf(Locale.ROOT, "%-44s %14s %10.1f %12s%n", label, recordsPerSecond, bytes / MB / (nanos / 1e9), duration(nanos));
        out.flush();
    }

    private static void ratioRow(PrintStream out, String label, double ratio) {
        out.printf(Locale.ROOT, "%-44s %25s%n", label, String.format(Locale.ROOT, "%.2fx", ratio));
        out.flush();
    }

    private static void msRow(PrintStream out, String label, long nanos) {
        out.printf(Locale.ROOT, "%-44s %14s %10s %12s%n", label, "", "", duration(nanos));
        out.flush();
    }
}
