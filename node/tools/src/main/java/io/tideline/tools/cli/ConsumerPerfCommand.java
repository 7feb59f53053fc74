package io.tideline.tools.cli;

import io.tideline.client.ChannelFactory;
import io.tideline.client.CommonClientConfigs;
import io.tideline.client.ConsumerConfig;
import io.tideline.client.ConsumerRecord;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineConsumer;
import io.tideline.common.TopicPartition;
import io.tideline.common.time.Time;
import java.io.PrintStream;
import java.nio.file.Path;
import java.text.SimpleDateFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code tideline perf consume}: Kafka 4.4's {@code ConsumerPerformance} (kafka-consumer-perf-test) for
 * Tideline. Reads {@code --num-records} records of {@code --topic} (or of every topic matching
 * {@code --include}) from the log start offset ({@code --from-latest}: from the high watermark) and
 * prints Kafka's CSV header and row:
 *
 * <pre>
 * start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
 * 2026-12-01 08:46:13:471, 2026-12-01 08:46:14:740, 48.8281, 38.4776, 50000, 39401.1032, 0, 1269, 38.4776, 39401.1032
 * </pre>
 *
 * or, with {@code --show-detailed-stats}, one row per {@code --reporting-interval} (and then no total
 * row, as in Kafka). MB is 2^20 bytes of keys and values; times run from just before the partitions
 * are assigned to the last poll.
 *
 * <p>Tideline has no consumer groups: every partition is assigned, {@code --group} is accepted and has no
 * effect, and {@code rebalance.time.ms} is always 0, so {@code fetch.time.ms} is the whole run (Kafka's
 * includes the group join in {@code MB.sec} but not in {@code fetch.MB.sec}; compare fetch.MB.sec).
 * {@code --socket-buffer-size} is accepted and has no effect (gRPC sizes its own buffers);
 * {@code --print-metrics} is refused.
 */
@Command(name = "consume", sortOptions = false,
        description = "Consumer throughput, as Kafka's kafka-consumer-perf-test measures it.")
final class ConsumerPerfCommand implements Callable<Integer> {
    private static final String DEFAULT_CLIENT_ID = "perf-consumer-client";
    private static final long POLL_MS = 100;
    private static final double MIB = 1024.0 * 1024.0;
    private static final String HEADER_TAIL = ", rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec";

    @Mixin
    ConnectionOptions connection = new ConnectionOptions();

    static final class Topics {
        @Option(names = "--topic", paramLabel = "TOPIC", required = true, description = "The topic to consume from.")
        String topic;
        @Option(names = "--include", paramLabel = "REGEX", required = true,
                description = "Consume every topic whose whole name matches this Java regular expression.")
        String include;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Topics topics;

    static final class Count {
        @Option(names = "--num-records", paramLabel = "COUNT", required = true, description = "The number of records to consume.")
        Long numRecords;
        @Option(names = "--messages", paramLabel = "COUNT", required = true, description = "The older name of --num-records.")
        Long messages;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Count count;

    @Option(names = "--group", paramLabel = "GID",
            description = "Accepted for Kafka's sake; Tideline has no consumer groups, every partition is assigned.")
    String group;

    @Option(names = "--fetch-size", paramLabel = "SIZE", defaultValue = "1048576",
            description = "max.partition.fetch.bytes: the most data one fetch returns per partition (default ${DEFAULT-VALUE}).")
    int fetchSize;

    @Option(names = "--from-latest", description = "Start at the high watermark instead of the log start offset.")
    boolean fromLatest;

    @Option(names = "--socket-buffer-size", paramLabel = "SIZE", defaultValue = "2097152",
            description = "Accepted for Kafka's sake; no effect (gRPC sizes its own buffers).")
    int socketBufferSize;

    @Option(names = "--command-property", paramLabel = "PROP=VALUE",
            description = "A consumer setting (fetch.max.wait.ms, max.poll.records, ...); repeat. Over --command-config.")
    Map<String, String> commandProperties = new LinkedHashMap<>();

