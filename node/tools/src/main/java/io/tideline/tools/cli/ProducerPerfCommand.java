package io.tideline.tools.cli;

import io.tideline.client.ChannelFactory;
import io.tideline.client.CommonClientConfigs;
import io.tideline.client.ProducerConfig;
import io.tideline.client.ProducerRecord;
import io.tideline.client.TidelineProducer;
import io.tideline.common.time.Time;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code tideline perf produce}: Kafka 4.4's {@code ProducerPerformance} (kafka-producer-perf-test) for
 * Tideline. Sends {@code --num-records} records to {@code --topic} as fast as the producer takes them or
 * at about {@code --throughput} records/s, prints a window line every {@code --reporting-interval} and
 * the total line at the end ({@link ProducerPerfStats} has the formats).
 *
 * <p>Settings reach {@link TidelineProducer} as given, with Kafka's key names: defaults, then
 * {@code --command-config} (or {@code --producer.config}), then {@code --command-property} (or
 * {@code --producer-props}), then {@code --bootstrap-server}. Keys the Tideline producer does not know are
 * named in one WARN line on stderr and ignored, as Kafka's producer ignores keys it does not know.
 * The producer's buffer.memory bounds the records in flight, as in Kafka. Transactions and {@code --print-metrics}
 * are refused with one line: the Tideline producer has neither.
 *
 * <p>Records have no key unless {@code --key-distribution} asks for one, go to the partitioner's choice
 * (sticky without keys); one value array is refilled for each record, as Kafka's tool does (the producer
 * copies a record when send() takes it).
 */
@Command(name = "produce", sortOptions = false,
        description = "Producer throughput and latency, as Kafka's kafka-producer-perf-test measures them.")
final class ProducerPerfCommand implements Callable<Integer> {
    private static final String TRANSACTIONAL_ID = "transactional.id";
    private static final String DEFAULT_CLIENT_ID = "perf-producer-client";

    @Mixin
    ConnectionOptions connection = new ConnectionOptions();

    @Option(names = "--topic", paramLabel = "TOPIC", required = true, description = "Produce records to this topic.")
    String topic;

    @Option(names = "--num-records", paramLabel = "NUM-RECORDS", required = true, description = "Number of records to produce.")
    long numRecords;

    static final class Payload {
        @Option(names = "--record-size", paramLabel = "RECORD-SIZE", required = true,
                description = "Record size in bytes (random upper-case letters).")
        Integer recordSize;
        @Option(names = "--payload-file", paramLabel = "PAYLOAD-FILE", required = true,
                description = "A UTF-8 file of payloads split at --payload-delimiter; each record takes a random one.")
        Path payloadFile;
        @Option(names = "--payload-monotonic", required = true,
                description = "The payload is the record's number: 0, 1, 2, ...")
        boolean monotonic;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Payload payload;

    @Option(names = "--payload-delimiter", paramLabel = "PAYLOAD-DELIMITER", defaultValue = "\\n",
            description = "The delimiter of --payload-file (default a new line, written \\n).")
    String payloadDelimiter;

    @Option(names = "--throughput", paramLabel = "THROUGHPUT", required = true,
            description = "Send at about THROUGHPUT records/s; -1 for as fast as possible.")
    double throughput;

    @Option(names = "--command-property", paramLabel = "PROP-NAME=PROP-VALUE", arity = "1..*",
            description = "Producer settings (acks, linger.ms, batch.size, buffer.memory, ...); over --command-config.")
    Map<String, String> commandProperties = new LinkedHashMap<>();

    @Option(names = "--producer-props", paramLabel = "PROP-NAME=PROP-VALUE", arity = "1..*",
            description = "The older name of --command-property.")
    Map<String, String> producerProps = new LinkedHashMap<>();

    @Option(names = "--producer.config", paramLabel = "CONFIG-FILE", description = "The older name of --command-config.")
    Path producerConfig;

    @Option(names = "--warmup-records", paramLabel = "WARMUP-RECORDS", defaultValue = "0",
            description = "Records left out of a second, steady-state total line (default ${DEFAULT-VALUE}).")
    long warmupRecords;

    @Option(names = "--reporting-interval", paramLabel = "INTERVAL-MS", defaultValue = "5000",
            description = "Milliseconds between window lines (default ${DEFAULT-VALUE}).")
    long reportingIntervalMs;

    @Option(names = "--record-key-range", paramLabel = "KEY-RANGE",
            description = "Keys are the integers 0..KEY-RANGE-1 (with --key-distribution range or random).")
    Integer recordKeyRange;

    @Option(names = "--key-distribution", paramLabel = "KEY-DISTRIBUTION", defaultValue = "none",
            description = "none (null keys, the default), range (round robin over the key range) or random.")
    String keyDistribution;

