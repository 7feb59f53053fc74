package io.tideline.store.tools;

import static io.tideline.store.tools.BenchmarkSupport.cleanUp;
import static io.tideline.store.tools.BenchmarkSupport.describe;
import static io.tideline.store.tools.BenchmarkSupport.fixed;
import static io.tideline.store.tools.BenchmarkSupport.prepareDirectory;
import static io.tideline.store.tools.BenchmarkSupport.quietLogging;

import io.tideline.common.time.Time;
import io.tideline.store.cleaner.Cleaner;
import io.tideline.store.cleaner.LogToClean;
import io.tideline.store.cleaner.OffsetMap;
import io.tideline.store.cleaner.Throttler;
import io.tideline.store.config.LogConfig;
import io.tideline.store.log.Log;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.retention.SegmentDeleter;
import io.tideline.store.segment.LogSegment;
import io.tideline.store.segment.SegmentSwap;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Measures one cleaning of a compacted log beside a raw copy of the same segment bytes in the same run
 * (docs/performance.md "Log cleaner"): a log of {@code --records} records over {@code --keys} keys in
 * batches of 100 is built and rolled, its closed segments are copied with {@link FileChannel#transferTo}
 * (the floor any rewrite of them pays), and then cleaned once with a dedupe map of {@code --dedupe-bytes}.
 *
 * <p>Output: the two rates in MB/s of segment bytes read, the map size, the recopy ratio, then one
 * {@code RESULT bench-cleaner key=value ...} line. Bad arguments: one line on stderr, exit code 2.
 */
@Command(name = "bench-cleaner", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Builds a compacted log, copies its segments raw and cleans it once; reports MB/s of both.")
public final class CleanerBenchmark {
    static final String SUMMARY_PREFIX = "RESULT bench-cleaner";

    @Option(names = "--dir", required = true, paramLabel = "D",
            description = "Directory to work in; created if missing, must be empty. Removed at the end.")
    Path dir;

    @Option(names = "--records", defaultValue = "1000000", paramLabel = "N", description = "Records written.")
    int records;

    @Option(names = "--keys", defaultValue = "100000", paramLabel = "K", description = "Distinct keys.")
    int keys;

    @Option(names = "--value-bytes", defaultValue = "200", paramLabel = "V", description = "Value bytes per record.")
    int valueBytes;

    @Option(names = "--dedupe-bytes", defaultValue = "134217728", paramLabel = "B",
            description = "Dedupe map bytes (Kafka's log.cleaner.dedupe.buffer.size default, one thread).")
    int dedupeBytes;

    public static void main(String[] args) {
        quietLogging();
        System.exit(run(args, System.out, System.err));
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        CleanerBenchmark bench = new CleanerBenchmark();
        CommandLine cli = new CommandLine(bench);
        try {
            cli.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            err.println("bench-cleaner: " + e.getMessage());
            return 2;
        }
        if (cli.isUsageHelpRequested()) {
            cli.usage(out);
            return 0;
        }
        if (bench.records < 1 || bench.keys < 1 || bench.valueBytes < 0 || bench.dedupeBytes < OffsetMap.ENTRY_SIZE) {
            err.println("bench-cleaner: --records and --keys must be at least 1, --value-bytes at least 0, "
                    + "--dedupe-bytes at least " + OffsetMap.ENTRY_SIZE);
            return 2;
        }
        boolean created;
        try {
            created = prepareDirectory(bench.dir);
        } catch (IOException | RuntimeException e) {
            err.println("bench-cleaner: cannot use --dir " + bench.dir + ": " + describe(e));
            return 2;
        }
        try {
            bench.execute(out);
            return 0;
        } catch (IOException | RuntimeException e) {
            err.println("bench-cleaner: failed: " + describe(e));
            return 1;
        } finally {
            try {
                cleanUp(bench.dir, created);
            } catch (IOException e) {
                err.println("bench-cleaner: could not remove " + bench.dir + ": " + describe(e));
            }
        }
    }

    private void execute(PrintStream out) throws IOException {
        SteppedClock clock = new SteppedClock();
        SteppedClock scheduler = clock;
        LogConfig config = LogConfig.fromMap(Map.of("cleanup.policy", "compact", "segment.bytes", 64 * 1024 * 1024,
                "file.delete.delay.ms", 0L));
        try (Log log = Log.open(dir.resolve("bench-0"), config, clock, scheduler, new Random(1),
                new SegmentDeleter(scheduler), 0L, 0L, -1L, true)) {
            Random random = new Random(42);
            byte[] value = new byte[valueBytes];
            for (int written = 0; written < records; ) {
                RecordBatchBuilder builder = new RecordBatchBuilder(0);
                for (int i = 0; i < 100 && written < records; i++, written++) {
                    random.nextBytes(value);
                    builder.append(clock.milliseconds(), ("key-" + random.nextInt(keys)).getBytes(), value);
                }
                log.appendAsLeader(builder.buildRecords(), 0);
            }
            log.roll(log.logEndOffset());
            log.flush();
            long segmentBytes = 0;
            for (LogSegment segment : log.cleanerView().closedSegments()) {
                segmentBytes += segment.size();
            }

            long copyStart = System.nanoTime();
            Path copy = dir.resolve("raw-copy");
            for (LogSegment segment : log.cleanerView().closedSegments()) {
                try (FileChannel in = FileChannel.open(segment.log().file(), StandardOpenOption.READ);
                     FileChannel outChannel = FileChannel.open(copy, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                             StandardOpenOption.TRUNCATE_EXISTING)) {
                    long position = 0;
                    while (position < in.size()) {
                        position += in.transferTo(position, in.size() - position, outChannel);
                    }
                    outChannel.force(true);
                }
            }
            long copyNanos = System.nanoTime() - copyStart;
            Files.deleteIfExists(copy);

            Cleaner cleaner = new Cleaner(new OffsetMap(dedupeBytes), 0.9, 1024 * 1024,
                    new Throttler(Double.MAX_VALUE, 300, Time.SYSTEM), Time.SYSTEM, SegmentSwap.StepListener.NONE);
            long cleanStart = System.nanoTime();
            Cleaner.Result result = cleaner.clean(LogToClean.evaluate(log, log.cleanerView(), OptionalLong.empty(),
                    clock.milliseconds()), () -> { });
            long cleanNanos = System.nanoTime() - cleanStart;

            double mb = segmentBytes / 1e6;
            double copyRate = mb / (copyNanos / 1e9);
            double cleanRate = result.stats().bytesRead() / 1e6 / (cleanNanos / 1e9);
            out.printf("log: %,d records over %,d keys, %,.1f MB in closed segments%n", records, keys, mb);
            out.printf("raw copy (FileChannel.transferTo + fsync): %s MB/s%n", fixed(copyRate, 1));
            out.printf("cleaning (map + rewrite + swap): %s MB/s of segment bytes read, %s s, map %,d bytes "
                            + "(%,d slots, %s%% full), recopy %s%%%n", fixed(cleanRate, 1), fixed(cleanNanos / 1e9, 2),
                    dedupeBytes, dedupeBytes / OffsetMap.ENTRY_SIZE, fixed(100 * result.stats().bufferUtilization(), 1),
                    fixed(100 * result.stats().recopyRatio(), 1));
            out.printf("%s records=%d keys=%d segment_mb=%s copy_mb_s=%s clean_mb_s=%s dedupe_bytes=%d recopy_pct=%s%n",
                    SUMMARY_PREFIX, records, keys, fixed(mb, 1), fixed(copyRate, 1), fixed(cleanRate, 1), dedupeBytes,
                    fixed(100 * result.stats().recopyRatio(), 1));
        }
    }
}
