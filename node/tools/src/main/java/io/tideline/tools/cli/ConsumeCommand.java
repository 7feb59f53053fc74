package io.tideline.tools.cli;

import io.tideline.client.ChannelFactory;
import io.tideline.client.ConsumerConfig;
import io.tideline.client.ConsumerRecord;
import io.tideline.client.NoOffsetForPartitionException;
import io.tideline.client.OffsetOutOfRangeException;
import io.tideline.client.TidelineConsumer;
import io.tideline.common.TopicPartition;
import io.tideline.common.time.Time;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tideline consume}: prints the records of a topic's partitions, one value per line (UTF-8; a
 * null value prints as {@code null}), like Kafka's console consumer with manual assignment.
 *
 * <p>Where it starts: {@code --offset N} (needs {@code --partition}, as in Kafka) or
 * {@code --offset earliest|latest}; {@code --from-beginning} is the log start offset; by default the
 * high watermark, so only new records are printed. {@code --reset} is the consumer's
 * {@code auto.offset.reset}, which applies when the position is outside the log, for example an
 * {@code --offset} below the log start offset after DeleteRecords or retention (docs/behaviours.md B31):
 * <ul>
 *   <li>{@code earliest}/{@code latest}: the consumer moves to the log start offset / high watermark and
 *       one line on stderr says how many offsets were skipped:
 *       {@code consume: WARN orders-0: offset 0 is out of range; moved to 3 (--reset earliest), 3 offsets skipped}</li>
 *   <li>{@code none}: one line on stderr naming the partition, the requested offset and both bounds, and
 *       exit {@link Cli#EXIT_FAILED}:
 *       {@code consume: orders-0: offset 0 is out of range: log start offset 3, high watermark 10 (--reset none)}</li>
 * </ul>
 * The default is {@code earliest} with {@code --from-beginning} and {@code latest} otherwise, Kafka's
 * console consumer rule.
 *
 * <p>It stops after {@code --max-messages} records, or when no record arrived for {@code --timeout-ms}
 * (then it exits {@link Cli#EXIT_OK}: an idle topic is not an error).
 */
@Command(name = "consume", sortOptions = false, description = "Print the records of a topic.")
public final class ConsumeCommand implements Callable<Integer> {
    static final String PRINT_KEY = "print.key";
    static final String PRINT_TIMESTAMP = "print.timestamp";
    static final String PRINT_PARTITION = "print.partition";
    static final String PRINT_OFFSET = "print.offset";
    private static final List<String> FLAGS = List.of(PRINT_TIMESTAMP, PRINT_PARTITION, PRINT_OFFSET, PRINT_KEY);
    static final String KEY_SEPARATOR = "key.separator";
    /** How long one poll may wait: short, so that --timeout-ms is kept to within this. */
    private static final long MAX_POLL_MS = 200;

    @Option(names = "--bootstrap-server", paramLabel = "HOST:PORT[,HOST:PORT...]", required = true,
            description = "Brokers to reach the cluster through.")
    String bootstrapServer;

    @Option(names = "--topic", paramLabel = "TOPIC", required = true, description = "The topic to read.")
    String topic;

    @Option(names = "--partition", paramLabel = "P", description = "Read only this partition (default: all).")
    Integer partition;

    static final class Start {
        @Option(names = "--offset", paramLabel = "N|earliest|latest",
                description = "Where to start: an offset (needs --partition), earliest or latest.")
        String offset;
        @Option(names = "--from-beginning", description = "Start at the log start offset.")
        boolean fromBeginning;
    }

    @ArgGroup(exclusive = true)
    Start start = new Start();

    @Option(names = "--reset", paramLabel = "earliest|latest|none",
            description = "auto.offset.reset for a position outside the log (default: earliest with "
                    + "--from-beginning, else latest).")
    String reset;

    @Option(names = "--max-messages", paramLabel = "N", description = "Stop after N records.")
    Long maxMessages;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "5000",
            description = "Stop when no record arrived for this long (default ${DEFAULT-VALUE}).")
    long timeoutMs;

    @Option(names = "--print-offsets", description = "Print offset<TAB>value.")
    boolean printOffsets;

    @Option(names = "--property", paramLabel = "KEY=VALUE",
            description = "Output format, as Kafka's console consumer: print.timestamp, print.partition, "
                    + "print.offset, print.key (each true|false, default false) and key.separator=S (default a tab). "
                    + "A line is [CreateTime:MS<S>][Partition:P<S>][Offset:N<S>][KEY<S>]VALUE.")
    Map<String, String> properties = new LinkedHashMap<>();

    @Option(names = "--consumer-property", paramLabel = "KEY=VALUE",
            description = "A consumer setting (fetch.max.wait.ms, max.poll.records, ...); repeat.")
    Map<String, String> consumerProperties = new LinkedHashMap<>();

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    private final CliIo io;
    private final Time time;

    ConsumeCommand(CliIo io, Time time) {
        this.io = io;
        this.time = time;
    }

    public static void main(String[] args) {
        Cli.useToolLogging();
        System.exit(run(args, CliIo.system()));
    }

    /** Runs as {@code main} would, on the given streams; returns the exit code. */
    public static int run(String[] args, CliIo io) {
        return Cli.execute("consume", new CommandLine(new ConsumeCommand(io, Time.SYSTEM)), io, args);
    }

    @Override
    public Integer call() {
        String policy = checkOptions();
        LineFormat lineFormat = new LineFormat(flag(PRINT_TIMESTAMP), flag(PRINT_PARTITION), flag(PRINT_OFFSET),
                flag(PRINT_KEY), properties.getOrDefault(KEY_SEPARATOR, "\t"));
        Map<String, Object> settings = ClientSettings.consumer(bootstrapServer, consumerProperties, policy);
        int count = TopicCheck.partitionCount(ClientSettings.adminFor(settings,
                new ConsumerConfig(settings).defaultApiTimeoutMs()), topic, partition, time);
        List<TopicPartition> partitions = new ArrayList<>();
        if (partition != null) {
            partitions.add(new TopicPartition(topic, partition));
        } else {
            for (int p = 0; p < count; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
        }
        PrintStream out = io.out();
        long printed = 0;
        try (TidelineConsumer consumer = new TidelineConsumer(settings, time, ChannelFactory.plaintext())) {
            consumer.setOffsetResetListener((tp, from, to, skipped) -> io.err().println("consume: WARN " + tp
                    + ": offset " + from + " is out of range; moved to " + to + " (--reset " + policy + "), "
                    + skipped + " offset" + (skipped == 1 ? "" : "s") + " skipped"));
            consumer.assign(partitions);
            position(consumer, partitions);
            long lastRecordMs = time.milliseconds();
            while (maxMessages == null || printed < maxMessages) {
                long idleMs = time.milliseconds() - lastRecordMs;
                if (idleMs >= timeoutMs) {
                    break;
                }
                List<ConsumerRecord> records = consumer.poll(Duration.ofMillis(Math.min(MAX_POLL_MS, timeoutMs - idleMs)));
                for (ConsumerRecord r : records) {
                    if (maxMessages != null && printed >= maxMessages) {
                        break;
                    }
                    out.println(format(r, lineFormat));
                    printed++;
                }
                if (!records.isEmpty()) {
                    lastRecordMs = time.milliseconds();
                    out.flush();
                }
            }
        } catch (OffsetOutOfRangeException e) {
            throw CliException.failed(e.partition() + ": offset " + e.requestedOffset() + " is out of range: log start offset "
                    + e.logStartOffset() + ", high watermark " + e.highWatermark() + " (--reset none)");
        } catch (NoOffsetForPartitionException e) {
            throw CliException.failed(e.partition() + ": no position to start from (--reset none)");
        }
        io.err().println("consume: " + printed + " record" + (printed == 1 ? "" : "s") + " printed");
        return Cli.EXIT_OK;
    }

    /** Checks the combinations picocli cannot; returns the auto.offset.reset to use. */
    private String checkOptions() {
        if (partition != null && partition < 0) {
            throw CliException.usage("--partition must be >= 0, got " + partition);
        }
        if (maxMessages != null && maxMessages < 1) {
            throw CliException.usage("--max-messages must be at least 1, got " + maxMessages);
        }
        if (timeoutMs < 0) {
            throw CliException.usage("--timeout-ms must be >= 0, got " + timeoutMs);
        }
        if (start.offset != null && !Set.of("earliest", "latest").contains(start.offset)) {
            long n = parseOffset(start.offset);
            if (partition == null) {
                throw CliException.usage("--offset " + n + " needs --partition (offsets belong to one partition)");
            }
        }
        for (String key : properties.keySet()) {
            if (!FLAGS.contains(key) && !key.equals(KEY_SEPARATOR)) {
                throw CliException.usage("unknown --property " + key + " (known: " + String.join(", ", FLAGS) + ", "
                        + KEY_SEPARATOR + ")");
            }
        }
        if (reset == null) {
            return start.fromBeginning ? "earliest" : "latest";
        }
        String r = reset.toLowerCase(Locale.ROOT);
        if (!Set.of("earliest", "latest", "none").contains(r)) {
            throw CliException.usage("--reset must be earliest, latest or none, got '" + reset + "'");
        }
        return r;
    }

    private boolean flag(String key) {
        String v = properties.get(key);
        if (v != null && !v.equals("true") && !v.equals("false")) {
            throw CliException.usage("--property " + key + " must be true or false, got '" + v + "'");
        }
        return Boolean.parseBoolean(v);
    }

    private static long parseOffset(String text) {
        long n;
        try {
            n = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw CliException.usage("--offset must be a number, earliest or latest, got '" + text + "'");
        }
        if (n < 0) {
            throw CliException.usage("--offset must be >= 0, got " + n);
        }
        return n;
    }

    private void position(TidelineConsumer consumer, List<TopicPartition> partitions) {
        if (start.fromBeginning || "earliest".equals(start.offset)) {
            consumer.seekToBeginning(partitions);
        } else if (start.offset == null || "latest".equals(start.offset)) {
            consumer.seekToEnd(partitions);
        } else {
            consumer.seek(partitions.get(0), parseOffset(start.offset));
        }
    }

    /** What a line shows besides the value; {@code separator} follows each field before the value. */
    private record LineFormat(boolean timestamp, boolean partition, boolean offset, boolean key, String separator) {
    }

    /** Kafka's console consumer layout: timestamp, partition, offset, key, value, in that order. */
    private String format(ConsumerRecord r, LineFormat f) {
        StringBuilder line = new StringBuilder();
        if (printOffsets) {
            line.append(r.offset()).append('\t');
        }
        if (f.timestamp()) {
            line.append(r.timestampType().label()).append(':').append(r.timestamp()).append(f.separator());
        }
        if (f.partition()) {
            line.append("Partition:").append(r.partition()).append(f.separator());
        }
        if (f.offset()) {
            line.append("Offset:").append(r.offset()).append(f.separator());
        }
        if (f.key()) {
            line.append(text(r.key())).append(f.separator());
        }
        return line.append(text(r.value())).toString();
    }

    private static String text(byte[] bytes) {
        return bytes == null ? "null" : new String(bytes, StandardCharsets.UTF_8);
    }
}
