package io.tideline.node.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.server.FailedReplicaReporter;
import io.tideline.replication.server.LeaderAndIsr;
import io.tideline.replication.server.PartitionSettings;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.log.Log;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.RecordBatchBuilder;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scrapes /metrics over HTTP from a real log manager and replica manager sharing one registry, as on a node, and
 * reads the answer back with a text-format parser.
 */
class MetricsHttpServerTest {
    private static final TopicPartition UNDER_REPLICATED = new TopicPartition("orders", 0);
    private static final TopicPartition FULLY_REPLICATED = new TopicPartition("orders", 1);

    @TempDir
    Path dir;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final MetricRegistry registry = new MetricRegistry();
    private final AtomicBoolean healthy = new AtomicBoolean(true);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private LogManager logManager;
    private ReplicaManager replicaManager;
    private MetricsHttpServer server;

    @BeforeEach
    void setUp() throws IOException {
        logManager = new LogManager(StoreConfig.fromMap(Map.of("log.dirs", dir.toString(), "log.segment.bytes", 1024)),
                "c", 1, time, scheduler, registry, new Random(1));
        logManager.startup();
        replicaManager = new ReplicaManager(1, ReplicationConfig.fromMap(Map.of()), logManager, time, scheduler,
                (tp, id, epoch, proposal) -> new CompletableFuture<>(), FailedReplicaReporter.NONE,
                broker -> Optional.empty(), registry);
        server = MetricsHttpServer.start("127.0.0.1", 0, registry, healthy::get);
    }

    @AfterEach
    void tearDown() {
        server.close();
        replicaManager.close();
        logManager.close();
    }

    private void lead(TopicPartition tp, List<Integer> replicas, List<Integer> isr) {
        replicaManager.applyPartitionState(new LeaderAndIsr(tp, "t1", 1, 0, 0, replicas, isr),
                PartitionSettings.defaults());
    }

    private static void append(Log log, int records) {
        RecordBatchBuilder batch = new RecordBatchBuilder(0);
        for (int i = 0; i < records; i++) {
            batch.append(0L, "k" + i, "v" + i);
        }
        log.appendAsLeader(batch.buildRecords(), 0);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private PrometheusText scrape() throws Exception {
        HttpResponse<String> response = get("/metrics");
        assertEquals(200, response.statusCode(), response.body());
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"),
                response.headers().toString());
        return PrometheusText.parse(response.body());
    }

    @Test
    void perLogGaugesAndUnderReplicatedPartitionsAreScrapedWithTheirValues() throws Exception {
        lead(UNDER_REPLICATED, List.of(1, 2, 3), List.of(1));
        lead(FULLY_REPLICATED, List.of(1), List.of(1));
        Log orders0 = logManager.getLog(UNDER_REPLICATED).orElseThrow();
        append(orders0, 5);
        append(orders0, 5);
        orders0.updateHighWatermark(8);
        orders0.deleteRecords(3);
        append(logManager.getLog(FULLY_REPLICATED).orElseThrow(), 2);
        logManager.getLog(FULLY_REPLICATED).orElseThrow().updateHighWatermark(2);

        PrometheusText metrics = scrape();

        Map<String, String> p0 = Map.of("topic", "orders", "partition", "0");
        assertEquals(3, metrics.value("kafka_log_log_logstartoffset", p0));
        assertEquals(10, metrics.value("kafka_log_log_logendoffset", p0));
        assertEquals(8, metrics.value("kafka_log_log_highwatermark", p0));
        assertEquals(orders0.size(), metrics.value("kafka_log_log_size", p0));
        Map<String, String> p1 = Map.of("topic", "orders", "partition", "1");
        assertEquals(0, metrics.value("kafka_log_log_logstartoffset", p1));
        assertEquals(2, metrics.value("kafka_log_log_logendoffset", p1));
        assertEquals(2, metrics.value("kafka_log_log_highwatermark", p1));
        assertEquals(Optional.of("gauge"), metrics.type("kafka_log_log_logendoffset"));

        assertEquals(1, metrics.value("kafka_server_replicamanager_underreplicatedpartitions"));
        assertEquals(2, metrics.value("kafka_server_replicamanager_leadercount"));
        assertEquals(1, metrics.value("kafka_cluster_partition_underreplicated", p0));
        assertEquals(0, metrics.value("kafka_cluster_partition_underreplicated", p1));
        assertEquals(1, metrics.value("kafka_cluster_partition_insyncreplicascount", p0));
        assertEquals(0, metrics.value("kafka_server_replicafetchermanager_maxlag", Map.of("clientId", "Replica")));
    }

