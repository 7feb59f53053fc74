package io.tideline.cluster.kafkatools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Kafka 4.4.0's own tools, unchanged, against a 3-node {@code scripts/cluster.sh} cluster through its Kafka
 * listener: what an operator runs on day one. Each step runs one tool as a child JVM
 * ({@link KafkaTools}), bounded, and asserts on its exit code and on what it printed; a failure shows the tool's
 * whole output. The steps share one cluster (started once: a cluster start is the largest cost) and run in order;
 * each step makes its own topic with Tideline's CLI where it does not test Kafka's topic tool, so that one failing
 * Kafka API fails the steps that use it rather than every later one. Where a step checks what Kafka's tool printed
 * against the cluster's own view it asks Tideline's CLI (gRPC), not Kafka's protocol.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "cluster.sh is a bash script that reads /proc")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaToolsTest {
    private static final int NODES = 3;
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    /** A tool's whole run, JVM start included (2-4 s of it on two busy cores). */
    private static final Duration TOOL = Duration.ofSeconds(60);
    private static final int PERF_RECORDS = 20_000;
    /**
     * The producer's default (kafka-clients enables idempotence unless told otherwise), stated so that the step
     * says what it tests: ProducerPerformance's idempotent producer (InitProducerId, sequences at the leaders).
     */
    private static final boolean IDEMPOTENCE = true;

    /** Static: one directory for the class's one cluster, there before {@code @BeforeAll}. */
    @TempDir
    static Path dir;

    private ScriptCluster cluster;
    private KafkaTools kafka;
    private List<Long> nodePids = List.of();
    private String bootstrap;
    private Path adminConfig;

    @BeforeAll
    void startCluster() throws Exception {
        assertTrue(Files.isExecutable(REPO.resolve("scripts/cluster.sh")), "run from the cluster-tests module");
        cluster = new ScriptCluster(REPO, dir, NODES);
        kafka = KafkaTools.fromBuild(REPO, dir, new ChildProcess(REPO, Files.createDirectories(dir.resolve("tools")),
                Map.of()));
        nodePids = cluster.startAndRecordPids();
        bootstrap = cluster.kafkaBootstrap();
        // The admin tools' client: a call that cannot complete fails within the tool's bound, with Kafka's reason.
        adminConfig = Files.writeString(dir.resolve("admin.properties"),
                "default.api.timeout.ms=30000\nrequest.timeout.ms=15000\n");
    }

    @AfterAll
    void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.stopLeavingNothing(nodePids);
        }
    }

    /** kafka-topics.sh --create (RF 3, 3 partitions, a topic config) and --describe, as our CLI describes it. */
    @Test
    @Order(1)
    void topicCommandCreatesATopicAndDescribesItAsTheClusterSees() throws Exception {
        ChildProcess.Result create = kafka.run(TOOL, KafkaTools.TOPIC_COMMAND, "--bootstrap-server", bootstrap,
                "--command-config", adminConfig.toString(), "--create", "--topic", "described", "--partitions", "3",
                "--replication-factor", "3", "--config", "min.insync.replicas=2").assertSucceeded();
        assertTrue(create.stdout().contains("Created topic described."), create.toString());

        // Kafka's tool does not wait for leaders; the comparison waits until every partition has its full ISR.
        Awaitility.await("TopicCommand --describe as the cluster sees it").atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
                    ChildProcess.Result describe = succeededOrStop(kafka.run(TOOL, KafkaTools.TOPIC_COMMAND,
                            "--bootstrap-server", bootstrap, "--command-config", adminConfig.toString(), "--describe",
                            "--topic", "described"));
                    String header = describe.stdout().lines().filter(l -> l.startsWith("Topic: described\t"))
                            .findFirst().orElseThrow(() -> new AssertionError("no topic line: " + describe));
                    assertTrue(header.contains("\tPartitionCount: 3\t") && header.contains("\tReplicationFactor: 3\t")
                            && header.contains("min.insync.replicas=2"), describe.toString());
                    Map<Integer, PartitionLine> theirs = PartitionLine.parse(describe.stdout(), "described");
                    ChildProcess.Result ours = succeededOrStop(cluster.tideline(TOOL, "admin", "--bootstrap-server",
                            cluster.grpcBootstrap(), "topics", "--describe", "--topic", "described"));
                    Map<Integer, PartitionLine> expected = PartitionLine.parse(ours.stdout(), "described");
                    assertEquals(Set.of(0, 1, 2), expected.keySet(), ours.toString());
                    for (PartitionLine p : expected.values()) {
                        assertEquals(3, p.isr().size(), "full ISR first: " + ours);
                    }
                    assertEquals(expected, theirs, "Kafka's TopicCommand:\n" + describe + "\nTideline's CLI:\n" + ours);
                });
    }

    /** kafka-producer-perf-test.sh with acks=all: every record sent, and the log end offsets add up to them. */
    @Test
    @Order(2)
    void producerPerformanceSendsEveryRecordWithAcksAll() throws Exception {
        createTopic("perf", 3, 3);
        ChildProcess.Result perf = kafka.run(Duration.ofSeconds(120), KafkaTools.PRODUCER_PERFORMANCE, "--topic", "perf",
                "--num-records", String.valueOf(PERF_RECORDS), "--record-size", "100", "--throughput", "-1",
                "--bootstrap-server", bootstrap, "--command-property", "acks=all", "enable.idempotence=" + IDEMPOTENCE,
                "delivery.timeout.ms=60000").assertSucceeded();
        assertTrue(Pattern.compile("(?m)^" + PERF_RECORDS + " records sent, [0-9.]+ records/sec .* 99\\.9th\\.$")
                .matcher(perf.stdout()).find(), perf.toString());

        Map<Integer, Long> ends = endOffsets("perf", -1);
        assertEquals(Set.of(0, 1, 2), ends.keySet(), ends.toString());
        assertEquals(PERF_RECORDS, ends.values().stream().mapToLong(Long::longValue).sum(), ends.toString());
    }

    /** kafka-console-consumer.sh on one partition prints exactly that partition's records, in order. */
    @Test
    @Order(3)
    void consoleConsumerPrintsExactlyOnePartitionsRecords() throws Exception {
        createTopic("lines", 2, 3);
        List<String> zero = List.of("zero-1", "zero-2", "zero-3", "zero-4", "zero-5");
        produceWithOurCli("lines", 0, zero);
        produceWithOurCli("lines", 1, List.of("one-1", "one-2", "one-3"));

        ChildProcess.Result consumed = consoleConsumer("lines", 0, zero.size());
        assertEquals(zero, consumed.stdout().lines().toList(), consumed.toString());
        assertTrue(consumed.stderr().contains("Processed a total of 5 messages"), consumed.toString());
    }

    /** kafka-delete-records.sh with Kafka's offset JSON file: the low watermark it prints, and what is left. */
    @Test
    @Order(4)
    void deleteRecordsCommandPrintsTheNewLowWatermark() throws Exception {
        Path offsets = Files.writeString(dir.resolve("delete-records.json"),
                "{\"partitions\":[{\"topic\":\"lines\",\"partition\":0,\"offset\":2}],\"version\":1}");
        ChildProcess.Result deleted = kafka.run(TOOL, KafkaTools.DELETE_RECORDS, "--bootstrap-server", bootstrap,
                "--command-config", adminConfig.toString(), "--offset-json-file", offsets.toString()).assertSucceeded();
        assertTrue(deleted.stdout().contains("Records delete operation completed:"), deleted.toString());
        assertTrue(deleted.stdout().lines().anyMatch("partition: lines-0\tlow_watermark: 2"::equals), deleted.toString());

        assertEquals(Map.of(0, 2L, 1, 0L), endOffsets("lines", -2), "earliest offsets");
        ChildProcess.Result rest = consoleConsumer("lines", 0, 3);
        assertEquals(List.of("zero-3", "zero-4", "zero-5"), rest.stdout().lines().toList(), rest.toString());
    }

    /**
     * kafka-consumer-perf-test.sh in a group consumes every record the producer step wrote; kafka-consumer-groups.sh
     * then shows the group's committed offsets at the log end (lag 0), and --reset-offsets --to-earliest --execute
     * moves them to the start; --delete-offsets removes one partition's.
     */
    @Test
    @Order(5)
    void consumerPerformanceInAGroupThenConsumerGroupsDescribeAndReset() throws Exception {
        ChildProcess.Result perf = kafka.run(Duration.ofSeconds(120), KafkaTools.CONSUMER_PERFORMANCE,
                "--bootstrap-server", bootstrap, "--topic", "perf", "--num-records", String.valueOf(PERF_RECORDS),
                "--group", "perf-group", "--timeout", "30000").assertSucceeded();
        String row = perf.stdout().lines().filter(l -> l.matches("^\\d{4}-\\d{2}-\\d{2} .*")).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no result row: " + perf));
        assertEquals(String.valueOf(PERF_RECORDS), row.split(",")[4].strip(), "data.consumed.in.nMsg: " + perf);

        Map<Integer, Long> ends = endOffsets("perf", -1);
        List<GroupRow> committed = describeGroup("perf-group");
        assertEquals(Set.of(0, 1, 2), committed.stream().map(GroupRow::partition).collect(Collectors.toSet()));
        for (GroupRow r : committed) {
            assertEquals(ends.get(r.partition()), r.currentOffset(), "committed at the log end: " + committed);
            assertEquals(ends.get(r.partition()), r.logEndOffset(), committed.toString());
            assertEquals(0, r.lag(), committed.toString());
        }

        ChildProcess.Result reset = kafka.run(TOOL, KafkaTools.CONSUMER_GROUPS, "--bootstrap-server", bootstrap,
                "--command-config", adminConfig.toString(), "--reset-offsets", "--group", "perf-group", "--topic",
                "perf", "--to-earliest", "--execute").assertSucceeded();
        Map<Integer, Long> newOffsets = new TreeMap<>();
        Matcher m = Pattern.compile("(?m)^perf-group\\s+perf\\s+(\\d+)\\s+(\\d+)\\s*$").matcher(reset.stdout());
        while (m.find()) {
            newOffsets.put(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
        }
        assertEquals(Map.of(0, 0L, 1, 0L, 2, 0L), newOffsets, reset.toString());
        for (GroupRow r : describeGroup("perf-group")) {
            assertEquals(0, r.currentOffset(), "reset to the earliest offset");
            assertEquals(ends.get(r.partition()), r.lag(), "the whole partition to consume again");
        }

        ChildProcess.Result deleted = kafka.run(TOOL, KafkaTools.CONSUMER_GROUPS, "--bootstrap-server", bootstrap,
                "--command-config", adminConfig.toString(), "--delete-offsets", "--group", "perf-group", "--topic",
                "perf:0").assertSucceeded();
        assertTrue(Pattern.compile("(?m)^perf\\s+0\\s+Successful\\s*$").matcher(deleted.stdout()).find(),
                deleted.toString());
        assertEquals(Set.of(1, 2), describeGroup("perf-group", 2).stream().map(GroupRow::partition)
                .collect(Collectors.toSet()), "partition 0's offset is gone, the others stay");
    }

    /**
     * kafka-reassign-partitions.sh --execute with a reassignment JSON file (one replica to the third node, with a
     * throttle), then --verify until Kafka's tool says it is complete; it then clears the throttles, and the
     * cluster shows the new replicas in the ISR.
     */
    @Test
    @Order(6)
    void reassignPartitionsMovesAReplicaAndVerifiesIt() throws Exception {
        cluster.tideline(TOOL, "admin", "--bootstrap-server", cluster.grpcBootstrap(), "topics", "--create", "--topic",
                "moved", "--replica-assignment", "1:2").assertSucceeded();
        produceWithOurCli("moved", 0, List.of("a", "b", "c", "d"));
        Path plan = Files.writeString(dir.resolve("reassignment.json"),
                "{\"version\":1,\"partitions\":[{\"topic\":\"moved\",\"partition\":0,\"replicas\":[1,3]}]}");

        ChildProcess.Result execute = kafka.run(TOOL, KafkaTools.REASSIGN_PARTITIONS, "--bootstrap-server", bootstrap,
                "--command-config", adminConfig.toString(), "--execute", "--reassignment-json-file", plan.toString(),
                "--throttle", "10000000").assertSucceeded();
        assertTrue(execute.stdout().contains("\"replicas\":[1,2]"), "the current assignment, to roll back: " + execute);
        assertTrue(execute.stdout().contains("The inter-broker throttle limit was set to 10000000 B/s"),
                execute.toString());
        assertTrue(execute.stdout().contains("Successfully started partition reassignment for moved-0"),
                execute.toString());

        ChildProcess.Result[] verified = new ChildProcess.Result[1];
        Awaitility.await("reassignment of moved-0 complete").atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
                    verified[0] = succeededOrStop(kafka.run(TOOL, KafkaTools.REASSIGN_PARTITIONS, "--bootstrap-server",
                            bootstrap, "--command-config", adminConfig.toString(), "--verify", "--reassignment-json-file",
                            plan.toString()));
                    assertTrue(verified[0].stdout().contains("Reassignment of partition moved-0 is completed."),
                            verified[0].toString());
                });
        // Once nothing is in progress --verify lifts the throttles it set (Kafka's tool says which).
        assertTrue(verified[0].stdout().contains("Clearing broker-level throttles on brokers 1,2,3"), verified[0].toString());
        assertTrue(verified[0].stdout().contains("Clearing topic-level throttles on topic moved"), verified[0].toString());

        ChildProcess.Result ours = cluster.tideline(TOOL, "admin", "--bootstrap-server", cluster.grpcBootstrap(),
                "topics", "--describe", "--topic", "moved").assertSucceeded();
        PartitionLine moved = PartitionLine.parse(ours.stdout(), "moved").get(0);
        assertEquals(List.of(1, 3), moved.replicas(), ours.toString());
        assertEquals(Set.of(1, 3), moved.isr(), ours.toString());
    }

    // -------------------------------------------------------------------------------------------------------------

    /**
     * Inside an Awaitility wait: a tool that failed (non-zero exit) ends the wait at once with its output, rather than
     * being tried again until the bound (Awaitility retries only assertion errors).
     */
    private static ChildProcess.Result succeededOrStop(ChildProcess.Result result) {
        if (result.exitCode() != 0) {
            throw new IllegalStateException("exit " + result.exitCode() + " from " + result);
        }
        return result;
    }

    private void createTopic(String topic, int partitions, int replicationFactor) throws Exception {
        // Tideline's CLI returns once every partition has a leader, so the tool step after it needs no wait.
        cluster.tideline(TOOL, "admin", "--bootstrap-server", cluster.grpcBootstrap(), "topics", "--create", "--topic",
                topic, "--partitions", String.valueOf(partitions), "--replication-factor", String.valueOf(replicationFactor),
                "--config", "min.insync.replicas=2").assertSucceeded();
    }

    private void produceWithOurCli(String topic, int partition, List<String> values) throws Exception {
        Path input = Files.writeString(Files.createTempFile(dir, "records", ".txt"), String.join("\n", values) + "\n");
        cluster.tidelineWithInput(TOOL, input, "produce", "--bootstrap-server", cluster.grpcBootstrap(), "--topic", topic,
                "--partition", String.valueOf(partition), "--acks", "all").assertSucceeded();
    }

    private ChildProcess.Result consoleConsumer(String topic, int partition, int maxMessages) throws Exception {
        return kafka.run(TOOL, KafkaTools.CONSOLE_CONSUMER, "--bootstrap-server", bootstrap, "--topic", topic,
                "--partition", String.valueOf(partition), "--offset", "earliest", "--max-messages",
                String.valueOf(maxMessages), "--timeout-ms", "30000").assertSucceeded();
    }

    /** GetOffsetShell (kafka-get-offsets.sh): each partition's offset at {@code --time} (-1 latest, -2 earliest). */
    private Map<Integer, Long> endOffsets(String topic, int time) throws Exception {
        ChildProcess.Result offsets = kafka.run(TOOL, KafkaTools.GET_OFFSET_SHELL, "--bootstrap-server", bootstrap,
                "--command-config", adminConfig.toString(), "--topic", topic, "--time", String.valueOf(time))
                .assertSucceeded();
        Map<Integer, Long> byPartition = new TreeMap<>();
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(topic) + ":(\\d+):(\\d+)$").matcher(offsets.stdout());
        while (m.find()) {
            byPartition.put(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
        }
        assertFalse(byPartition.isEmpty(), offsets.toString());
        return byPartition;
    }

    /** One partition's row of kafka-consumer-groups.sh --describe. */
    record GroupRow(int partition, long currentOffset, long logEndOffset, long lag) {
    }

    private List<GroupRow> describeGroup(String group) throws Exception {
        return describeGroup(group, 3);
    }

    private List<GroupRow> describeGroup(String group, int partitionsCommitted) throws Exception {
        ChildProcess.Result describe = kafka.run(TOOL, KafkaTools.CONSUMER_GROUPS, "--bootstrap-server", bootstrap,
                "--command-config", adminConfig.toString(), "--describe", "--group", group).assertSucceeded();
        // The group is empty by now (its one consumer has closed): Kafka's tool says so, and shows the offsets.
        assertTrue(describe.stderr().contains("Consumer group '" + group + "' has no active members."),
                describe.toString());
        List<GroupRow> rows = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(group) + "\\s+perf\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s")
                .matcher(describe.stdout());
        while (m.find()) {
            rows.add(new GroupRow(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
                    Long.parseLong(m.group(4))));
        }
        assertEquals(partitionsCommitted, rows.size(), describe.toString());
        return rows;
    }

    /** A partition line of the topic-describe layout Kafka's TopicCommand and Tideline's CLI share. */
    record PartitionLine(int partition, int leader, List<Integer> replicas, Set<Integer> isr) {
        private static final Pattern LINE = Pattern.compile(
                "^\\tTopic: (\\S+)\\tPartition: (\\d+)\\tLeader: (-?\\d+|none)\\tReplicas: ([\\d,]*)\\tIsr: ([\\d,]*)(\\t.*)?$");

        /** By partition; the ISR as a set, since its order is not the assignment's. */
        static Map<Integer, PartitionLine> parse(String output, String topic) {
            Map<Integer, PartitionLine> lines = new TreeMap<>();
            for (String line : output.lines().toList()) {
                Matcher m = LINE.matcher(line);
                if (m.matches() && m.group(1).equals(topic)) {
                    int partition = Integer.parseInt(m.group(2));
                    int leader = m.group(3).equals("none") ? -1 : Integer.parseInt(m.group(3));
                    lines.put(partition, new PartitionLine(partition, leader, ids(m.group(4)),
                            Set.copyOf(ids(m.group(5)))));
                }
            }
            return lines;
        }

        private static List<Integer> ids(String list) {
            return list.isEmpty() ? List.of()
                    : java.util.Arrays.stream(list.split(",")).map(Integer::parseInt).toList();
        }
    }
}
