package io.tideline.store.tools;

import static io.tideline.store.tools.BenchmarkSupport.cleanUp;
import static io.tideline.store.tools.BenchmarkSupport.describe;
import static io.tideline.store.tools.BenchmarkSupport.fixed;
import static io.tideline.store.tools.BenchmarkSupport.prepareDirectory;
import static io.tideline.store.tools.BenchmarkSupport.quietLogging;

import io.tideline.store.config.LogConfig;
import io.tideline.store.log.Log;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.retention.SegmentDeleter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tideline bench-flush}: what flush.messages costs, in one run on one disk. The same one-record
 * batches (a producer that sends each record alone, the case where an fsync per append costs most) are
 * appended through {@link Log#appendAsLeader} under each flush.messages value, in rounds that alternate
 * the settings so that a change in the disk's speed during the run hits each alike; the median round of
 * each is reported. The figures are the ones docs/storage.md (Durability) quotes.
 *
 * Output: one line per setting, then one {@code RESULT bench-flush key=value ...} line for scripts. Bad
 * arguments or an unusable directory: one line on stderr, exit code 2.
 */
@Command(name = "bench-flush", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Appends the same one-record batches under each flush.messages value and reports records/s "
                + "for each, median of the rounds.")
public final class FlushBenchmark {
    static final String SUMMARY_PREFIX = "RESULT bench-flush";

    @Option(names = "--dir", required = true, paramLabel = "D",
            description = "Directory to work in; created if missing, must be empty. Removed at the end.")
    Path dir;

    @Option(names = "--records", defaultValue = "5000", paramLabel = "N", description = "Records per round and setting.")
    int records;

    @Option(names = "--record-size", defaultValue = "1024", paramLabel = "S", description = "Value bytes per record.")
    int recordSize;

    @Option(names = "--flush-messages", defaultValue = "9223372036854775807,100,1", split = ",", paramLabel = "M",
            description = "flush.messages values to compare (default: Kafka's default, 100, 1).")
    long[] flushMessages;

    @Option(names = "--rounds", defaultValue = "3", description = "Rounds; each setting's median round is reported.")
    int rounds;

    public static void main(String[] args) {
        quietLogging();
        System.exit(run(args, System.out, System.err));
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        FlushBenchmark bench = new FlushBenchmark();
        CommandLine cli = new CommandLine(bench);
        try {
            cli.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            err.println("bench-flush: " + e.getMessage());
            return 2;
        }
        if (cli.isUsageHelpRequested()) {
            cli.usage(out);
            return 0;
        }
        if (bench.records < 1 || bench.recordSize < 0 || bench.rounds < 1
                || Arrays.stream(bench.flushMessages).anyMatch(m -> m < 1)) {
            err.println("bench-flush: --records and --rounds must be at least 1, --record-size at least 0, "
                    + "every --flush-messages at least 1");
            return 2;
        }
        boolean created;
        try {
            created = prepareDirectory(bench.dir);
        } catch (IOException | RuntimeException e) {
            err.println("bench-flush: cannot use --dir " + bench.dir + ": " + describe(e));
            return 2;
        }
        try {
            bench.execute(out);
            return 0;
        } catch (IOException | RuntimeException e) {
            err.println("bench-flush: failed: " + describe(e));
            return 1;
        } finally {
            try {
                cleanUp(bench.dir, created);
            } catch (IOException e) {
                err.println("bench-flush: could not remove " + bench.dir + ": " + describe(e));
            }
        }
    }

    private void execute(PrintStream out) throws IOException {
        List<MemoryRecords> batches = new ArrayList<>(records);
        Random random = new Random(42);
        for (int i = 0; i < records; i++) {
            byte[] value = new byte[recordSize];
            random.nextBytes(value);
            batches.add(new RecordBatchBuilder(0).append(0L, null, value).buildRecords());
        }
        double[][] rates = new double[flushMessages.length][rounds];
        for (int round = 0; round < rounds; round++) {
            for (int s = 0; s < flushMessages.length; s++) {
                rates[s][round] = appendAll(dir.resolve("r" + round + "-" + s + "-0"), flushMessages[s], batches);
            }
        }
        Map<String, String> summary = new LinkedHashMap<>();
        summary.put("records", String.valueOf(records));
        summary.put("record_size", String.valueOf(recordSize));
        for (int s = 0; s < flushMessages.length; s++) {
            double[] sorted = rates[s].clone();
            Arrays.sort(sorted);
            double median = sorted[sorted.length / 2];
            String name = flushMessages[s] == Long.MAX_VALUE ? "default" : String.valueOf(flushMessages[s]);
            out.printf("flush.messages=%-8s %12s records/s (median of %d rounds)%n", name, fixed(median, 0), rounds);
            summary.put("records_per_s_flush_" + name, fixed(median, 0));
        }
        StringBuilder line = new StringBuilder(SUMMARY_PREFIX);
        summary.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
        out.println(line);
    }

    /** Appends every batch to a new log under {@code flushMessagesValue}; returns records per second. */
    private static double appendAll(Path logDir, long flushMessagesValue, List<MemoryRecords> batches) throws IOException {
        SteppedClock time = new SteppedClock();
        SteppedClock scheduler = time;
        LogConfig config = LogConfig.fromMap(Map.of(LogConfig.FLUSH_MESSAGES_CONFIG, flushMessagesValue,
                LogConfig.RETENTION_MS_CONFIG, -1L));
        Log log = Log.open(logDir, config, time, scheduler, new Random(42), new SegmentDeleter(scheduler), 0L, 0L, -1L, true);
        try {
            long start = System.nanoTime();
            for (MemoryRecords batch : batches) {
                log.appendAsLeader(batch, 0);
            }
            long elapsed = System.nanoTime() - start;
            return batches.size() / (elapsed / 1e9);
        } finally {
            log.close();
        }
    }
}
