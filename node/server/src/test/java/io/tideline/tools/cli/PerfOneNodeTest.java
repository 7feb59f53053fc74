package io.tideline.tools.cli;

import static io.tideline.tools.cli.CliRun.admin;
import static io.tideline.tools.cli.CliRun.consume;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.node.server.NodeTestCluster;
import io.tideline.tools.cli.CliRun.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code perf produce}, {@code perf consume} and {@code perf e2e} against one node in this JVM, run as
 * {@code main} would run them. The summary lines are parsed in Kafka's formats and their figures checked
 * against each other and against what the topic holds afterwards. Every test uses its own topics, so
 * they share the node. No assertion depends on how fast the machine is.
 */
class PerfOneNodeTest {
    /** Kafka's ProducerPerformance total line. */
    static final Pattern PRODUCE_TOTAL = Pattern.compile("(\\d+)( steady state)? records sent, (\\d+\\.\\d{6}) records/sec "
            + "\\((\\d+\\.\\d{2}) MB/sec\\), (\\d+\\.\\d{2}) ms avg latency, (\\d+\\.\\d{2}) ms max latency, (\\d+) ms 50th, "
            + "(\\d+) ms 95th, (\\d+) ms 99th, (\\d+) ms 99.9th\\.");
    /** Kafka's ProducerPerformance window line. */
    static final Pattern PRODUCE_WINDOW = Pattern.compile("(\\d+) records sent, \\d+\\.\\d records/sec \\(\\d+\\.\\d{2} MB/sec\\), "
            + "\\d+\\.\\d ms avg latency, \\d+\\.\\d ms max latency\\.");
    static final String CONSUME_HEADER = "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, "
            + "nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec";
    static final String DETAILED_HEADER = "time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, "
            + "nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec";
    static final Pattern DATE = Pattern.compile("\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}:\\d{3}");
    static final Pattern E2E_PROGRESS = Pattern.compile("(\\d+)\t(\\d+\\.\\d+(E-?\\d+)?)");
    static final Pattern E2E_AVG = Pattern.compile("Avg latency: (\\d+\\.\\d{4}) ms");
    static final Pattern E2E_PERCENTILES = Pattern.compile("Percentiles: 50th = (\\d+), 99th = (\\d+), 99\\.9th = (\\d+)");
    private static final double MIB = 1024.0 * 1024.0;

    @TempDir
    static Path dir;
    private static NodeTestCluster cluster;
    private static String bootstrap;

    @BeforeAll
    static void startNode() throws Exception {
        cluster = new NodeTestCluster(dir.resolve("cluster"), 1, Map.of()).startAll();
        bootstrap = cluster.bootstrapServers();
    }

    @AfterAll
    static void stopNode() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void everyRecordProducedIsConsumedOnceAndTheSummaryFiguresAgree() {
        createTopic("counted", 3);
        Result produced = perf("produce", "--bootstrap-server", bootstrap, "--topic", "counted", "--num-records", "3000",
                "--record-size", "200", "--throughput", "-1", "--reporting-interval", "50",
                "--command-property", "acks=all", "linger.ms=2");
        assertEquals(0, produced.exitCode(), produced.toString());
        assertEquals("", produced.err());
        List<String> lines = produced.outLines();
        long windowed = 0;
        for (String line : lines.subList(0, lines.size() - 1)) {
            Matcher w = PRODUCE_WINDOW.matcher(line);
            assertTrue(w.matches(), "window line: " + line);
            windowed += Long.parseLong(w.group(1));
        }
        assertTrue(windowed <= 3000, "window lines count each answer at most once: " + windowed);
        Total total = Total.parse(lines.get(lines.size() - 1));
        assertEquals(3000, total.records);
        assertFalse(total.steadyState);
        assertEquals(total.recordsPerSec * 200 / MIB, total.mbPerSec, 0.006, "MB/sec is records/sec times 200 bytes");
        total.assertOrdered();

        Result consumed = perf("consume", "--bootstrap-server", bootstrap, "--topic", "counted", "--num-records", "3000");
        assertEquals(0, consumed.exitCode(), consumed.toString());
        assertEquals(List.of(CONSUME_HEADER), consumed.outLines().subList(0, 1));
        Row row = Row.parse(consumed.outLines().get(1));
        assertEquals(2, consumed.outLines().size(), consumed.toString());
        assertEquals(3000, row.records);
        assertEquals(String.format(Locale.ROOT, "%.4f", 3000 * 200 / MIB), row.fields[2], "data.consumed.in.MB");
        assertEquals("0", row.fields[6], "no group, no rebalance time");
        assertEquals(row.fields[3], row.fields[8], "with no join time MB.sec and fetch.MB.sec agree");

        // Nothing beyond the 3000: asking for more reads exactly those and then times out, in Kafka's words.
        Result more = perf("consume", "--bootstrap-server", bootstrap, "--topic", "counted", "--num-records", "3001",
                "--timeout", "300", "--hide-header");
        assertEquals(0, more.exitCode(), more.toString());
        assertEquals(2, more.outLines().size(), more.toString());
        assertEquals("WARNING: Exiting before consuming the expected number of records: timeout (300 ms) exceeded. "
                + "You can use the --timeout option to increase the timeout.", more.outLines().get(0));
        assertEquals(3000, Row.parse(more.outLines().get(1)).records);
    }

