package io.tideline.node.e2e;

import static io.tideline.node.e2e.E2e.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.DeleteRecordsResult;
import io.tideline.client.ProducerRecord;
import io.tideline.client.RecordMetadata;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineProducer;
import io.tideline.client.TopicDescription.PartitionDescription;
import io.tideline.common.TopicPartition;
import io.tideline.node.metrics.PrometheusText;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.store.log.Log;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What Prometheus would scrape from the leader of a partition that lost a follower: the log's bounds
 * under Kafka's names with topic and partition labels, and one under-replicated partition; /health
 * answers 200 while the node serves.
 */
class MetricsScrapeTest {
    private static final String TOPIC = "scraped";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final String URP = "kafka_server_replicamanager_underreplicatedpartitions";
    private static final String TOPIC_METRICS = "kafka_server_brokertopicmetrics_";

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void theLeaderExportsItsLogBoundsAndOneUnderReplicatedPartitionOnceAFollowerStops() throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 3, Map.of()).startAll();
             TidelineAdmin admin = new TidelineAdmin(E2e.clientConfig(cluster, Map.of()))) {
            PartitionDescription partition = E2e.createTopic(cluster, admin, TOPIC, 1, 3,
                    Map.of("min.insync.replicas", "2")).get(0);
            int leader = partition.leader();
            int follower = partition.replicas().stream().filter(id -> id != leader).findFirst().orElseThrow();
            produce(cluster, 25);
            assertReplicationIsMeteredApartFromClientTraffic(cluster, leader, follower);
            // A log start offset above 0, so the three bounds differ.
            DeleteRecordsResult deleted = admin.deleteRecords(Map.of(TP, 7L)).get(TP);
            assertTrue(deleted.isSuccess(), deleted.toString());
            int port = cluster.node(leader).metricsPort().orElseThrow();
            assertEquals(0.0, scrape(port).value(URP));

            cluster.stop(follower);
            Awaitility.await("the leader reports the partition under-replicated").atMost(E2e.WAIT)
                    .pollInterval(Duration.ofMillis(200)).until(() -> scrape(port).value(URP) == 1.0);

            Log log = cluster.node(leader).replicaManager().log(TP).orElseThrow();
            PrometheusText scraped = scrape(port);
            Map<String, String> labels = Map.of("topic", TOPIC, "partition", "0");
            assertEquals(1.0, scraped.value(URP));
            assertEquals(7.0, scraped.value("kafka_log_log_logstartoffset", labels));
            assertEquals(log.logStartOffset(), (long) scraped.value("kafka_log_log_logstartoffset", labels));
            assertEquals(log.logEndOffset(), (long) scraped.value("kafka_log_log_logendoffset", labels));
            assertEquals(log.highWatermark(), (long) scraped.value("kafka_log_log_highwatermark", labels));
            assertEquals(25, log.highWatermark());
            assertEquals(1.0, scraped.value("kafka_cluster_partition_underreplicated", labels));
            assertEquals(2.0, scraped.value("kafka_cluster_partition_insyncreplicascount", labels));
            PartitionDescription shrunk = E2e.describe(admin, TP);
            assertEquals(leader, shrunk.leader());
            assertTrue(shrunk.isUnderReplicated(), shrunk.toString());

            for (var node : cluster.running()) {
                HttpResponse<String> health = get(node.metricsPort().orElseThrow(), "/health");
                assertEquals(200, health.statusCode(), "node " + node.nodeId() + ": " + health.body());
            }

            cluster.restart(follower);
            Awaitility.await("the partition is fully replicated again").atMost(E2e.WAIT)
                    .pollInterval(Duration.ofMillis(200)).until(() -> scrape(port).value(URP) == 0.0);
        }
    }

    /**
     * As in Kafka since KIP-153, bytes sent to followers count in ReplicationBytesOutPerSec, not BytesOutPerSec, and
     * a follower's appends in ReplicationBytesInPerSec, not BytesInPerSec; a follower has no meters of the topic.
     */
    private void assertReplicationIsMeteredApartFromClientTraffic(NodeTestCluster cluster, int leader, int follower)
            throws Exception {
        long bytes = cluster.node(leader).replicaManager().log(TP).orElseThrow().size();
        PrometheusText atLeader = scrape(cluster.node(leader).metricsPort().orElseThrow());
        Map<String, String> ofTopic = Map.of("topic", TOPIC);
        assertEquals(25.0, atLeader.value(TOPIC_METRICS + "messagesin_total", ofTopic));
        assertEquals(bytes, (long) atLeader.value(TOPIC_METRICS + "bytesin_total", ofTopic));
        assertEquals(0.0, atLeader.value(TOPIC_METRICS + "bytesout_total"));
        // acks=all: both followers fetched every byte before the high watermark passed the records.
        double sent = atLeader.value(TOPIC_METRICS + "replicationbytesout_total");
        assertTrue(sent >= 2 * bytes, sent + " bytes sent to followers, " + bytes + " in the log");

        PrometheusText atFollower = scrape(cluster.node(follower).metricsPort().orElseThrow());
        assertEquals(bytes, (long) atFollower.value(TOPIC_METRICS + "replicationbytesin_total"));
        assertEquals(0.0, atFollower.value(TOPIC_METRICS + "bytesin_total"));
        assertTrue(atFollower.samples().stream().noneMatch(s -> TOPIC.equals(s.labels().get("topic"))
                && s.name().startsWith(TOPIC_METRICS)), "a follower keeps no meters of the topic");
    }

    private PrometheusText scrape(int port) throws Exception {
        HttpResponse<String> response = get(port, "/metrics");
        assertEquals(200, response.statusCode(), response.body());
        return PrometheusText.parse(response.body());
    }

    private HttpResponse<String> get(int port, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5)).GET().build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static void produce(NodeTestCluster cluster, int count) throws Exception {
        try (TidelineProducer producer = new TidelineProducer(E2e.clientConfig(cluster, Map.of("acks", "all")))) {
            List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                futures.add(producer.send(new ProducerRecord(TOPIC, 0, bytes("k" + i), bytes("v" + i))));
            }
            producer.flush();
            for (CompletableFuture<RecordMetadata> f : futures) {
                f.get(1, TimeUnit.SECONDS);
            }
        }
    }
}
