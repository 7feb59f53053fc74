package io.tideline.cluster.kafkatools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tideline.testsupport.ports.Ports;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.internals.Exit;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka Connect 4.4 distributed worker (connect-runtime from Maven Central, unchanged: {@link ConnectDistributed}
 * started in this JVM from the worker properties a user writes) against a 3-node {@code scripts/cluster.sh}
 * cluster of real node processes through their Kafka listeners. The worker creates its config, offsets and status
 * topics with {@code cleanup.policy=compact} through CreateTopics, coordinates through a Kafka group, and keeps
 * connector configs and source offsets in those topics; after the worker restarts it finds both again. The
 * connectors are {@link NumberedConnectors}, created and reconfigured over the worker's REST API.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "cluster.sh is a bash script that reads /proc")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaConnectDistributedTest {
    private static final int NODES = 3;
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static final String TOPIC = "numbers";
    private static final String SOURCE = "numbers-source";
    private static final String SINK = "collector";
    private static final String CONFIG_TOPIC = "connect-configs";
    private static final String OFFSET_TOPIC = "connect-offsets";
    private static final String STATUS_TOPIC = "connect-status";
    private static final long N = 100;
    /** A worker joining its group, reading its three topics and starting tasks, on two busy cores. */
    private static final Duration CONNECT_BOUND = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    private ScriptCluster cluster;
    private List<Long> nodePids = List.of();
    private String bootstrap;
    private Admin admin;
    private Connect<?> worker;
    private int restPort;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    void startCluster() throws Exception {
        assertTrue(Files.isExecutable(REPO.resolve("scripts/cluster.sh")), "run from the cluster-tests module");
        // The worker calls Exit when it cannot start: in this JVM that fails the test instead of ending the JVM
        // (which would leave the cluster's nodes running).
        Exit.setExitProcedure((code, message) -> {
            throw new IllegalStateException("Connect asked to exit " + code + ": " + message);
        });
        cluster = new ScriptCluster(REPO, dir, NODES);
        nodePids = cluster.startAndRecordPids();
        bootstrap = cluster.kafkaBootstrap();
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
        restPort = Ports.one();
    }

    @AfterAll
    void stopAll() throws Exception {
        try {
            stopWorker();
            if (admin != null) {
                admin.close(Duration.ofSeconds(10));
            }
        } finally {
            Exit.resetExitProcedure();
            if (cluster != null) {
                cluster.stopLeavingNothing(nodePids);
            }
        }
    }

    @Test
    void aDistributedWorkerKeepsConnectorConfigsAndSourceOffsetsInCompactedTopicsAcrossARestart() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3))).all().get();
        startWorker();

        createConnector(SOURCE, Map.of("connector.class", NumberedConnectors.Source.class.getName(),
                "tasks.max", "1", NumberedConnectors.TOPIC, TOPIC, NumberedConnectors.MAX, String.valueOf(N)));
        createConnector(SINK, Map.of("connector.class", NumberedConnectors.Sink.class.getName(),
                "tasks.max", "1", "topics", TOPIC));
        awaitSinkReceived(0, N);

        // The worker made its three topics itself, compacted: only the latest config, offset and status per key
        // matter to it.
        assertEquals(Map.of(CONFIG_TOPIC, "compact", OFFSET_TOPIC, "compact", STATUS_TOPIC, "compact"),
                cleanupPolicies(List.of(CONFIG_TOPIC, OFFSET_TOPIC, STATUS_TOPIC)));
        Map<String, TopicDescription> internal = admin.describeTopics(List.of(CONFIG_TOPIC, OFFSET_TOPIC,
                STATUS_TOPIC)).allTopicNames().get();
        assertEquals(1, internal.get(CONFIG_TOPIC).partitions().size(), "Connect requires one config partition");
        internal.values().forEach(t -> t.partitions().forEach(p ->
                assertEquals(NODES, p.replicas().size(), "replication factor of " + t.name())));
        // The source's position, as the worker committed it (offset.flush.interval.ms), read back from the topic.
        Awaitility.await("the source offset {next: " + N + "} in " + OFFSET_TOPIC).atMost(CONNECT_BOUND)
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertEquals(N, committedSourceOffset(), "committed source offset"));

        stopWorker();
        int startsBeforeRestart = NumberedConnectors.SOURCE_STARTS.size();
        startWorker();

        // The new worker reads both connectors' configs from the config topic; no REST call made them again.
        Awaitility.await("the connectors after the restart").atMost(CONNECT_BOUND).pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> {
                    HttpResponse<String> list = get("/connectors");
                    assertEquals(200, list.statusCode(), list.body());
                    assertEquals(Set.of(SOURCE, SINK), strings(JSON.readTree(list.body())), list.body());
                    assertEquals("RUNNING", taskState(SOURCE));
                    assertEquals("RUNNING", taskState(SINK));
                });
        HttpResponse<String> config = get("/connectors/" + SOURCE + "/config");
        assertEquals(String.valueOf(N), JSON.readTree(config.body()).path(NumberedConnectors.MAX).asText(),
                config.body());

        // More records from the source: it goes on from its committed offset, not from 0.
        HttpResponse<String> update = send(HttpRequest.newBuilder(rest("/connectors/" + SOURCE + "/config"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of(
                        "connector.class", NumberedConnectors.Source.class.getName(), "tasks.max", "1",
                        NumberedConnectors.TOPIC, TOPIC, NumberedConnectors.MAX, String.valueOf(2 * N))))));
        assertEquals(200, update.statusCode(), update.body());
        awaitSinkReceived(N, 2 * N);
        List<Long> startsAfterRestart = new ArrayList<>(NumberedConnectors.SOURCE_STARTS)
                .subList(startsBeforeRestart, NumberedConnectors.SOURCE_STARTS.size());
        assertTrue(!startsAfterRestart.isEmpty() && startsAfterRestart.stream().allMatch(s -> s == N),
                "every task start after the restart reads the committed offset " + N + ": " + startsAfterRestart);

        // The topic as any consumer reads it: every number once. The source idled at N with its offset committed
        // before the worker stopped, so even at-least-once delivery has nothing to repeat.
        Map<String, Long> written = countValues(TOPIC, 2 * N);
        Map<String, Long> once = LongStream.range(0, 2 * N).mapToObj(NumberedConnectors::value)
                .collect(Collectors.toMap(v -> v, v -> 1L, (a, b) -> a, TreeMap::new));
        assertEquals(once, written);
    }

    private void startWorker() {
        Map<String, String> props = new HashMap<>();
        props.put("bootstrap.servers", bootstrap);
        props.put("group.id", "tideline-connect");
        props.put("listeners", "http://127.0.0.1:" + restPort);
        // service_load finds plugins by their META-INF/services manifests (Kafka's own jars ship them, the test's
        // connectors' are in src/test/resources) without reading every class of this JVM's class path, which
        // only_scan does at each start (15-30 s of this test on two busy cores).
        props.put("plugin.discovery", "service_load");
        props.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        props.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        props.put("config.storage.topic", CONFIG_TOPIC);
        props.put("config.storage.replication.factor", String.valueOf(NODES));
        props.put("offset.storage.topic", OFFSET_TOPIC);
        props.put("offset.storage.replication.factor", String.valueOf(NODES));
        props.put("offset.storage.partitions", "5");
        props.put("status.storage.topic", STATUS_TOPIC);
        props.put("status.storage.replication.factor", String.valueOf(NODES));
        props.put("status.storage.partitions", "1");
        // Source offsets are committed every half second rather than every minute, so the test need not wait.
        props.put("offset.flush.interval.ms", "500");
        worker = new ConnectDistributed().startConnect(props);
    }

    private void stopWorker() {
        if (worker != null) {
            worker.stop();
            worker.awaitStop();
            worker = null;
        }
    }

    /** POST /connectors, retried while the worker has not yet joined its group (409 or 5xx, no leader yet). */
    private void createConnector(String name, Map<String, String> config) throws Exception {
        String body = JSON.writeValueAsString(Map.of("name", name, "config", config));
        Awaitility.await("POST /connectors " + name).atMost(CONNECT_BOUND).pollInterval(Duration.ofMillis(500))
                .ignoreExceptionsInstanceOf(java.io.IOException.class).untilAsserted(() -> {
                    HttpResponse<String> created = send(HttpRequest.newBuilder(rest("/connectors"))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body)));
                    assertEquals(201, created.statusCode(), created.body());
                });
    }

    private void awaitSinkReceived(long from, long to) {
        Set<String> expected = LongStream.range(from, to).mapToObj(NumberedConnectors::value)
                .collect(Collectors.toCollection(TreeSet::new));
        Awaitility.await("the sink receives records " + from + ".." + (to - 1)).atMost(CONNECT_BOUND)
                .pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                    Set<String> missing = new TreeSet<>(expected);
                    missing.removeAll(NumberedConnectors.SINK_RECEIVED);
                    assertEquals(Set.of(), missing, "not yet received");
                });
    }

    private String taskState(String connector) throws Exception {
        HttpResponse<String> status = get("/connectors/" + connector + "/status");
        JsonNode tasks = JSON.readTree(status.body()).path("tasks");
        return tasks.size() == 1 ? tasks.get(0).path("state").asText() : "tasks: " + status.body();
    }

    /** The latest {@code next} the worker wrote for the source's partition, or -1 if none. */
    private long committedSourceOffset() throws Exception {
        long latest = -1;
        for (ConsumerRecord<String, String> r : readAll(OFFSET_TOPIC)) {
            // Key: ["<connector>", {<source partition>}]; value: {<source offset>}, JSON without schemas.
            JsonNode key = JSON.readTree(r.key());
            if (key.isArray() && SOURCE.equals(key.get(0).asText()) && r.value() != null) {
                latest = JSON.readTree(r.value()).path(NumberedConnectors.NEXT).asLong();
            }
        }
        return latest;
    }

    private Map<String, Long> countValues(String topic, long expectedRecords) throws Exception {
        List<ConsumerRecord<String, String>> records = readAll(topic);
        assertEquals(expectedRecords, records.size(), "records in " + topic);
        return records.stream().collect(Collectors.groupingBy(ConsumerRecord::value, TreeMap::new,
                Collectors.counting()));
    }

    /** Every record of {@code topic}, up to the log end offsets of when it is called, in partition order. */
    private List<ConsumerRecord<String, String>> readAll(String topic) throws Exception {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName()))) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            List<ConsumerRecord<String, String>> records = new ArrayList<>();
            Awaitility.await("reading " + topic + " to " + ends).atMost(CONNECT_BOUND).pollInterval(Duration.ZERO)
                    .until(() -> {
                        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                        return partitions.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp));
                    });
            return records;
        }
    }

    private Map<String, String> cleanupPolicies(List<String> topics) throws Exception {
        List<ConfigResource> resources = topics.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t))
                .toList();
        Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get();
        Map<String, String> policies = new HashMap<>();
        configs.forEach((resource, c) -> policies.put(resource.name(), c.get(TopicConfig.CLEANUP_POLICY_CONFIG)
                .value()));
        return policies;
    }

    private static Set<String> strings(JsonNode array) {
        Set<String> values = new TreeSet<>();
        array.forEach(n -> values.add(n.asText()));
        return values;
    }

    private URI rest(String path) {
        return URI.create("http://127.0.0.1:" + restPort + path);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return send(HttpRequest.newBuilder(rest(path)).GET());
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
