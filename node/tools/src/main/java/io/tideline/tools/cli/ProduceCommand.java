package io.tideline.tools.cli;

import io.tideline.client.ChannelFactory;
import io.tideline.client.ProducerConfig;
import io.tideline.client.ProducerRecord;
import io.tideline.client.TidelineClientException;
import io.tideline.client.TidelineProducer;
import io.tideline.common.time.Time;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tideline produce}: one record per line of stdin (UTF-8, without the line end), like Kafka's
 * console producer. The line is the value; with {@code --property parse.key=true} (implied by
 * {@code --property key.separator=S}) the text before the first separator is the key. Waits for every
 * record's answer, then prints a summary to stderr:
 *
 * <pre>
 * produce: 3 lines read, 3 records delivered to orders, 0 failed (acks=all)
 * </pre>
 *
 * and exits with {@link Cli#EXIT_FAILED} when any record failed (the first failure is named). A line
 * without the separator while keys are parsed is not sent and counts as failed.
 */
@Command(name = "produce", sortOptions = false,
        description = "Send one record per line of stdin to a topic.")
public final class ProduceCommand implements Callable<Integer> {
    static final String PARSE_KEY = "parse.key";
    static final String KEY_SEPARATOR = "key.separator";
    private static final Set<String> PROPERTIES = Set.of(PARSE_KEY, KEY_SEPARATOR);

    @Option(names = "--bootstrap-server", paramLabel = "HOST:PORT[,HOST:PORT...]", required = true,
            description = "Brokers to reach the cluster through.")
    String bootstrapServer;

    @Option(names = "--topic", paramLabel = "TOPIC", required = true, description = "The topic to write to.")
    String topic;

    @Option(names = "--partition", paramLabel = "P",
            description = "Write every record to this partition (default: the key's partition, or spread).")
    Integer partition;

    @Option(names = "--acks", paramLabel = "all|1|0",
            description = "acks: all (every in-sync replica, the default), 1 (the leader) or 0 (no answer).")
    String acks;

    @Option(names = "--property", paramLabel = "KEY=VALUE",
            description = "Line format: parse.key=true|false, key.separator=S (default a tab).")
    Map<String, String> properties = new LinkedHashMap<>();

    @Option(names = "--producer-property", paramLabel = "KEY=VALUE",
            description = "A producer setting (linger.ms, batch.size, retries, delivery.timeout.ms, ...); repeat.")
    Map<String, String> producerProperties = new LinkedHashMap<>();

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    private final CliIo io;
    private final Time time;

    ProduceCommand(CliIo io, Time time) {
        this.io = io;
        this.time = time;
    }

    public static void main(String[] args) {
        Cli.useToolLogging();
        System.exit(run(args, CliIo.system()));
    }

    /** Runs as {@code main} would: reads {@code io.in()}, reports on {@code io.err()}; returns the exit code. */
    public static int run(String[] args, CliIo io) {
        return Cli.execute("produce", new CommandLine(new ProduceCommand(io, Time.SYSTEM)), io, args);
    }

    @Override
    public Integer call() throws IOException {
        LineFormat format = LineFormat.of(properties);
        if (partition != null && partition < 0) {
            throw CliException.usage("--partition must be >= 0, got " + partition);
        }
        Map<String, Object> settings = ClientSettings.producer(bootstrapServer, producerProperties, acks);
        TopicCheck.partitionCount(ClientSettings.adminFor(settings, new ProducerConfig(settings).maxBlockMs()), topic,
                partition, time);
        Outcome outcome = new Outcome();
        try (TidelineProducer producer = new TidelineProducer(settings, time, ChannelFactory.plaintext());
             BufferedReader lines = new BufferedReader(new InputStreamReader(io.in(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                outcome.lines++;
                ProducerRecord record = format.record(topic, partition, line);
                if (record == null) {
                    outcome.fail("line " + outcome.lines + " has no key separator '" + format.separator() + "'; not sent");
                    continue;
                }
                outcome.sends++;
                producer.send(record).whenComplete((metadata, error) -> outcome.answered(error));
            }
            producer.flush();
            outcome.awaitAnswers();
        } catch (UncheckedIOException e) {
            throw CliException.failed("cannot read stdin: " + Cli.firstLine(e.getMessage()));
        }
        return outcome.report(io, topic, settings.getOrDefault("acks", "all").toString());
    }

    private static String describe(Throwable error) {
        Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return e instanceof TidelineClientException ? Cli.describe(e) : e.getClass().getSimpleName() + ": "
                + Cli.firstLine(e.getMessage());
    }

    /** How stdin lines become records: value only, or key, separator, value. */
    record LineFormat(boolean parseKey, String separator) {

        static LineFormat of(Map<String, String> properties) {
            for (String key : properties.keySet()) {
                if (!PROPERTIES.contains(key)) {
                    throw CliException.usage("unknown --property " + key + " (known: parse.key, key.separator)");
                }
            }
            String separator = properties.getOrDefault(KEY_SEPARATOR, "\t");
            if (separator.isEmpty()) {
                throw CliException.usage("--property key.separator must not be empty");
            }
            String parse = properties.get(PARSE_KEY);
            if (parse != null && !parse.equals("true") && !parse.equals("false")) {
                throw CliException.usage("--property parse.key must be true or false, got '" + parse + "'");
            }
            // Naming a separator only makes sense with keys, so it turns key parsing on unless told otherwise.
            boolean parseKey = parse != null ? Boolean.parseBoolean(parse) : properties.containsKey(KEY_SEPARATOR);
            return new LineFormat(parseKey, separator);
        }

        /** The record for {@code line}, or null when keys are parsed and the line has no separator. */
        ProducerRecord record(String topic, Integer partition, String line) {
            if (!parseKey) {
                return new ProducerRecord(topic, partition, null, utf8(line));
            }
            int at = line.indexOf(separator);
            if (at < 0) {
                return null;
            }
            return new ProducerRecord(topic, partition, utf8(line.substring(0, at)),
                    utf8(line.substring(at + separator.length())));
        }

        private static byte[] utf8(String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
    }

    /**
     * Counts. {@code lines} and {@code sends} belong to the reading thread; the rest is updated by the
     * producer's thread as answers arrive. A future's {@code join} may return before its callbacks ran,
     * so the report waits for one permit per send instead of trusting flush alone.
     */
    private static final class Outcome {
        long lines;
        long sends;
        final AtomicLong delivered = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final AtomicReference<String> firstFailure = new AtomicReference<>();
        final Semaphore answers = new Semaphore(0);

        void answered(Throwable error) {
            if (error == null) {
                delivered.incrementAndGet();
            } else {
                fail(describe(error));
            }
            answers.release();
        }

        void fail(String reason) {
            failed.incrementAndGet();
            firstFailure.compareAndSet(null, reason);
        }

        void awaitAnswers() {
            long remaining = sends;
            while (remaining > 0) {
                int n = (int) Math.min(remaining, Integer.MAX_VALUE);
                answers.acquireUninterruptibly(n);
                remaining -= n;
            }
        }

        int report(CliIo io, String topic, String acks) {
            io.err().println("produce: " + lines + " line" + (lines == 1 ? "" : "s") + " read, " + delivered.get()
                    + " record" + (delivered.get() == 1 ? "" : "s") + " delivered to " + topic + ", " + failed.get()
                    + " failed (acks=" + acks + ")");
            if (failed.get() > 0) {
                io.err().println("produce: first failure: " + firstFailure.get());
                return Cli.EXIT_FAILED;
            }
            return Cli.EXIT_OK;
        }
    }
}
