package io.tideline.tools.cli;

import io.tideline.client.AdminConfig;
import io.tideline.client.ChannelFactory;
import io.tideline.client.ConsumerConfig;
import io.tideline.client.ConsumerRecord;
import io.tideline.client.ProducerConfig;
import io.tideline.client.ProducerRecord;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineConsumer;
import io.tideline.client.TidelineProducer;
import io.tideline.client.TopicDescription;
import io.tideline.client.TopicResult;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tideline perf e2e}: Kafka 4.4's {@code EndToEndLatency} (kafka-e2e-latency) for Tideline. Sends
 * one record at a time, waits for its acknowledgement and then for a consumer (assigned every partition,
 * at the high watermark) to read it, and takes the time from before the send to the end of that poll.
 * Prints {@code i<TAB>latency-ms} for every 1000th record and then
 *
 * <pre>
 * Avg latency: 5.1462 ms
 * Percentiles: 50th = 4, 99th = 20, 99.9th = 44
 * </pre>
 *
 * <p>Takes Kafka's named arguments ({@code --bootstrap-server --topic --num-records --producer-acks
 * --record-size [--record-key-size N] [--command-config F]}) or its older positional ones
 * ({@code bootstrap-server topic num-records producer-acks record-size [command-config]}). A missing topic
 * is created with one partition and one replica, as Kafka's tool does. Tideline records carry no headers,
 * so {@code --num-headers} above 0 is refused. The properties file goes to the producer and the consumer
 * alike (and to the admin client for the topic); keys none of them knows are named in one WARN line.
 */
@Command(name = "e2e", sortOptions = false,
        description = "End-to-end latency (send, acknowledge, consume) one record at a time, as Kafka's "
                + "kafka-e2e-latency measures it.")
final class EndToEndLatencyCommand implements Callable<Integer> {
    /** Kafka's bound on each poll: a record not read within it fails the run. */
    private static final long POLL_TIMEOUT_MS = 60_000;
    private static final int PRINT_EVERY = 1000;
    private static final String USAGE = "bootstrap-server topic num-records producer-acks record-size [optional] "
            + "command-config";

    @Mixin
    ConnectionOptions connection = new ConnectionOptions();

    @Option(names = "--topic", paramLabel = "TOPIC", description = "The topic to use (created with 1 partition if missing).")
    String topic;

    @Option(names = "--num-records", paramLabel = "COUNT", description = "The number of records to send.")
    Integer numRecords;

    @Option(names = "--producer-acks", paramLabel = "1|all", description = "The producer's acks: 1 or all.")
    String producerAcks;

    @Option(names = "--record-size", paramLabel = "BYTES", description = "The size of each record's value.")
    Integer recordSize;

    @Option(names = "--record-key-size", paramLabel = "BYTES", defaultValue = "0",
            description = "The size of each record's key; 0 (the default) sends no key.")
    int recordKeySize;

    @Option(names = "--num-headers", paramLabel = "COUNT", defaultValue = "0",
            description = "Only 0: Tideline records carry no headers.")
    int numHeaders;

    @Option(names = "--record-header-key-size", paramLabel = "BYTES", defaultValue = "0",
            description = "Accepted with --num-headers 0 only (no effect).")
    int recordHeaderKeySize;

    @Option(names = "--record-header-size", paramLabel = "BYTES", defaultValue = "0",
            description = "Accepted with --num-headers 0 only (no effect).")
    int recordHeaderSize;

    @Parameters(arity = "0..*", paramLabel = "ARG",
            description = "The older positional form: " + USAGE + ".")
    List<String> positional = new ArrayList<>();

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    private final CliIo io;
    private final Time time;

    EndToEndLatencyCommand(CliIo io, Time time) {
        this.io = io;
        this.time = time;
    }

