package io.tideline.node.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.ConsumerRecord;
import io.tideline.client.ProducerRecord;
import io.tideline.client.RecordMetadata;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineConsumer;
import io.tideline.client.TidelineProducer;
import io.tideline.client.TopicResult;
import io.tideline.common.TopicPartition;
import io.tideline.node.metrics.PrometheusText;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.TidelineNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's BrokerTopicMetrics and the JVM's figures as Prometheus scrapes them from one node over HTTP: what a
 * produce appends and a consume reads, in total and for the topic, and the topic's meters gone with the topic.
 */
class BrokerTopicMetricsScrapeTest {
    private static final String TOPIC = "metered";
    private static final int PARTITIONS = 2;
    private static final int RECORDS = 40;
    private static final int VALUE_BYTES = 100;
    private static final String PREFIX = "kafka_server_brokertopicmetrics_";
    private static final String MESSAGES_IN = PREFIX + "messagesin_total";
    private static final String BYTES_IN = PREFIX + "bytesin_total";
    private static final String BYTES_OUT = PREFIX + "bytesout_total";
    private static final String TOTAL_PRODUCE = PREFIX + "totalproducerequests_total";
    private static final String FAILED_PRODUCE = PREFIX + "failedproducerequests_total";
    private static final String TOTAL_FETCH = PREFIX + "totalfetchrequests_total";
    private static final Map<String, String> OF_TOPIC = Map.of("topic", TOPIC);

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void producedAndConsumedBytesAreMeteredInTotalAndPerTopicUntilTheTopicIsDeleted() throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 1, Map.of()).startAll();
             TidelineAdmin admin = new TidelineAdmin(E2e.clientConfig(cluster, Map.of()))) {
            E2e.createTopic(cluster, admin, TOPIC, PARTITIONS, 1, Map.of());
            TidelineNode node = cluster.node(1);
            int port = node.metricsPort().orElseThrow();
            PrometheusText empty = scrape(port);
            assertEquals(0.0, empty.value(MESSAGES_IN, OF_TOPIC));
            assertEquals(0.0, empty.value(BYTES_IN));

            produce(cluster);
            long logBytes = 0;
            for (int p = 0; p < PARTITIONS; p++) {
                logBytes += node.replicaManager().log(new TopicPartition(TOPIC, p)).orElseThrow().size();
            }
            assertTrue(logBytes > (long) RECORDS * VALUE_BYTES, "log bytes " + logBytes);

            PrometheusText produced = scrape(port);
            assertEquals(RECORDS, produced.value(MESSAGES_IN));
            assertEquals(RECORDS, produced.value(MESSAGES_IN, OF_TOPIC));
            assertEquals(logBytes, (long) produced.value(BYTES_IN), "BytesIn is the log's growth");
            assertEquals(logBytes, (long) produced.value(BYTES_IN, OF_TOPIC));
            assertEquals(0.0, produced.value(BYTES_OUT, OF_TOPIC));
            assertTrue(produced.value(TOTAL_PRODUCE, OF_TOPIC) >= 1);
            assertEquals(produced.value(TOTAL_PRODUCE), produced.value(TOTAL_PRODUCE, OF_TOPIC));
            assertEquals(0.0, produced.value(FAILED_PRODUCE));
            assertEquals("counter", produced.type(MESSAGES_IN).orElseThrow());

            consumeAll(cluster);
            PrometheusText consumed = scrape(port);
            double bytesOut = consumed.value(BYTES_OUT, OF_TOPIC);
            assertTrue(bytesOut >= logBytes, "BytesOut " + bytesOut + " after reading " + logBytes + " bytes");
            assertEquals(bytesOut, consumed.value(BYTES_OUT));
            assertTrue(consumed.value(TOTAL_FETCH, OF_TOPIC) >= PARTITIONS);
            // One node: nothing replicated either way.
            assertEquals(0.0, consumed.value(PREFIX + "replicationbytesin_total"));
            assertEquals(0.0, consumed.value(PREFIX + "replicationbytesout_total"));
            assertJvmFigures(consumed);

            Map<String, TopicResult> deleted = admin.deleteTopics(List.of(TOPIC));
            assertTrue(deleted.get(TOPIC).isSuccess(), deleted.toString());
            Awaitility.await("the topic's meters are removed").atMost(E2e.WAIT).pollInterval(Duration.ofMillis(100))
                    .until(() -> scrape(port).samples().stream().noneMatch(s -> TOPIC.equals(s.labels().get("topic"))));
            PrometheusText after = scrape(port);
            assertEquals(RECORDS, after.value(MESSAGES_IN), "the all-topics meters stay");
            assertEquals(logBytes, (long) after.value(BYTES_IN));
            assertTrue(node.replicaManager().topicMetrics().topics().isEmpty());
        }
    }

    private static void assertJvmFigures(PrometheusText scraped) {
        double heapUsed = scraped.value("jvm_memory_used_bytes", Map.of("area", "heap"));
        assertTrue(heapUsed > 0, "heap used " + heapUsed);
        assertTrue(scraped.value("jvm_memory_committed_bytes", Map.of("area", "heap")) >= heapUsed);
        assertTrue(scraped.value("jvm_memory_used_bytes", Map.of("area", "nonheap")) > 0);
        double threads = scraped.value("jvm_threads_current");
        assertTrue(threads > 0, "threads " + threads);
        assertTrue(scraped.value("jvm_threads_peak") >= threads);
        assertTrue(scraped.value("jvm_threads_daemon") <= threads);
        double openFds = scraped.value("process_open_fds");
        assertTrue(openFds > 0, "open fds " + openFds);
        assertTrue(scraped.value("process_max_fds") >= openFds);
        assertTrue(scraped.value("process_cpu_seconds") > 0);
        List<PrometheusText.Sample> collectors = scraped.samples().stream()
                .filter(s -> s.name().equals("jvm_gc_collection_seconds_count")).toList();
        assertFalse(collectors.isEmpty(), "no jvm_gc_collection_seconds_count samples");
        assertTrue(collectors.stream().allMatch(s -> !s.labels().get("gc").isEmpty() && s.value() >= 0),
                collectors.toString());
        assertEquals(collectors.size(), scraped.samples().stream()
                .filter(s -> s.name().equals("jvm_gc_collection_seconds_sum")).count());
        assertEquals("summary", scraped.type("jvm_gc_collection_seconds").orElseThrow());
        assertEquals("gauge", scraped.type("jvm_memory_used_bytes").orElseThrow());
    }

    private static void produce(NodeTestCluster cluster) throws Exception {
        byte[] value = new byte[VALUE_BYTES];
        Arrays.fill(value, (byte) 'v');
        try (TidelineProducer producer = new TidelineProducer(E2e.clientConfig(cluster, Map.of("acks", "all")))) {
            List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                futures.add(producer.send(new ProducerRecord(TOPIC, i % PARTITIONS, E2e.bytes("k" + i), value)));
            }
            producer.flush();
            for (CompletableFuture<RecordMetadata> f : futures) {
                f.get(10, TimeUnit.SECONDS);
            }
        }
    }

    private static void consumeAll(NodeTestCluster cluster) {
        try (TidelineConsumer consumer = new TidelineConsumer(E2e.clientConfig(cluster,
                Map.of("fetch.max.wait.ms", 100)))) {
            List<TopicPartition> all = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                all.add(new TopicPartition(TOPIC, p));
            }
            consumer.assign(all);
            consumer.seekToBeginning(all);
            AtomicInteger read = new AtomicInteger();
            Awaitility.await("all " + RECORDS + " records consumed").atMost(E2e.WAIT).pollDelay(Duration.ZERO)
                    .until(() -> {
                        for (ConsumerRecord r : consumer.poll(Duration.ofMillis(200))) {
                            read.incrementAndGet();
                        }
                        return read.get() >= RECORDS;
                    });
            assertEquals(RECORDS, read.get());
        }
    }

    private PrometheusText scrape(int port) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(5)).GET().build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        return PrometheusText.parse(response.body());
    }
}
