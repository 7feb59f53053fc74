package io.tideline.cluster.kafkatools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka Streams 4.4 (kafka-streams from Maven Central, unchanged) running the word count against a 3-node
 * {@code scripts/cluster.sh} cluster of real node processes through their Kafka listeners, as an application
 * would: Streams creates its repartition topic ({@code cleanup.policy=delete}) and its store's changelog
 * ({@code cleanup.policy=compact}) itself with CreateTopics, purges the repartition topic with DeleteRecords, and
 * after its local state is wiped restores the counts from the changelog. The counts are checked exactly (the
 * latest value per word on the output topic): whether or not the cleaner has compacted the changelog, a reader
 * that keeps the latest value per key sees the same counts.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "cluster.sh is a bash script that reads /proc")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaStreamsWordCountTest {
    private static final int NODES = 3;
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static final String APP = "wordcount";
    private static final String INPUT = "lines";
    private static final String OUTPUT = "word-counts";
    /** Named so that the internal topics' names are stable: {@code <app>-<name>-repartition|changelog}. */
    private static final String REPARTITION = APP + "-words-repartition";
    private static final String CHANGELOG = APP + "-counts-changelog";
    /** Streams on two cores beside three node JVMs: joining, assignment and restoring take seconds each. */
    private static final Duration STREAMS_BOUND = Duration.ofSeconds(45);

    private static final List<String> FIRST_LINES = List.of(
            "the tide comes in and the tide goes out",
            "a log is a tide line of records",
            "records in a log are read in order",
            "the leader appends and the followers fetch",
            "compaction keeps the latest record of every key");
    private static final List<String> MORE_LINES = List.of(
            "the tide turns",
            "every key keeps its latest count",
            "a restored store counts on from the changelog");

    @TempDir
    static Path dir;

    private ScriptCluster cluster;
    private List<Long> nodePids = List.of();
    private String bootstrap;
    private Admin admin;
    private KafkaStreams streams;

    @BeforeAll
    void startCluster() throws Exception {
        assertTrue(Files.isExecutable(REPO.resolve("scripts/cluster.sh")), "run from the cluster-tests module");
        cluster = new ScriptCluster(REPO, dir, NODES);
        nodePids = cluster.startAndRecordPids();
        bootstrap = cluster.kafkaBootstrap();
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
    }

    @AfterEach
    void closeStreams() {
        if (streams != null) {
            streams.close(Duration.ofSeconds(30));
        }
    }

    @AfterAll
    void stopCluster() throws Exception {
        if (admin != null) {
            admin.close(Duration.ofSeconds(10));
        }
        if (cluster != null) {
            cluster.stopLeavingNothing(nodePids);
        }
    }

    @Test
    void wordCountIsExactAndSurvivesAWipedStateDirByRestoringFromItsChangelog() throws Exception {
        admin.createTopics(List.of(new NewTopic(INPUT, 2, (short) 3), new NewTopic(OUTPUT, 2, (short) 3)))
                .all().get();
        Path stateDir = dir.resolve("streams-state");

        streams = start(stateDir, new AtomicLong());
        produceLines(FIRST_LINES);
        awaitCounts(wordCounts(FIRST_LINES));

        // Streams made both internal topics itself (CreateTopics), each with the policy its use needs.
        assertEquals(Map.of(REPARTITION, "delete", CHANGELOG, "compact"),
                cleanupPolicies(List.of(REPARTITION, CHANGELOG)));
        Map<String, TopicDescription> internal = admin.describeTopics(List.of(REPARTITION, CHANGELOG))
                .allTopicNames().get();
        for (TopicDescription topic : internal.values()) {
            assertEquals(2, topic.partitions().size(), "as many partitions as the input: " + topic);
            topic.partitions().forEach(p -> assertEquals(NODES, p.replicas().size(), "replication.factor: " + topic));
        }

        // After a commit Streams deletes the repartition records it has consumed (DeleteRecords up to its
        // committed offsets), so the topic's log start offset moves off 0.
        Awaitility.await("Streams purges " + REPARTITION).atMost(STREAMS_BOUND)
                .pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                    Map<TopicPartition, Long> earliest = offsets(REPARTITION, OffsetSpec.earliest());
                    assertTrue(earliest.values().stream().anyMatch(o -> o > 0),
                            "a log start offset above 0: " + earliest);
                });

        // A new instance with no local state: close() leaves the group so that the next member is assigned at
        // once (Streams' own close stays a member until its session times out).
        streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(Duration.ofSeconds(30)));
        streams.cleanUp();
        streams = null;
        assertFalse(hasStoreFiles(stateDir), "cleanUp() removed the local store");

        AtomicLong restored = new AtomicLong();
        streams = start(stateDir, restored);
        produceLines(MORE_LINES);
        List<String> all = new ArrayList<>(FIRST_LINES);
        all.addAll(MORE_LINES);
        awaitCounts(wordCounts(all));
        assertTrue(restored.get() > 0, "the store is restored from " + CHANGELOG + ", records: " + restored.get());
    }

    private KafkaStreams start(Path stateDir, AtomicLong restored) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, NODES);
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        // Short commits and purges keep the run short; no record cache, so every count update goes out.
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1_000);

        KafkaStreams app = new KafkaStreams(wordCountTopology(), props);
        app.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition partition, String store, long start, long end) {
            }

            @Override
            public void onBatchRestored(TopicPartition partition, String store, long batchEnd, long count) {
            }

            @Override
            public void onRestoreEnd(TopicPartition partition, String store, long total) {
                restored.addAndGet(total);
            }
        });
        app.start();
        Awaitility.await("Streams RUNNING").atMost(STREAMS_BOUND).pollInterval(Duration.ofMillis(200))
                .until(() -> app.state() == KafkaStreams.State.RUNNING);
        return app;
    }

    private static Topology wordCountTopology() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("\\W+")))
                .filter((key, word) -> !word.isEmpty())
                .groupBy((key, word) -> word, Grouped.with("words", Serdes.String(), Serdes.String()))
                .count(Materialized.as("counts"))
                .toStream()
                .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    private static Map<String, Long> wordCounts(List<String> lines) {
        return lines.stream().flatMap(l -> Arrays.stream(l.toLowerCase(Locale.ROOT).split("\\W+")))
                .filter(w -> !w.isEmpty())
                .collect(Collectors.groupingBy(Function.identity(), TreeMap::new, Collectors.counting()));
    }

    private void produceLines(List<String> lines) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
            for (int i = 0; i < lines.size(); i++) {
                producer.send(new ProducerRecord<>(INPUT, "line-" + i, lines.get(i))).get();
            }
        }
    }

    /**
     * Reads the output topic from the beginning, keeping the latest count per word, until it equals
     * {@code expected}: a word counted twice, or a count that never arrives, fails at the bound.
     */
    private void awaitCounts(Map<String, Long> expected) {
        Map<String, Long> latest = new TreeMap<>();
        try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName()))) {
            List<TopicPartition> partitions = List.of(new TopicPartition(OUTPUT, 0), new TopicPartition(OUTPUT, 1));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Awaitility.await("the word counts on " + OUTPUT).atMost(STREAMS_BOUND).pollInterval(Duration.ZERO)
                    .untilAsserted(() -> {
                        for (ConsumerRecord<String, Long> r : consumer.poll(Duration.ofMillis(200))) {
                            latest.put(r.key(), r.value());
                        }
                        assertEquals(expected, latest);
                    });
        }
    }

    private Map<String, String> cleanupPolicies(List<String> topics) throws Exception {
        List<ConfigResource> resources = topics.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t))
                .toList();
        Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get();
        Map<String, String> policies = new HashMap<>();
        configs.forEach((resource, config) -> policies.put(resource.name(),
                config.get(TopicConfig.CLEANUP_POLICY_CONFIG).value()));
        return policies;
    }

    private Map<TopicPartition, Long> offsets(String topic, OffsetSpec spec) throws Exception {
        int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            request.put(new TopicPartition(topic, p), spec);
        }
        Map<TopicPartition, Long> result = new TreeMap<>((a, b) -> Integer.compare(a.partition(), b.partition()));
        admin.listOffsets(request).all().get().forEach((tp, info) -> result.put(tp, info.offset()));
        return result;
    }

    private static boolean hasStoreFiles(Path stateDir) throws Exception {
        if (!Files.exists(stateDir)) {
            return false;
        }
        try (var files = Files.walk(stateDir)) {
            return files.anyMatch(f -> f.toString().contains("rocksdb"));
        }
    }
}