    @Override
    public Integer call() {
        takePositional();
        checkOptions();
        Map<String, Object> producerSettings = producerSettings();
        Map<String, Object> consumerSettings = consumerSettings();
        warnUnknown(producerSettings, consumerSettings);
        PrintStream out = io.out();
        int partitions = ensureTopic(consumerSettings, out);

        long[] latenciesMs = new long[numRecords];
        long totalNs = 0;
        Random random = new Random(0);
        try (TidelineConsumer consumer = new TidelineConsumer(consumerSettings, time, ChannelFactory.plaintext());
             TidelineProducer producer = new TidelineProducer(producerSettings, time, ChannelFactory.plaintext())) {
            List<TopicPartition> all = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                all.add(new TopicPartition(topic, p));
            }
            consumer.assign(all);
            consumer.seekToEnd(all);
            // Look the positions up now, so that the first record's time does not include it.
            all.forEach(consumer::position);
            for (int i = 0; i < numRecords; i++) {
                byte[] value = letters(random, recordSize);
                byte[] key = recordKeySize > 0 ? letters(random, recordKeySize) : null;
                long beginNs = time.nanoseconds();
                send(producer, new ProducerRecord(topic, null, key, value));
                List<ConsumerRecord> records = consumer.poll(Duration.ofMillis(POLL_TIMEOUT_MS));
                long elapsedNs = time.nanoseconds() - beginNs;
                validate(key, value, records);
                if (i % PRINT_EVERY == 0) {
                    out.println(i + "\t" + elapsedNs / 1000.0 / 1000.0);
                }
                totalNs += elapsedNs;
                latenciesMs[i] = elapsedNs / 1000 / 1000;
            }
        }
        out.printf(Locale.ROOT, "Avg latency: %.4f ms%n", totalNs / (double) numRecords / 1000.0 / 1000.0);
        Arrays.sort(latenciesMs);
        out.printf(Locale.ROOT, "Percentiles: 50th = %d, 99th = %d, 99.9th = %d%n", latenciesMs[(int) (numRecords * 0.5)],
                latenciesMs[(int) (numRecords * 0.99)], latenciesMs[(int) (numRecords * 0.999)]);
        return Cli.EXIT_OK;
    }

    /** The positional form sets what the named options would. */
    private void takePositional() {
        if (positional.isEmpty()) {
            return;
        }
        if (connection.bootstrapServer != null || topic != null || numRecords != null || producerAcks != null
                || recordSize != null || connection.commandConfig != null) {
            throw CliException.usage("give either the named options or the positional arguments (" + USAGE + "), not both");
        }
        if (positional.size() != 5 && positional.size() != 6) {
            throw CliException.usage("Invalid number of arguments. Expected 5 or 6 positional arguments, but got "
                    + positional.size() + ". Usage: " + USAGE);
        }
        connection.bootstrapServer = positional.get(0);
        topic = positional.get(1);
        numRecords = integer("num-records", positional.get(2));
        producerAcks = positional.get(3);
        recordSize = integer("record-size", positional.get(4));
        if (positional.size() == 6) {
            connection.commandConfig = Path.of(positional.get(5));
        }
    }

    private static int integer(String name, String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw CliException.usage(name + " must be an integer, got '" + text + "'");
        }
    }

    private void checkOptions() {
        List<String> missing = new ArrayList<>();
        if (connection.bootstrapServer == null) {
            missing.add("--bootstrap-server");
        }
        if (topic == null) {
            missing.add("--topic");
        }
        if (numRecords == null) {
            missing.add("--num-records");
        }
        if (producerAcks == null) {
            missing.add("--producer-acks");
        }
        if (recordSize == null) {
            missing.add("--record-size");
        }
        if (!missing.isEmpty()) {
            throw CliException.usage("Missing required option" + (missing.size() == 1 ? "" : "s") + ": "
                    + String.join(", ", missing));
        }
        if (!producerAcks.equals("1") && !producerAcks.equals("all")) {
            throw CliException.usage("Invalid value for --producer-acks. Latency testing requires synchronous "
                    + "acknowledgement. Please use '1' or 'all'.");
        }
        if (numRecords <= 0) {
            throw CliException.usage("Value for --num-records must be a positive integer.");
        }
        if (recordSize < 0) {
            throw CliException.usage("Value for --record-size must be a non-negative integer.");
        }
        if (recordKeySize < 0) {
            throw CliException.usage("Value for --record-key-size must be a non-negative integer.");
        }
        if (numHeaders < 0) {
            throw CliException.usage("Value for --num-headers must be a non-negative integer.");
        }
        if (numHeaders > 0) {
            throw CliException.usage("Tideline records carry no headers: --num-headers must be 0, got " + numHeaders);
        }
    }

    private Map<String, Object> producerSettings() {
        Map<String, Object> fixed = new LinkedHashMap<>();
        // One record at a time: a batch must not wait for company.
        fixed.put(ProducerConfig.LINGER_MS, 0L);
        fixed.put(ProducerConfig.ACKS, producerAcks);
        return connection.settings(Map.of(ProducerConfig.MAX_BLOCK_MS, (long) ClientSettings.TOOL_DEFAULT_API_TIMEOUT_MS),
                null, Map.of(), fixed);
    }

    private Map<String, Object> consumerSettings() {
        Map<String, Object> fixed = new LinkedHashMap<>();
        fixed.put(ConsumerConfig.AUTO_OFFSET_RESET, "latest");
        // The broker answers each fetch at once, so a record is read as soon as it is there.
        fixed.put(ConsumerConfig.FETCH_MAX_WAIT_MS, 0);
        return connection.settings(Map.of(ConsumerConfig.DEFAULT_API_TIMEOUT_MS, ClientSettings.TOOL_DEFAULT_API_TIMEOUT_MS),
                null, Map.of(), fixed);
    }

    /** Checks both clients' values; warns about the keys that neither client nor the admin client knows. */
    private void warnUnknown(Map<String, Object> producerSettings, Map<String, Object> consumerSettings) {
        Set<String> unknown = new TreeSet<>(ClientSettings.unknownKeys(producerSettings, ProducerConfig::new));
        unknown.retainAll(ClientSettings.unknownKeys(consumerSettings, ConsumerConfig::new));
        unknown.removeAll(AdminConfig.configDef().names());
        ClientSettings.warnUnknown(io, "perf e2e", "producer, consumer and admin client", unknown);
    }

    /** The topic's partition count; creates it (1 partition, 1 replica) when missing, as Kafka's tool does. */
    private int ensureTopic(Map<String, Object> consumerSettings, PrintStream out) {
        Map<String, Object> adminSettings = ClientSettings.adminFor(consumerSettings,
                new ConsumerConfig(consumerSettings).defaultApiTimeoutMs());
        long timeoutMs = new ConsumerConfig(consumerSettings).defaultApiTimeoutMs();
        try (TidelineAdmin admin = new TidelineAdmin(adminSettings, time, ChannelFactory.plaintext())) {
            TopicDescription d = admin.describeTopics(List.of(topic)).get(0);
            if (d.error() == Errors.NONE) {
                return d.partitions().size();
            }
            if (d.error() != Errors.UNKNOWN_TOPIC_OR_PARTITION) {
                throw CliException.failed("topic '" + topic + "': " + d.error() + ": " + d.message());
            }
            out.printf(Locale.ROOT, "Topic \"%s\" does not exist. Will create topic with %d partition(s) and replication "
                    + "factor = %d%n", topic, 1, 1);
            TopicResult created = admin.createTopic(topic, 1, 1, Map.of());
            if (!created.isSuccess()) {
                throw CliException.failed("Creation of topic " + topic + " failed: " + created.error() + ": "
                        + created.message());
            }
            String missing = TopicCheck.awaitLeaders(admin, topic, 1, timeoutMs, time);
            if (missing != null) {
                throw CliException.failed(missing);
            }
            return 1;
        }
    }

    private static void send(TidelineProducer producer, ProducerRecord record) {
        try {
            producer.send(record).join();
        } catch (CompletionException e) {
            throw CliException.failed("send failed: " + Cli.describe(e.getCause() != null ? e.getCause() : e));
        }
    }

    /** The one record read must be the one just sent; anything else ends the run (exit 1), as in Kafka's tool. */
    private static void validate(byte[] key, byte[] value, List<ConsumerRecord> records) {
        if (records.isEmpty()) {
            throw CliException.failed("poll() timed out before finding a result (timeout:[" + POLL_TIMEOUT_MS + "ms])");
        }
        ConsumerRecord read = records.get(0);
        if (!Arrays.equals(value, read.value())) {
            throw CliException.failed("The message value read [" + text(read.value()) + "] did not match the message "
                    + "value sent [" + text(value) + "]");
        }
        if (key == null && read.key() != null) {
            throw CliException.failed("Expected null message key but received [" + text(read.key()) + "]");
        }
        if (key != null && !Arrays.equals(key, read.key())) {
            throw CliException.failed(read.key() == null ? "Expected message key but received null"
                    : "The message key read [" + text(read.key()) + "] did not match the message key sent [" + text(key) + "]");
        }
        if (records.size() != 1) {
            throw CliException.failed("Only one result was expected during this test. We found [" + records.size() + "]");
        }
    }

    private static String text(byte[] bytes) {
        return bytes == null ? "null" : new String(bytes, StandardCharsets.UTF_8);
    }

    /** {@code length} copies of one random upper-case letter. */
    private static byte[] letters(Random random, int length) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, (byte) ('A' + random.nextInt(26)));
        return bytes;
    }
}