    @Option(names = "--consumer.config", paramLabel = "CONFIG-FILE", description = "The older name of --command-config.")
    Path consumerConfig;

    @Option(names = "--print-metrics", description = "Refused: the Tideline consumer keeps no Kafka client metrics.")
    boolean printMetrics;

    @Option(names = "--show-detailed-stats", description = "A row per --reporting-interval instead of one total row.")
    boolean showDetailedStats;

    @Option(names = "--timeout", paramLabel = "MS", defaultValue = "10000",
            description = "Stop when no record arrived for this long (default ${DEFAULT-VALUE}).")
    long timeoutMs;

    @Option(names = "--reporting-interval", paramLabel = "INTERVAL-MS", defaultValue = "5000",
            description = "Milliseconds between rows of --show-detailed-stats (default ${DEFAULT-VALUE}).")
    long reportingIntervalMs;

    @Option(names = "--date-format", paramLabel = "FORMAT", defaultValue = "yyyy-MM-dd HH:mm:ss:SSS",
            description = "java.text.SimpleDateFormat of the time columns (default ${DEFAULT-VALUE}).")
    String dateFormat;

    @Option(names = "--hide-header", description = "Do not print the header line.")
    boolean hideHeader;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    private final CliIo io;
    private final Time time;

    ConsumerPerfCommand(CliIo io, Time time) {
        this.io = io;
        this.time = time;
    }

    @Override
    public Integer call() {
        long wanted = count.numRecords != null ? count.numRecords : count.messages;
        SimpleDateFormat format = checkOptions(wanted);
        Map<String, Object> settings = settings();
        List<TopicPartition> partitions = partitions(settings);
        PrintStream out = io.out();
        if (!hideHeader) {
            out.println((showDetailedStats ? "time, threadId" : "start.time, end.time")
                    + ", data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec" + HEADER_TAIL);
        }
        long records = 0;
        long bytes = 0;
        long startMs;
        long endMs;
        try (TidelineConsumer consumer = new TidelineConsumer(settings, time, ChannelFactory.plaintext())) {
            startMs = time.milliseconds();
            consumer.assign(partitions);
            if (fromLatest) {
                consumer.seekToEnd(partitions);
            } else {
                consumer.seekToBeginning(partitions);
            }
            long now = time.milliseconds();
            long lastReportMs = now;
            long lastRecordMs = now;
            long reportedRecords = 0;
            long reportedBytes = 0;
            while (records < wanted && now - lastRecordMs <= timeoutMs) {
                List<ConsumerRecord> polled = consumer.poll(Duration.ofMillis(POLL_MS));
                now = time.milliseconds();
                if (!polled.isEmpty()) {
                    lastRecordMs = now;
                }
                // Every record polled counts, even past --num-records, as in Kafka's tool.
                for (ConsumerRecord r : polled) {
                    records++;
                    bytes += (r.key() == null ? 0 : r.key().length) + (r.value() == null ? 0 : r.value().length);
                    if (now - lastReportMs >= reportingIntervalMs) {
                        if (showDetailedStats) {
                            printProgress(out, format, bytes, reportedBytes, records, reportedRecords, lastReportMs, now);
                        }
                        lastReportMs = now;
                        reportedRecords = records;
                        reportedBytes = bytes;
                    }
                }
            }
            endMs = time.milliseconds();
        }
        if (records < wanted) {
            out.printf(Locale.ROOT, "WARNING: Exiting before consuming the expected number of records: timeout (%d ms) "
                    + "exceeded. You can use the --timeout option to increase the timeout.%n", timeoutMs);
        }
        if (!showDetailedStats) {
            double elapsedSec = (endMs - startMs) / 1000.0;
            long fetchMs = endMs - startMs;
            double mb = bytes / MIB;
            out.printf(Locale.ROOT, "%s, %s, %.4f, %.4f, %d, %.4f, %d, %d, %.4f, %.4f%n", format.format(startMs),
                    format.format(endMs), mb, mb / elapsedSec, records, records / elapsedSec, 0, fetchMs,
                    mb / (fetchMs / 1000.0), records / (fetchMs / 1000.0));
        }
        return Cli.EXIT_OK;
    }