    @Test
    void scrapeFollowsTheRegistry() throws Exception {
        lead(UNDER_REPLICATED, List.of(1, 2), List.of(1));
        assertEquals(1, scrape().value("kafka_server_replicamanager_underreplicatedpartitions"));

        lead(UNDER_REPLICATED, List.of(1), List.of(1));
        lead(FULLY_REPLICATED, List.of(1), List.of(1));
        PrometheusText after = scrape();
        assertEquals(0, after.value("kafka_server_replicamanager_underreplicatedpartitions"));
        assertEquals(0, after.value("kafka_log_log_logendoffset", Map.of("topic", "orders", "partition", "1")),
                "a log created after the server started is scraped");
    }

    @Test
    void meterIsACounterWithTheTotalSuffix() throws Exception {
        registry.meter("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=orders").mark(6);
        PrometheusText metrics = scrape();
        assertEquals(6, metrics.value("kafka_server_brokertopicmetrics_messagesin_total",
                Map.of("topic", "orders")));
        assertEquals(Optional.of("counter"), metrics.type("kafka_server_brokertopicmetrics_messagesin_total"));
        assertEquals(0, metrics.value("kafka_server_replicamanager_isrshrinks_total"));
    }

    @Test
    void nameWithCharactersPrometheusRefusesIsSanitizedInTheScrape() throws Exception {
        registry.register("kafka.log:type=Log-Cleaner,name=max buffer%,dir=/data/1", (Gauge<Double>) () -> 0.5);
        registry.register("tideline.jvm.heap-used", (Gauge<Long>) () -> 1024L);
        PrometheusText metrics = scrape();
        assertEquals(0.5, metrics.value("kafka_log_log_cleaner_max_buffer_", Map.of("dir", "/data/1")));
        assertEquals(1024, metrics.value("tideline_jvm_heap_used"));
        for (PrometheusText.Sample sample : metrics.samples()) {
            assertTrue(sample.name().matches("[a-zA-Z_][a-zA-Z0-9_]*"), sample.name());
        }
    }

    @Test
    void gaugeThatThrowsIsLeftOutAndTheRestIsServed() throws Exception {
        registry.register("kafka.server:type=Broken,name=Gauge", (Gauge<Long>) () -> {
            throw new IllegalStateException("broken");
        });
        lead(UNDER_REPLICATED, List.of(1, 2), List.of(1));
        PrometheusText metrics = scrape();
        assertEquals(1, metrics.value("kafka_server_replicamanager_underreplicatedpartitions"));
        assertFalse(metrics.samples().stream().anyMatch(s -> s.name().startsWith("kafka_server_broken")));
    }

    @Test
    void healthAnswers200WhileHealthyAnd503Otherwise() throws Exception {
        HttpResponse<String> ok = get("/health");
        assertEquals(200, ok.statusCode());
        assertEquals("ok", ok.body().trim());

        healthy.set(false);
        HttpResponse<String> down = get("/health");
        assertEquals(503, down.statusCode());
        assertEquals("unhealthy", down.body().trim());
    }

    @Test
    void healthCheckThatThrowsAnswers503() throws Exception {
        try (MetricsHttpServer throwing = MetricsHttpServer.start("127.0.0.1", 0, registry, () -> {
            throw new IllegalStateException("no image yet");
        })) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + throwing.port() + "/health")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(503, response.statusCode());
        }
    }

    @Test
    void otherPathsAnswer404() throws Exception {
        assertEquals(404, get("/").statusCode());
        assertEquals(404, get("/healthz").statusCode());
        assertEquals(404, get("/nothing").statusCode());
    }

    @Test
    void portInUseIsAClearError() {
        IOException e = assertThrows(IOException.class,
                () -> MetricsHttpServer.start("127.0.0.1", server.port(), registry, () -> true));
        assertTrue(e.getMessage().contains("127.0.0.1:" + server.port()), e.getMessage());
    }
}
