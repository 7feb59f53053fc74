package io.tideline.cluster.kafkatools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
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
 * Consumer groups from outside, against a 3-node {@code scripts/cluster.sh} cluster of real node processes: Kafka's
 * own kafka-consumer-groups (ConsumerGroupCommand) on the Kafka listeners, and {@code tideline admin consumer-groups}
 * on the gRPC API, side by side over one group. A kafka-clients consumer commits part of each partition and stays
 * in the group (Stable): both tools list it and show the same lag, and both refuse to reset or delete it
 * (docs/behaviours.md B245, B246). Once it has left, Kafka's tool resets it to the earliest offsets, ours moves it
 * to an offset, and each tool deletes a group.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "cluster.sh is a bash script that reads /proc")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsumerGroupsToolsTest {
    private static final int NODES = 3;
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    /** A tool's whole run, JVM start included. */
    private static final Duration TOOL = Duration.ofSeconds(60);
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String TOPIC = "cg";
    private static final String GROUP = "cg-readers";
    /** The group our CLI creates by resetting its offsets, and deletes. */
    private static final String OURS = "cg-ours";
    private static final int RECORDS_PER_PARTITION = 10;
    /** What the consumer commits per partition: the lag is 6, 0 and 3. */
    private static final Map<Integer, Long> COMMITTED = Map.of(0, 4L, 1, 10L, 2, 7L);

    @TempDir
    static Path dir;

    private ScriptCluster cluster;
    private KafkaTools kafka;
    private List<Long> nodePids = List.of();
    private String bootstrap;
    private Path adminConfig;
    private KafkaConsumer<String, String> consumer;

    @BeforeAll
    void startCluster() throws Exception {
        cluster = new ScriptCluster(REPO, dir, NODES);
        kafka = KafkaTools.fromBuild(REPO, dir, new ChildProcess(REPO, Files.createDirectories(dir.resolve("tools")),
                Map.of()));
        nodePids = cluster.startAndRecordPids();
        bootstrap = cluster.kafkaBootstrap();
        adminConfig = Files.writeString(dir.resolve("admin.properties"),
                "default.api.timeout.ms=30000\nrequest.timeout.ms=15000\n");
        cluster.tideline(TOOL, "admin", "--bootstrap-server", cluster.grpcBootstrap(), "topics", "--create", "--topic",
                TOPIC, "--partitions", "3", "--replication-factor", "3").assertSucceeded();
        for (int p = 0; p < 3; p++) {
            List<String> values = new ArrayList<>();
            for (int i = 0; i < RECORDS_PER_PARTITION; i++) {
                values.add("p" + p + "-" + i);
            }
            Path input = Files.writeString(Files.createTempFile(dir, "records", ".txt"), String.join("\n", values) + "\n");
            cluster.tidelineWithInput(TOOL, input, "produce", "--bootstrap-server", cluster.grpcBootstrap(), "--topic",
                    TOPIC, "--partition", String.valueOf(p), "--acks", "all").assertSucceeded();
        }
    }

    @AfterAll
    void stopCluster() throws Exception {
        if (consumer != null) {
            consumer.close();
        }
        if (cluster != null) {
            cluster.stopLeavingNothing(nodePids);
        }
    }

    @Test
    @Order(1)
    void aLiveConsumerCommitsAndBothToolsListTheGroupAndShowTheSameLag() throws Exception {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "cg-client");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
        consumer.subscribe(List.of(TOPIC));
        Awaitility.await("the consumer is assigned every partition").atMost(WAIT).until(() -> {
            consumer.poll(Duration.ofMillis(200));
            return consumer.assignment().size() == 3;
        });
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        COMMITTED.forEach((p, offset) -> commit.put(new TopicPartition(TOPIC, p), new OffsetAndMetadata(offset)));
        consumer.commitSync(commit, Duration.ofSeconds(30));

        ChildProcess.Result kafkaList = kafkaGroups("--list").assertSucceeded();
        assertTrue(kafkaList.stdout().lines().anyMatch(GROUP::equals), kafkaList.toString());
        ChildProcess.Result ourList = ours("--list").assertSucceeded();
        assertTrue(ourList.stdout().lines().anyMatch(GROUP::equals), ourList.toString());

        ChildProcess.Result kafkaDescribe = kafkaGroups("--describe", "--group", GROUP).assertSucceeded();
        ChildProcess.Result ourDescribe = ours("--describe", "--group", GROUP).assertSucceeded();
        for (ChildProcess.Result describe : List.of(kafkaDescribe, ourDescribe)) {
            Map<Integer, Row> rows = rows(describe, GROUP);
            assertEquals(Set.of(0, 1, 2), rows.keySet(), describe.toString());
            for (Row r : rows.values()) {
                assertEquals(COMMITTED.get(r.partition()), r.currentOffset(), describe.toString());
                assertEquals(RECORDS_PER_PARTITION, r.logEndOffset(), describe.toString());
                assertEquals(RECORDS_PER_PARTITION - COMMITTED.get(r.partition()), r.lag(), describe.toString());
                assertTrue(r.owner().startsWith("cg-client-"), "the live member owns it: " + describe);
                assertEquals("cg-client", r.clientId(), describe.toString());
            }
        }
        ChildProcess.Result members = ours("--describe", "--group", GROUP, "--members", "--verbose").assertSucceeded();
        assertTrue(Pattern.compile("(?m)^" + GROUP + "\\s+cg-client-\\S+\\s+\\S+\\s+cg-client\\s+3\\s+cg\\(0,1,2\\)\\s*$")
                .matcher(members.stdout()).find(), members.toString());
        ChildProcess.Result state = ours("--describe", "--group", GROUP, "--state").assertSucceeded();
        assertTrue(Pattern.compile("(?m)^" + GROUP + "\\s+127\\.0\\.0\\.1:\\d+\\s+\\(\\d\\)\\s+range\\s+Stable\\s+1\\s*$")
                .matcher(state.stdout()).find(), state.toString());
    }

    @Test
    @Order(2)
    void neitherToolResetsOrDeletesAGroupWithMembers() throws Exception {
        String refusal = "Error: Assignments can only be reset if the group '" + GROUP
                + "' is inactive, but the current state is Stable.";
        ChildProcess.Result kafkaReset = kafkaGroups("--reset-offsets", "--group", GROUP, "--topic", TOPIC,
                "--to-earliest", "--execute");
        assertTrue(kafkaReset.stdout().contains(refusal), kafkaReset.toString());
        ChildProcess.Result ourReset = ours("--reset-offsets", "--group", GROUP, "--topic", TOPIC, "--to-earliest",
                "--execute");
        assertEquals(1, ourReset.exitCode(), ourReset.toString());
        assertTrue(ourReset.stderr().contains(refusal), ourReset.toString());

        ChildProcess.Result kafkaDelete = kafkaGroups("--delete", "--group", GROUP);
        assertTrue(kafkaDelete.stdout().contains("Group '" + GROUP + "' could not be deleted due to"), kafkaDelete.toString());
        assertTrue(kafkaDelete.stdout().contains("GroupNotEmptyException"), kafkaDelete.toString());
        ChildProcess.Result ourDelete = ours("--delete", "--group", GROUP);
        assertEquals(1, ourDelete.exitCode(), ourDelete.toString());
        assertTrue(ourDelete.stderr().contains("* Group '" + GROUP + "' could not be deleted due to: NON_EMPTY_GROUP"),
                ourDelete.toString());

        Map<Integer, Row> unchanged = rows(ours("--describe", "--group", GROUP).assertSucceeded(), GROUP);
        unchanged.values().forEach(r -> assertEquals(COMMITTED.get(r.partition()), r.currentOffset(), unchanged.toString()));
    }

    @Test
    @Order(3)
    void onceTheConsumerLeftKafkasToolResetsToTheEarliestAndOursToAnOffset() throws Exception {
        consumer.close();
        consumer = null;
        ChildProcess.Result kafkaReset = kafkaGroups("--reset-offsets", "--group", GROUP, "--topic", TOPIC,
                "--to-earliest", "--execute").assertSucceeded();
        assertEquals(Map.of(0, 0L, 1, 0L, 2, 0L), newOffsets(kafkaReset, GROUP), kafkaReset.toString());
        ChildProcess.Result emptied = ours("--describe", "--group", GROUP).assertSucceeded();
        assertTrue(emptied.stderr().contains("Consumer group '" + GROUP + "' has no active members."), emptied.toString());
        for (Row r : rows(emptied, GROUP).values()) {
            assertEquals(0, r.currentOffset(), emptied.toString());
            assertEquals(RECORDS_PER_PARTITION, r.lag(), emptied.toString());
            assertEquals("-", r.owner(), "no member holds it now: " + emptied);
        }

        // Without --execute ours, as Kafka's, only prints the plan, with a warning.
        ChildProcess.Result dryRun = ours("--reset-offsets", "--group", GROUP, "--topic", TOPIC + ":1", "--to-offset",
                "5").assertSucceeded();
        assertTrue(dryRun.stderr().contains("No action will be performed as the --execute option is missing"),
                dryRun.toString());
        assertEquals(Map.of(1, 5L), newOffsets(dryRun, GROUP), dryRun.toString());
        assertEquals(0, rows(ours("--describe", "--group", GROUP).assertSucceeded(), GROUP).get(1).currentOffset());

        ChildProcess.Result executed = ours("--reset-offsets", "--group", GROUP, "--topic", TOPIC + ":1", "--to-offset",
                "5", "--execute").assertSucceeded();
        assertEquals(Map.of(1, 5L), newOffsets(executed, GROUP), executed.toString());
        Map<Integer, Row> kafkaView = rows(kafkaGroups("--describe", "--group", GROUP).assertSucceeded(), GROUP);
        assertEquals(5, kafkaView.get(1).currentOffset(), kafkaView.toString());
        assertEquals(0, kafkaView.get(0).currentOffset(), kafkaView.toString());
    }

    @Test
    @Order(4)
    void eachToolDeletesAnEmptyGroup() throws Exception {
        // Our reset of a group nobody created makes it, as Kafka's does.
        ours("--reset-offsets", "--group", OURS, "--topic", TOPIC, "--to-latest", "--execute").assertSucceeded();
        Map<Integer, Row> created = rows(ours("--describe", "--group", OURS).assertSucceeded(), OURS);
        assertEquals(Set.of(0, 1, 2), created.keySet(), created.toString());
        created.values().forEach(r -> assertEquals(0, r.lag(), created.toString()));
        assertTrue(kafkaGroups("--list").assertSucceeded().stdout().lines().anyMatch(OURS::equals));

        ChildProcess.Result kafkaDelete = kafkaGroups("--delete", "--group", GROUP).assertSucceeded();
        assertTrue(kafkaDelete.stdout().contains("Deletion of requested consumer groups ('" + GROUP + "') was successful."),
                kafkaDelete.toString());
        ChildProcess.Result ourDelete = ours("--delete", "--group", OURS).assertSucceeded();
        assertTrue(ourDelete.stdout().contains("Deletion of requested consumer groups ('" + OURS + "') was successful."),
                ourDelete.toString());

        for (String listed : List.of(kafkaGroups("--list").assertSucceeded().stdout(),
                ours("--list").assertSucceeded().stdout())) {
            assertFalse(listed.lines().anyMatch(l -> l.equals(GROUP) || l.equals(OURS)), listed);
        }
        ChildProcess.Result gone = ours("--describe", "--group", OURS);
        assertNotEquals(0, gone.exitCode(), gone.toString());
        assertTrue(gone.stderr().contains("Error: Consumer group '" + OURS + "' does not exist."), gone.toString());
    }

    // -------------------------------------------------------------------------------------------------------------

    private ChildProcess.Result kafkaGroups(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", bootstrap, "--command-config",
                adminConfig.toString()));
        all.addAll(List.of(args));
        return kafka.run(TOOL, KafkaTools.CONSUMER_GROUPS, all.toArray(String[]::new));
    }

    private ChildProcess.Result ours(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("admin", "--bootstrap-server", cluster.grpcBootstrap(),
                "consumer-groups"));
        all.addAll(List.of(args));
        return cluster.tideline(TOOL, all.toArray(String[]::new));
    }

    /** One partition row of --describe, as both tools print it. */
    record Row(int partition, long currentOffset, long logEndOffset, long lag, String owner, String clientId) {
    }

    private static Map<Integer, Row> rows(ChildProcess.Result describe, String group) {
        Map<Integer, Row> rows = new TreeMap<>();
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(group) + "\\s+" + TOPIC
                + "\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)\\s*$").matcher(describe.stdout());
        while (m.find()) {
            rows.put(Integer.parseInt(m.group(1)), new Row(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)),
                    Long.parseLong(m.group(3)), Long.parseLong(m.group(4)), m.group(5), m.group(7)));
        }
        return rows;
    }

    /** The GROUP TOPIC PARTITION NEW-OFFSET rows of --reset-offsets. */
    private static Map<Integer, Long> newOffsets(ChildProcess.Result reset, String group) {
        Map<Integer, Long> offsets = new TreeMap<>();
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(group) + "\\s+" + TOPIC + "\\s+(\\d+)\\s+(\\d+)\\s*$")
                .matcher(reset.stdout());
        while (m.find()) {
            offsets.put(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
        }
        return offsets;
    }
}
