package io.tideline.node.kafka.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.TidelineAdmin;
import io.tideline.common.TopicPartition;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.TidelineNode;
import io.tideline.replication.server.ProduceResult;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeProducersOptions;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData.PartitionResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DescribeProducers answered from the partition leader's producer state: handle() called directly on the
 * leader and on the follower, and once through the Kafka listener with kafka-clients' Admin.
 */
class DescribeProducersApiTest {
    private static final String TOPIC = "payments";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final long PID = 1234L;
    private static final short EPOCH = 2;

    @TempDir
    static Path dir;
    private static NodeTestCluster cluster;
    private static long lastTimestamp;

    @BeforeAll
    static void start() throws Exception {
        cluster = new NodeTestCluster(dir, 2, Map.of()).startAll();
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", cluster.bootstrapServers());
        config.put("request.timeout.ms", 10_000);
        try (TidelineAdmin admin = new TidelineAdmin(config)) {
            assertTrue(admin.createTopic(TOPIC, Map.of(0, List.of(1, 2)), Map.of()).isSuccess());
        }
        Awaitility.await("node 1 leads " + TP).atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                .until(() -> cluster.node(1).replicaManager().partition(TP).map(p -> p.isLeader()).orElse(false)
                        && cluster.node(2).replicaManager().partition(TP).isPresent());
        for (int seq = 0; seq < 6; seq += 3) {
            lastTimestamp = System.currentTimeMillis();
            RecordBatchBuilder builder = new RecordBatchBuilder(0).producer(PID, EPOCH, seq);
            for (int i = 0; i < 3; i++) {
                builder.append(lastTimestamp, "k", "v" + (seq + i));
            }
            MemoryRecords records = builder.buildRecords();
            ProduceResult r = cluster.node(1).replicaManager().appendRecords(Map.of(TP, records), 1, 10_000)
                    .get(10, TimeUnit.SECONDS).get(TP);
            assertEquals(io.tideline.common.errors.Errors.NONE, r.error(), r.message());
        }
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static DescribeProducersResponseData describe(int nodeId, String topic, List<Integer> partitions)
            throws Exception {
        TidelineNode node = cluster.node(nodeId);
        DescribeProducersApi api = new DescribeProducersApi(node::image, node.replicaManager());
        DescribeProducersRequestData body = new DescribeProducersRequestData();
        body.topics().add(new DescribeProducersRequestData.TopicRequest().setName(topic).setPartitionIndexes(partitions));
        RequestHeader header = new RequestHeader(ApiKeys.DESCRIBE_PRODUCERS, (short) 0, "test", 7);
        return api.handle(new KafkaRequest(header, body, new InetSocketAddress("127.0.0.1", 1))).get(10, TimeUnit.SECONDS);
    }

    @Test
    void theLeaderListsEachProducerWithItsEpochLastSequenceAndTimestamp() throws Exception {
        PartitionResponse p = describe(1, TOPIC, List.of(0)).topics().get(0).partitions().get(0);
        assertEquals(Errors.NONE.code(), p.errorCode());
        assertEquals(1, p.activeProducers().size());
        DescribeProducersResponseData.ProducerState state = p.activeProducers().get(0);
        assertEquals(PID, state.producerId());
        assertEquals(EPOCH, state.producerEpoch());
        assertEquals(5, state.lastSequence());
        assertEquals(lastTimestamp, state.lastTimestamp());
        assertEquals(-1, state.coordinatorEpoch());
        assertEquals(-1L, state.currentTxnStartOffset());
    }

    @Test
    void aFollowerAnswersNotLeaderAndAnUnknownPartitionUnknownTopicOrPartition() throws Exception {
        Awaitility.await("the follower has the producer").atMost(Duration.ofSeconds(10))
                .until(() -> !cluster.node(2).replicaManager().partition(TP).orElseThrow().log().activeProducers().isEmpty());
        PartitionResponse follower = describe(2, TOPIC, List.of(0)).topics().get(0).partitions().get(0);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), follower.errorCode());
        assertTrue(follower.activeProducers().isEmpty(), "the follower's state is not served");

        DescribeProducersResponseData unknown = describe(1, TOPIC, List.of(5, -1));
        assertEquals(List.of(5, -1), unknown.topics().get(0).partitions().stream().map(PartitionResponse::partitionIndex).toList());
        unknown.topics().get(0).partitions().forEach(r -> assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), r.errorCode()));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
                describe(1, "no-such-topic", List.of(0)).topics().get(0).partitions().get(0).errorCode());
    }

    @Test
    void kafkaAdminDescribeProducersReachesTheLeaderThroughTheListener() throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.kafkaBootstrapServers());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        try (Admin admin = Admin.create(props)) {
            List<ProducerState> states = admin.describeProducers(List.of(new org.apache.kafka.common.TopicPartition(TOPIC, 0)),
                    new DescribeProducersOptions()).all().get(20, TimeUnit.SECONDS)
                    .get(new org.apache.kafka.common.TopicPartition(TOPIC, 0)).activeProducers();
            assertEquals(1, states.size());
            assertEquals(PID, states.get(0).producerId());
            assertEquals(EPOCH, states.get(0).producerEpoch());
            assertEquals(5, states.get(0).lastSequence());
        }
    }
}
