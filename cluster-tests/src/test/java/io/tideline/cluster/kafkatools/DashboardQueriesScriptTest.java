package io.tideline.cluster.kafkatools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.testsupport.dashboard.DashboardQueries;
import io.tideline.testsupport.ports.Ports;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
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
 * The repository's Grafana dashboard against a real node process: {@code cluster.sh start} with {@code JMX_PORT}
 * set, Kafka clients producing and consuming, then every metric the dashboard's queries name is a sample of the
 * node's {@code /metrics}, and Kafka's MBeans answer on the JMX port the script gave the node.
 */
class DashboardQueriesScriptTest {
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static final Path DASHBOARD = REPO.resolve("docs/grafana/tideline-cluster.json");
    /** Only served while a replica is FAILED (node/server's FailedReplicasCollectorTest shows it then). */
    private static final Set<String> ONLY_WHILE_FAILING = Set.of("tideline_replica_failed");
    private static final Pattern SAMPLE_NAME = Pattern.compile("(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]");
    private static final String TOPIC = "dashboard";
    private static final int NODES = 1;

    @TempDir
    Path dir;

    @Test
    void theDashboardsMetricsAreServedAndKafkasMBeansAnswerOnJmxPort() throws Exception {
        Set<String> asked = DashboardQueries.metricNamesOfDashboard(Files.readString(DASHBOARD));
        assertTrue(asked.size() >= 30, "the dashboard's queries name " + asked);
        int jmxPort = Ports.base(NODES) + 1;
        ScriptCluster cluster = new ScriptCluster(REPO, dir, NODES, Map.of(),
                Map.of("JMX_PORT", String.valueOf(jmxPort)));
        List<Long> pids = List.of();
        try {
            pids = cluster.startAndRecordPids();
            produceAndConsume(cluster.kafkaBootstrap());

            String body = scrape(cluster.metricsPort(1));
            // Kept in the build output for whoever reads a failure (or counts names against another dashboard).
            Files.writeString(Files.createDirectories(Path.of("target")).resolve("dashboard-node-1.metrics"), body);
            Set<String> served = new TreeSet<>();
            Matcher m = SAMPLE_NAME.matcher(body);
            while (m.find()) {
                served.add(m.group(1));
            }
            Set<String> missing = new TreeSet<>(asked);
            missing.removeAll(served);
            missing.removeAll(ONLY_WHILE_FAILING);
            assertEquals(Set.of(), missing, "asked by the dashboard but not served by node 1");

            JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi");
            try (JMXConnector jmx = JMXConnectorFactory.connect(url, Map.of())) {
                MBeanServerConnection mbeans = jmx.getMBeanServerConnection();
                assertEquals(0, ((Number) mbeans.getAttribute(
                        new ObjectName("kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions"), "Value"))
                        .intValue());
                double idle = ((Number) mbeans.getAttribute(new ObjectName(
                        "kafka.server:type=KafkaRequestHandlerPool,name=RequestHandlerAvgIdlePercent"), "Value"))
                        .doubleValue();
                assertTrue(idle >= 0 && idle <= 1, "RequestHandlerAvgIdlePercent " + idle);
                assertTrue(((Number) mbeans.getAttribute(new ObjectName(
                        "kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec"), "Count")).longValue() >= 10);
            }
        } finally {
            cluster.stopLeavingNothing(pids);
        }
    }

    private static void produceAndConsume(String bootstrap) throws Exception {
        Properties common = new Properties();
        common.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(common)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        Properties producerProps = new Properties();
        producerProps.putAll(common);
        producerProps.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producerProps.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps)) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(TOPIC, "k" + i, "v" + i)).get(60, TimeUnit.SECONDS);
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
            Awaitility.await("the 10 records consumed").atMost(Duration.ofSeconds(60)).pollDelay(Duration.ZERO)
                    .until(() -> (read[0] += consumer.poll(Duration.ofMillis(200)).count()) >= 10);
        }
    }

    private static String scrape(int port) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        return response.body();
    }
}