    @Option(names = "--random-seed", paramLabel = "RANDOM-SEED", defaultValue = "0",
            description = "Seed of the payloads, payload choices and random keys (default ${DEFAULT-VALUE}).")
    long randomSeed;

    @Option(names = "--print-metrics", description = "Refused: the Tideline producer keeps no client metrics.")
    boolean printMetrics;

    @Option(names = "--transactional-id", paramLabel = "TRANSACTIONAL-ID", description = "Refused: Tideline has no transactions.")
    String transactionalId;

    @Option(names = "--transaction-duration-ms", paramLabel = "TRANSACTION-DURATION",
            description = "Refused: Tideline has no transactions.")
    Long transactionDurationMs;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    private final CliIo io;
    private final Time time;

    ProducerPerfCommand(CliIo io, Time time) {
        this.io = io;
        this.time = time;
    }

    @Override
    public Integer call() throws IOException {
        checkOptions();
        KeyMaker keys = KeyMaker.of(keyDistribution, recordKeyRange);
        Map<String, Object> settings = settings();
        TopicCheck.partitionCount(ClientSettings.adminFor(settings, new ProducerConfig(settings).maxBlockMs()), topic,
                null, time);
        PrintStream out = io.out();
        List<byte[]> payloads = readPayloads(out);

        SplittableRandom random = new SplittableRandom(randomSeed);
        Failures failures = new Failures();
        ProducerPerfStats stats;
        ProducerPerfStats steady = null;
        try (TidelineProducer producer = new TidelineProducer(settings, time, ChannelFactory.plaintext())) {
            if (warmupRecords > 0) {
                out.println("Warmup first " + warmupRecords + " records. Steady state results will print after the "
                        + "complete test summary.");
            }
            stats = new ProducerPerfStats(numRecords, reportingIntervalMs, false, out, time);
            Throttle throttle = new Throttle(throughput, time);
            // One array, refilled for each record, as Kafka's tool does: the producer copies a record's
            // value when send() takes it.
            byte[] reused = payload.recordSize == null ? null : new byte[payload.recordSize];
            for (long i = 0; i < numRecords; i++) {
                byte[] value = payload(i, payloads, random, reused);
                int valueSize = value.length;
                byte[] key = keys.key(i, random);
                if (warmupRecords > 0 && i == warmupRecords) {
                    steady = new ProducerPerfStats(numRecords - warmupRecords, reportingIntervalMs, true, out, time);
                    steady.quiet();
                }
                // send() blocks while buffer.memory is full, as Kafka's producer does: that bounds an
                // unthrottled run, and a record's latency includes its wait for room.
                long sendStartMs = time.milliseconds();
                ProducerPerfStats total = stats;
                ProducerPerfStats afterWarmup = steady;
                producer.send(new ProducerRecord(topic, null, key, value)).whenComplete((metadata, error) -> {
                    long now = time.milliseconds();
                    if (error == null) {
                        int latency = (int) (now - sendStartMs);
                        total.record(latency, valueSize, now);
                        if (afterWarmup != null) {
                            afterWarmup.record(latency, valueSize, now);
                        }
                    } else {
                        failures.add(error);
                    }
                });
                throttle.pace(i + 1);
            }
        }
        // close() above waited for every record's answer.
        stats.printTotal();
        if (steady != null) {
            steady.printTotal();
        }
        return failures.report(io, numRecords);
    }

    private void checkOptions() {
        // Kafka's own checks first, in its words, then what Tideline refuses.
        if (numRecords <= 0) {
            throw CliException.usage("--num-records should be greater than zero.");
        }
        if (payload.recordSize != null && payload.recordSize <= 0) {
            throw CliException.usage("--record-size should be greater than zero.");
        }
        if (connection.bootstrapServer == null && commandProperties.isEmpty() && producerProps.isEmpty()
                && producerConfig == null && connection.commandConfig == null) {
            throw CliException.usage("At least one of --bootstrap-server, --command-property, --producer-props, "
                    + "--producer.config or --command-config must be specified.");
        }
        if (!commandProperties.isEmpty() && !producerProps.isEmpty()) {
            throw CliException.usage("--command-property and --producer-props cannot be specified together.");
        }
        connection.refuseBoth(producerConfig, "--producer.config");
        if (reportingIntervalMs <= 0) {
            throw CliException.usage("--reporting-interval should be greater than zero.");
        }
        // Checked before anything is sent or printed, so that a usage error leaves stdout empty.
        Path file = payload.payloadFile;
        if (file != null && (!Files.isRegularFile(file) || file.toFile().length() == 0)) {
            throw CliException.usage("File does not exist or empty file provided: " + file);
        }
        if (warmupRecords < 0) {
            throw CliException.usage("--warmup-records must not be negative, got " + warmupRecords);
        }
        if (warmupRecords >= numRecords) {
            throw CliException.usage("The value for --warmup-records must be strictly fewer than the number of "
                    + "records in the test, --num-records.");
        }
        if (throughput == 0) {
            throw CliException.usage("--throughput 0 would never send; give a positive rate, or -1 for no limit");
        }
        if (transactionalId != null || transactionDurationMs != null) {
            throw CliException.usage("Tideline has no transactions: --transactional-id and --transaction-duration-ms "
                    + "are not supported");
        }
        if (printMetrics) {
            throw CliException.usage("--print-metrics is not supported: the Tideline producer keeps no client metrics");
        }
    }