    private SimpleDateFormat checkOptions(long wanted) {
        connection.requireBootstrap();
        if (wanted < 0) {
            throw CliException.usage("--num-records must not be negative, got " + wanted);
        }
        if (reportingIntervalMs <= 0) {
            throw CliException.usage("Reporting interval must be greater than 0.");
        }
        if (timeoutMs < 0) {
            throw CliException.usage("--timeout must not be negative, got " + timeoutMs);
        }
        if (fetchSize < 1) {
            throw CliException.usage("--fetch-size must be at least 1, got " + fetchSize);
        }
        connection.refuseBoth(consumerConfig, "--consumer.config");
        if (printMetrics) {
            throw CliException.usage("--print-metrics is not supported: the Tideline consumer keeps no Kafka client metrics");
        }
        try {
            return new SimpleDateFormat(dateFormat, Locale.ROOT);
        } catch (IllegalArgumentException e) {
            throw CliException.usage("--date-format '" + dateFormat + "': " + Cli.firstLine(e.getMessage()));
        }
    }

    private Map<String, Object> settings() {
        Map<String, Object> defaults = new LinkedHashMap<>();
        defaults.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS, ClientSettings.TOOL_DEFAULT_API_TIMEOUT_MS);
        defaults.put(CommonClientConfigs.CLIENT_ID, DEFAULT_CLIENT_ID);
        Map<String, Object> fixed = new LinkedHashMap<>();
        fixed.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES, fetchSize);
        fixed.put(ConsumerConfig.AUTO_OFFSET_RESET, fromLatest ? "latest" : "earliest");
        Map<String, Object> settings = connection.settings(defaults, consumerConfig, commandProperties, fixed);
        ClientSettings.warnUnknown(io, "perf consume", "consumer", settings, ConsumerConfig::new, Set.of());
        return settings;
    }

    /** Every partition of the topic, or of each topic --include matches (sorted by name). */
    private List<TopicPartition> partitions(Map<String, Object> settings) {
        Map<String, Object> admin = ClientSettings.adminFor(settings, new ConsumerConfig(settings).defaultApiTimeoutMs());
        List<String> names;
        if (topics.topic != null) {
            names = List.of(topics.topic);
        } else {
            Pattern pattern;
            try {
                pattern = Pattern.compile(topics.include);
            } catch (PatternSyntaxException e) {
                throw CliException.usage("--include is not a regular expression: " + Cli.firstLine(e.getMessage()));
            }
            try (TidelineAdmin client = new TidelineAdmin(admin, time, ChannelFactory.plaintext())) {
                names = client.listTopics().stream().filter(t -> pattern.matcher(t).matches()).sorted().toList();
            }
            if (names.isEmpty()) {
                throw CliException.failed("no topic matches --include " + topics.include);
            }
        }
        List<TopicPartition> partitions = new ArrayList<>();
        for (String name : names) {
            int n = TopicCheck.partitionCount(admin, name, null, time);
            for (int p = 0; p < n; p++) {
                partitions.add(new TopicPartition(name, p));
            }
        }
        return partitions;
    }

    private static void printProgress(PrintStream out, SimpleDateFormat format, long bytes, long lastBytes, long records,
                                      long lastRecords, long startMs, long endMs) {
        double elapsedMs = endMs - startMs;
        double mb = bytes / MIB;
        double intervalMb = (bytes - lastBytes) / MIB;
        // With no group there is no join time: the fetch columns repeat the interval's rates.
        out.printf(Locale.ROOT, "%s, %d, %.4f, %.4f, %d, %.4f, %d, %d, %.4f, %.4f%n", format.format(endMs), 0, mb,
                1000.0 * intervalMb / elapsedMs, records, (records - lastRecords) / elapsedMs * 1000.0, 0,
                endMs - startMs, elapsedMs <= 0 ? 0.0 : 1000.0 * intervalMb / elapsedMs,
                elapsedMs <= 0 ? 0.0 : 1000.0 * (records - lastRecords) / elapsedMs);
    }
}