    @Test
    void aThrottledRunStaysAtOrBelowItsRate() {
        createTopic("paced", 1);
        Result r = perf("produce", "--bootstrap-server", bootstrap, "--topic", "paced", "--num-records", "400",
                "--record-size", "100", "--throughput", "1000");
        assertEquals(0, r.exitCode(), r.toString());
        Total total = Total.parse(r.outLines().get(r.outLines().size() - 1));
        assertEquals(400, total.records);
        // Record 399 is not sent before 0.399 s have passed, whatever the machine does. The clock counts whole
        // milliseconds, so 399 ms is possible, and the line prints the rate rounded to six decimals (1002.506266
        // for 400/0.399 = 1002.5062656...): half a unit of the last printed digit is allowed for that rounding.
        assertTrue(total.recordsPerSec <= 400 / 0.399 + 0.5e-6, "at most the rate asked for: " + total.recordsPerSec);
    }

    @Test
    void warmUpRecordsAreLeftOutOfASecondSteadyStateLine() {
        createTopic("warm", 1);
        Result r = perf("produce", "--bootstrap-server", bootstrap, "--topic", "warm", "--num-records", "500",
                "--warmup-records", "100", "--record-size", "64", "--throughput", "-1");
        assertEquals(0, r.exitCode(), r.toString());
        List<String> lines = r.outLines();
        assertEquals("Warmup first 100 records. Steady state results will print after the complete test summary.",
                lines.get(0));
        Total all = Total.parse(lines.get(lines.size() - 2));
        Total steady = Total.parse(lines.get(lines.size() - 1));
        assertEquals(500, all.records);
        assertFalse(all.steadyState);
        assertEquals(400, steady.records);
        assertTrue(steady.steadyState, lines.get(lines.size() - 1));
        steady.assertOrdered();
    }

    @Test
    void monotonicPayloadsArriveInOrder() {
        createTopic("monotonic", 1);
        Result r = perf("produce", "--bootstrap-server", bootstrap, "--topic", "monotonic", "--num-records", "20",
                "--payload-monotonic", "--throughput", "-1");
        assertEquals(0, r.exitCode(), r.toString());
        Result all = consume("--bootstrap-server", bootstrap, "--topic", "monotonic", "--from-beginning",
                "--max-messages", "20");
        assertEquals(IntStream.range(0, 20).mapToObj(Integer::toString).toList(), all.outLines());
    }

