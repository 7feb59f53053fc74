package io.tideline.node.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.node.server.NodeTestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kafka-clients against a 3-node cluster's Kafka listeners: the cluster as Metadata describes it. */
class KafkaListenerClusterTest {
    @TempDir
    static Path dir;
    private static NodeTestCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new NodeTestCluster(dir, 3, Map.of()).startAll();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Properties props() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.kafkaBootstrapServers());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        return p;
    }

    @Test
    void describeClusterListsEveryBrokerAtItsKafkaPort() throws Exception {
        try (Admin admin = Admin.create(props())) {
            DescribeClusterResult result = admin.describeCluster();
            Collection<Node> nodes = result.nodes().get();
            assertEquals(Map.of(1, cluster.kafkaPort(1), 2, cluster.kafkaPort(2), 3, cluster.kafkaPort(3)),
                    nodes.stream().collect(Collectors.toMap(Node::id, Node::port)));
            nodes.forEach(n -> assertEquals("127.0.0.1", n.host()));
            assertEquals("tideline", result.clusterId().get());
            assertTrue(Set.of(1, 2, 3).contains(result.controller().get().id()));
        }
    }
}
