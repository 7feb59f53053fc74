package io.tideline.node.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.TidelineAdmin;
import io.tideline.client.TopicDescription;
import io.tideline.client.TopicDescription.PartitionDescription;
import io.tideline.client.TopicResult;
import io.tideline.common.TopicPartition;
import io.tideline.node.server.NodeTestCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;

/** What the client-against-real-nodes tests share: client configs, topic creation, waits on metadata. */
final class E2e {
    /** Every wait on the cluster is bounded by this; a healthy cluster needs a fraction of it. */
    static final Duration WAIT = Duration.ofSeconds(30);

    private E2e() {
    }

    static Map<String, Object> clientConfig(NodeTestCluster cluster, Map<String, Object> more) {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", cluster.bootstrapServers());
        config.put("retry.backoff.ms", 50);
        config.put("request.timeout.ms", 10_000);
        config.putAll(more);
        return config;
    }

    /**
     * Creates the topic and waits until every partition has a leader that leads it locally and a full
     * ISR, so the test starts from a settled partition.
     */
    static List<PartitionDescription> createTopic(NodeTestCluster cluster, TidelineAdmin admin, String topic,
                                                  int partitions, int replicationFactor, Map<String, String> configs) {
        TopicResult created = admin.createTopic(topic, partitions, replicationFactor, configs);
        assertTrue(created.isSuccess(), created.toString());
        return awaitSettled(cluster, admin, topic, replicationFactor);
    }

    /** Waits until each partition of {@code topic} has a serving leader and {@code isrSize} in-sync replicas. */
    static List<PartitionDescription> awaitSettled(NodeTestCluster cluster, TidelineAdmin admin, String topic,
                                                   int isrSize) {
        AtomicReference<List<PartitionDescription>> settled = new AtomicReference<>();
        Awaitility.await("topic " + topic + " led with an ISR of " + isrSize).atMost(WAIT)
                .pollInterval(Duration.ofMillis(50)).until(() -> {
                    List<PartitionDescription> ps = describe(admin, topic).partitions();
                    boolean ok = !ps.isEmpty() && ps.stream().allMatch(p -> p.leader() > 0 && p.isr().size() == isrSize
                            && leadsLocally(cluster, new TopicPartition(topic, p.partition()), p.leader()));
                    settled.set(ps);
                    return ok;
                });
        return settled.get();
    }

    static TopicDescription describe(TidelineAdmin admin, String topic) {
        return admin.describeTopics(List.of(topic)).get(0);
    }

    static PartitionDescription describe(TidelineAdmin admin, TopicPartition tp) {
        return describe(admin, tp.topic()).partitions().get(tp.partition());
    }

    /** Whether node {@code id} runs and has taken the leadership of {@code tp} from the metadata it applied. */
    static boolean leadsLocally(NodeTestCluster cluster, TopicPartition tp, int id) {
        return cluster.running().stream().anyMatch(n -> n.nodeId() == id
                && n.replicaManager().partition(tp).map(p -> p.isLeader()).orElse(false));
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String string(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