    @Test
    void payloadFileAndKeyRangeShapeTheRecords() throws Exception {
        createTopic("shaped", 2);
        Path payloads = Files.writeString(dir.resolve("payloads.txt"), "alpha|beta|gamma|");
        Result r = perf("produce", "--bootstrap-server", bootstrap, "--topic", "shaped", "--num-records", "60",
                "--payload-file", payloads.toString(), "--payload-delimiter", "|", "--key-distribution", "range",
                "--record-key-range", "5", "--throughput", "-1");
        assertEquals(0, r.exitCode(), r.toString());
        assertEquals("Reading payloads from: " + payloads.toAbsolutePath(), r.outLines().get(0));
        assertEquals("Number of records read: 3", r.outLines().get(1), "the empty payload after the last | is dropped");
        assertEquals(60, Total.parse(r.outLines().get(r.outLines().size() - 1)).records);

        Result all = consume("--bootstrap-server", bootstrap, "--topic", "shaped", "--from-beginning",
                "--max-messages", "60", "--property", "print.key=true", "--property", "key.separator=:");
        assertEquals(60, all.outLines().size(), all.toString());
        Set<String> keys = new HashSet<>();
        for (String line : all.outLines()) {
            String[] kv = line.split(":", 2);
            keys.add(kv[0]);
            assertTrue(Set.of("alpha", "beta", "gamma").contains(kv[1]), line);
        }
        assertEquals(Set.of("0", "1", "2", "3", "4"), keys, "range keys cycle through 0..4");
    }

    @Test
    void recordsTheProducerRefusesAreCountedAsFailedAndExitOne() {
        createTopic("too-large", 1);
        Result r = perf("produce", "--bootstrap-server", bootstrap, "--topic", "too-large", "--num-records", "3",
                "--record-size", "2000000", "--throughput", "-1");
        assertEquals(1, r.exitCode(), r.toString());
        assertTrue(r.singleErrorLine().startsWith("perf produce: 3 of 3 records failed; the first: MESSAGE_TOO_LARGE"),
                r.err());
        assertTrue(r.outLines().get(0).startsWith("0 records sent, 0.000000 records/sec (0.00 MB/sec), NaN ms avg latency"),
                r.out());
    }

    @Test
    void settingsTheProducerDoesNotKnowAreNamedOnceAndIgnored() throws Exception {
        createTopic("kafka-keys", 1);
        Path config = Files.writeString(dir.resolve("producer.properties"), "compression.type=lz4\nlinger.ms=1\n");
        Result r = perf("produce", "--bootstrap-server", bootstrap, "--topic", "kafka-keys", "--num-records", "10",
                "--record-size", "10", "--throughput", "-1", "--producer.config", config.toString(),
                "--producer-props", "enable.idempotence=false", "interceptor.classes=Audit", "buffer.memory=1048576");
        assertEquals(0, r.exitCode(), r.toString());
        // enable.idempotence is one of the Tideline producer's own keys: known, so not named.
        assertEquals("perf produce: WARN the Tideline producer does not know compression.type, interceptor.classes; ignored",
                r.singleErrorLine());
        assertEquals(10, Total.parse(r.outLines().get(r.outLines().size() - 1)).records);
    }