    private Map<String, Object> settings() {
        Map<String, Object> defaults = new LinkedHashMap<>();
        defaults.put(ProducerConfig.MAX_BLOCK_MS, (long) ClientSettings.TOOL_DEFAULT_API_TIMEOUT_MS);
        defaults.put(CommonClientConfigs.CLIENT_ID, DEFAULT_CLIENT_ID);
        Map<String, Object> settings = connection.settings(defaults, producerConfig,
                commandProperties.isEmpty() ? producerProps : commandProperties, Map.of());
        if (settings.containsKey(TRANSACTIONAL_ID)) {
            throw CliException.usage("Tideline has no transactions: transactional.id is not supported");
        }
        if (settings.get(CommonClientConfigs.BOOTSTRAP_SERVERS) == null) {
            throw CliException.usage("no bootstrap.servers: give --bootstrap-server, or bootstrap.servers in "
                    + "--command-property or --command-config");
        }
        ClientSettings.warnUnknown(io, "perf produce", "producer", settings, ProducerConfig::new, Set.of());
        return settings;
    }

    private List<byte[]> readPayloads(PrintStream out) throws IOException {
        List<byte[]> list = new ArrayList<>();
        if (payload.payloadFile == null) {
            return list;
        }
        Path path = payload.payloadFile;
        out.println("Reading payloads from: " + path.toAbsolutePath());
        String delimiter = payloadDelimiter.equals("\\n") ? "\n" : payloadDelimiter;
        // Kafka splits with String.split, so trailing empty payloads are dropped here too; the delimiter is
        // taken literally.
        String[] parts = Files.readString(path, StandardCharsets.UTF_8).split(Pattern.quote(delimiter));
        out.println("Number of records read: " + parts.length);
        for (String part : parts) {
            list.add(part.getBytes(StandardCharsets.UTF_8));
        }
        return list;
    }

    private byte[] payload(long i, List<byte[]> payloads, SplittableRandom random, byte[] reused) {
        if (!payloads.isEmpty()) {
            // The file's arrays are shared between records; nothing writes to them after reading.
            return payloads.get(random.nextInt(payloads.size()));
        }
        if (payload.monotonic) {
            return Long.toString(i).getBytes(StandardCharsets.UTF_8);
        }
        for (int j = 0; j < reused.length; j++) {
            reused[j] = (byte) ('A' + random.nextInt(26));
        }
        return reused;
    }

    /** The record keys of --key-distribution: none, range (i mod range) or random (uniform over the range). */
    record KeyMaker(String distribution, int range) {

        static KeyMaker of(String distribution, Integer range) {
            String d = distribution.toLowerCase(Locale.ROOT);
            if (!Set.of("none", "range", "random").contains(d)) {
                throw CliException.usage("--key-distribution must be none, range or random, got '" + distribution + "'");
            }
            if (range != null && range <= 0) {
                throw CliException.usage("--record-key-range should be greater than zero.");
            }
            if (range != null && d.equals("none")) {
                throw CliException.usage("--key-distribution must be 'range' or 'random' when --record-key-range is "
                        + "specified.");
            }
            if (range == null && !d.equals("none")) {
                throw CliException.usage("--record-key-range is required when --key-distribution is 'range' or "
                        + "'random'.");
            }
            return new KeyMaker(d, range == null ? 0 : range);
        }

        byte[] key(long i, SplittableRandom random) {
            return switch (distribution) {
                case "range" -> Integer.toString((int) (i % range)).getBytes(StandardCharsets.UTF_8);
                case "random" -> Integer.toString(random.nextInt(range)).getBytes(StandardCharsets.UTF_8);
                default -> null;
            };
        }
    }

    /** Records that failed: counted, the first one named. Updated on the producer's thread. */
    private static final class Failures {
        private final AtomicLong count = new AtomicLong();
        private final AtomicReference<String> first = new AtomicReference<>();

        void add(Throwable error) {
            count.incrementAndGet();
            Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            first.compareAndSet(null, Cli.describe(e));
        }

        int report(CliIo io, long sent) {
            if (count.get() == 0) {
                return Cli.EXIT_OK;
            }
            io.err().println("perf produce: " + count.get() + " of " + sent + " records failed; the first: " + first.get());
            return Cli.EXIT_FAILED;
        }
    }
}
