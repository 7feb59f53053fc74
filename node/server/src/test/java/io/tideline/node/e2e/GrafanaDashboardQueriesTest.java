package io.tideline.node.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.node.metrics.PrometheusText;
import io.tideline.node.replica.FailedReplicasCollector;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.testsupport.dashboard.DashboardQueries;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard in the repository (docs/grafana/tideline-cluster.json) asks only for metrics a node serves:
 * every metric name in its queries is a sample name of a running node's {@code /metrics}, once the node has a topic
 * and has answered Kafka clients' produces and fetches (request metrics exist per API once one came).
 */
class GrafanaDashboardQueriesTest {
    static final Path DASHBOARD = Path.of("..", "..", "docs", "grafana", "tideline-cluster.json");
    /**
     * Series that exist only while something is wrong, so a healthy node serves none: a FAILED replica
     * ({@code FailedReplicasCollectorTest} shows the family with one).
     */
    static final Set<String> ONLY_WHILE_FAILING = Set.of(FailedReplicasCollector.NAME);
    private static final String TOPIC = "dashboard";

    @TempDir
    Path dir;

    @Test
    void everyMetricTheDashboardQueriesIsServedByANode() throws Exception {
        Set<String> asked = DashboardQueries.metricNamesOfDashboard(Files.readString(DASHBOARD));
        assertTrue(asked.size() >= 30, "the dashboard's queries name " + asked);
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 1, Map.of()).startAll()) {
            produceAndConsume(cluster.kafkaBootstrapServers());
            int port = cluster.node(1).metricsPort().orElseThrow();
            Set<String> served = new TreeSet<>();
            scrape(port).samples().forEach(s -> served.add(s.name()));
            Set<String> missing = new TreeSet<>(asked);
            missing.removeAll(served);
            missing.removeAll(ONLY_WHILE_FAILING);
            assertEquals(Set.of(), missing, "asked by the dashboard but not served");
        }
    }

    private static void produceAndConsume(String bootstrap) throws Exception {
        Properties common = new Properties();
        common.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(common)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Properties producerProps = new Properties();
        producerProps.putAll(common);
        producerProps.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producerProps.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps)) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(TOPIC, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        Properties consumerProps = new Properties();
        consumerProps.putAll(common);
        consumerProps.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        consumerProps.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps)) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            int[] read = {0};
            Awaitility.await("the 10 records consumed").atMost(E2e.WAIT).pollDelay(Duration.ZERO)
                    .until(() -> (read[0] += consumer.poll(Duration.ofMillis(200)).count()) >= 10);
        }
    }

    private static PrometheusText scrape(int port) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(5)).GET().build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        return PrometheusText.parse(response.body());
    }
}