    @Test
    void detailedStatsPrintRowsInsteadOfTheTotal() {
        createTopic("detailed", 2);
        assertEquals(0, perf("produce", "--bootstrap-server", bootstrap, "--topic", "detailed", "--num-records", "2000",
                "--record-size", "100", "--throughput", "-1").exitCode());
        Result r = perf("consume", "--bootstrap-server", bootstrap, "--topic", "detailed", "--num-records", "2000",
                "--show-detailed-stats", "--reporting-interval", "1", "--command-property", "max.poll.records=20",
                "--group", "ignored", "--socket-buffer-size", "65536");
        assertEquals(0, r.exitCode(), r.toString());
        List<String> lines = r.outLines();
        assertEquals(DETAILED_HEADER, lines.get(0));
        assertTrue(lines.size() > 1, "at least one interval row: " + r);
        long last = 0;
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(", ");
            assertEquals(10, f.length, line);
            assertTrue(DATE.matcher(f[0]).matches(), line);
            assertEquals("0", f[1], "threadId");
            long records = Long.parseLong(f[4]);
            assertTrue(records > last && records <= 2000, line);
            last = records;
        }
    }

    @Test
    void consumeIncludeReadsEveryMatchingTopicFromLatestOrEarliest() {
        createTopic("inc-a", 1);
        createTopic("inc-b", 2);
        for (String topic : List.of("inc-a", "inc-b")) {
            assertEquals(0, perf("produce", "--bootstrap-server", bootstrap, "--topic", topic, "--num-records", "50",
                    "--record-size", "10", "--throughput", "-1").exitCode());
        }
        Result all = perf("consume", "--bootstrap-server", bootstrap, "--include", "inc-.*", "--num-records", "100",
                "--hide-header");
        assertEquals(0, all.exitCode(), all.toString());
        assertEquals(100, Row.parse(all.outLines().get(0)).records);

        Result latest = perf("consume", "--bootstrap-server", bootstrap, "--include", "inc-.*", "--num-records", "1",
                "--from-latest", "--timeout", "200", "--hide-header");
        assertEquals(0, latest.exitCode(), latest.toString());
        assertEquals(0, Row.parse(latest.outLines().get(1)).records, "nothing new after the high watermark");
    }

    @Test
    void e2eCreatesAMissingTopicAndReadsEachRecordBackOnce() {
        Result r = perf("e2e", "--bootstrap-server", bootstrap, "--topic", "e2e-new", "--num-records", "30",
                "--producer-acks", "all", "--record-size", "100", "--record-key-size", "8");
        assertEquals(0, r.exitCode(), r.toString());
        List<String> lines = r.outLines();
        assertEquals(List.of("Topic \"e2e-new\" does not exist. Will create topic with 1 partition(s) and replication "
                + "factor = 1"), lines.subList(0, 1));
        Matcher first = E2E_PROGRESS.matcher(lines.get(1));
        assertTrue(first.matches(), lines.get(1));
        assertEquals("0", first.group(1), "every 1000th record's latency, from the first");
        Matcher avg = E2E_AVG.matcher(lines.get(2));
        assertTrue(avg.matches(), lines.get(2));
        Matcher p = E2E_PERCENTILES.matcher(lines.get(3));
        assertTrue(p.matches(), lines.get(3));
        assertTrue(Integer.parseInt(p.group(1)) <= Integer.parseInt(p.group(2))
                && Integer.parseInt(p.group(2)) <= Integer.parseInt(p.group(3)), lines.get(3));
        assertEquals(4, lines.size(), r.toString());

        // The positional form, on the topic that now exists: no creation line, 5 more records.
        Result positional = perf("e2e", bootstrap, "e2e-new", "5", "1", "10");
        assertEquals(0, positional.exitCode(), positional.toString());
        assertTrue(positional.outLines().get(0).startsWith("0\t"), positional.out());
        assertEquals(3, positional.outLines().size(), positional.toString());

        Result all = perf("consume", "--bootstrap-server", bootstrap, "--topic", "e2e-new", "--num-records", "36",
                "--timeout", "300", "--hide-header");
        assertEquals(35, Row.parse(all.outLines().get(all.outLines().size() - 1)).records,
                "each e2e record was written once: " + all);
    }

    @Test
    void anUnknownTopicIsOneLineAndExitOne() {
        Result p = perf("produce", "--bootstrap-server", bootstrap, "--topic", "nowhere", "--num-records", "1",
                "--record-size", "1", "--throughput", "-1");
        assertEquals(1, p.exitCode(), p.toString());
        assertEquals("perf produce: unknown topic 'nowhere'", p.singleErrorLine());
        assertEquals("", p.out());
        Result c = perf("consume", "--bootstrap-server", bootstrap, "--topic", "nowhere", "--num-records", "1");
        assertEquals(1, c.exitCode(), c.toString());
        assertEquals("perf consume: unknown topic 'nowhere'", c.singleErrorLine());
        Result i = perf("consume", "--bootstrap-server", bootstrap, "--include", "nowhere-.*", "--num-records", "1");
        assertEquals(1, i.exitCode(), i.toString());
        assertEquals("perf consume: no topic matches --include nowhere-.*", i.singleErrorLine());
    }

    @Test
    void badArgumentsAreOneLineAndExitTwo() throws Exception {
        Path empty = Files.writeString(dir.resolve("empty.txt"), "");
        List<List<String>> cases = new ArrayList<>();
        List<String> produce = List.of("produce", "--bootstrap-server", bootstrap, "--topic", "t");
        cases.add(List.of("produce", "--topic", "t", "--num-records", "1", "--record-size", "1", "--throughput", "-1"));
        cases.add(with(produce, "--num-records", "1", "--throughput", "-1"));
        cases.add(with(produce, "--num-records", "1", "--record-size", "1", "--payload-monotonic", "--throughput", "-1"));
        cases.add(with(produce, "--num-records", "0", "--record-size", "1", "--throughput", "-1"));
        cases.add(with(produce, "--num-records", "1", "--record-size", "0", "--throughput", "-1"));
        cases.add(with(produce, "--num-records", "1", "--record-size", "1"));
        cases.add(with(produce, "--num-records", "1", "--record-size", "1", "--throughput", "0"));
        cases.add(with(produce, "--num-records", "10", "--record-size", "1", "--throughput", "-1", "--warmup-records", "10"));
        cases.add(with(produce, "--num-records", "1", "--record-size", "1", "--throughput", "-1", "--reporting-interval", "0"));
        cases.add(with(produce, "--num-records", "1", "--record-size", "1", "--throughput", "-1", "--key-distribution", "range"));
        cases.add(with(produce, "--num-records", "1", "--record-size", "1", "--throughput", "-1", "--record-key-range", "3"));
        cases.add(with(produce, "--num-records", "1", "--record-size", "1", "--throughput", "-1", "--key-distribution", "zipf",
                "--record-key-range", "3"));
        cases.add(with(produce, "--num-records", "1", "--record-size", "1", "--throughput", "-1", "--transactional-id", "tx"));
        cases.add(with(produce, "--num-records", "1", "--record-size", "1", "--throughput", "-1", "--command-property",
                "transactional.id=tx"));
        cases.add(with(produce, "--num-records", "1", "--record-size", "1", "--throughput", "-1", "--print-metrics"));
        cases.add(with(produce, "--num-records", "1", "--record-size", "1", "--throughput", "-1", "--command-property",
                "acks=2"));
        cases.add(with(produce, "--num-records", "1", "--record-size", "1", "--throughput", "-1", "--command-property",
                "linger.ms=1", "--producer-props", "linger.ms=2"));
        cases.add(with(produce, "--num-records", "1", "--record-size", "1", "--throughput", "-1", "--command-property",
                "buffer.memory=lots"));
        cases.add(with(produce, "--num-records", "1", "--record-size", "1", "--throughput", "-1", "--command-property",
                "noequals"));
        cases.add(with(produce, "--num-records", "1", "--payload-file", empty.toString(), "--throughput", "-1"));
        cases.add(with(produce, "--num-records", "1", "--record-size", "1", "--throughput", "-1", "--command-config",
                dir.resolve("absent.properties").toString()));

        List<String> consume = List.of("consume", "--bootstrap-server", bootstrap);
        cases.add(with(consume, "--num-records", "1"));
        cases.add(with(consume, "--topic", "t"));
        cases.add(with(consume, "--topic", "t", "--include", "t.*", "--num-records", "1"));
        cases.add(with(consume, "--topic", "t", "--num-records", "1", "--messages", "1"));
        cases.add(with(consume, "--topic", "t", "--num-records", "1", "--reporting-interval", "0"));
        cases.add(with(consume, "--topic", "t", "--num-records", "1", "--print-metrics"));
        cases.add(with(consume, "--topic", "t", "--num-records", "1", "--date-format", "yyyy-qq"));
        cases.add(with(consume, "--include", "(", "--num-records", "1"));
        cases.add(with(consume, "--topic", "t", "--num-records", "1", "--command-property", "max.poll.records=0"));
        cases.add(List.of("consume", "--topic", "t", "--num-records", "1"));

        List<String> e2e = List.of("e2e", "--bootstrap-server", bootstrap, "--topic", "t");
        cases.add(with(e2e, "--num-records", "1", "--producer-acks", "0", "--record-size", "1"));
        cases.add(with(e2e, "--num-records", "0", "--producer-acks", "1", "--record-size", "1"));
        cases.add(with(e2e, "--num-records", "1", "--producer-acks", "1", "--record-size", "-1"));
        cases.add(with(e2e, "--num-records", "1", "--producer-acks", "1"));
        cases.add(with(e2e, "--num-records", "1", "--producer-acks", "1", "--record-size", "1", "--num-headers", "1"));
        cases.add(List.of("e2e", bootstrap, "t", "1", "all"));
        cases.add(List.of("e2e", bootstrap, "t", "x", "all", "1"));
        cases.add(List.of("e2e", "--topic", "t", bootstrap, "t", "1", "all", "1"));
        cases.add(List.of("bench"));
        cases.add(List.of());
        for (List<String> args : cases) {
            Result r = perf(args.toArray(String[]::new));
            assertEquals(2, r.exitCode(), args + ": " + r);
            assertEquals("", r.out(), args + ": " + r);
            String expected = args.isEmpty() || args.get(0).equals("bench") ? "perf: " : "perf " + args.get(0) + ": ";
            assertTrue(r.singleErrorLine().startsWith(expected), args + ": " + r);
        }
        assertEquals("perf produce: --warmup-records must not be negative, got -1", perf(with(produce, "--num-records", "1",
                "--record-size", "1", "--throughput", "-1", "--warmup-records", "-1").toArray(String[]::new))
                .singleErrorLine());
        assertEquals("perf e2e: Invalid number of arguments. Expected 5 or 6 positional arguments, but got 4. Usage: "
                + "bootstrap-server topic num-records producer-acks record-size [optional] command-config",
                perf("e2e", bootstrap, "t", "1", "all").singleErrorLine());
    }

    private static List<String> with(List<String> base, String... more) {
        List<String> all = new ArrayList<>(base);
        all.addAll(List.of(more));
        return all;
    }

    private static Result perf(String... args) {
        return CliRun.run(PerfCommand::run, "", args);
    }

    private static void createTopic(String name, int partitions) {
        Result r = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", name, "--partitions",
                Integer.toString(partitions), "--replication-factor", "1");
        assertEquals(0, r.exitCode(), r.toString());
    }

    /** ProducerPerformance's total line, parsed. */
    record Total(long records, boolean steadyState, double recordsPerSec, double mbPerSec, double avgMs, double maxMs,
                 int p50, int p95, int p99, int p999) {

        static Total parse(String line) {
            Matcher m = PRODUCE_TOTAL.matcher(line);
            assertTrue(m.matches(), "total line: " + line);
            return new Total(Long.parseLong(m.group(1)), m.group(2) != null, Double.parseDouble(m.group(3)),
                    Double.parseDouble(m.group(4)), Double.parseDouble(m.group(5)), Double.parseDouble(m.group(6)),
                    Integer.parseInt(m.group(7)), Integer.parseInt(m.group(8)), Integer.parseInt(m.group(9)),
                    Integer.parseInt(m.group(10)));
        }

        void assertOrdered() {
            assertTrue(p50 <= p95 && p95 <= p99 && p99 <= p999 && p999 <= maxMs, "percentiles in order: " + this);
            assertTrue(avgMs <= maxMs, "average at most the maximum: " + this);
        }
    }

    /** ConsumerPerformance's row, split at its commas. */
    record Row(String[] fields, long records) {

        static Row parse(String line) {
            String[] f = line.split(", ");
            assertEquals(10, f.length, "ten columns: " + line);
            assertTrue(DATE.matcher(f[0]).matches() && DATE.matcher(f[1]).matches(), line);
            return new Row(f, Long.parseLong(f[4]));
        }
    }
}
