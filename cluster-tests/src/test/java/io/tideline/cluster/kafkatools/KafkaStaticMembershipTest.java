package io.tideline.cluster.kafkatools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients' KafkaConsumer with group.instance.id (static membership, KIP-345) against a 3-node
 * {@code scripts/cluster.sh} cluster of real node processes, through their Kafka listeners:
 * a restart within the session keeps the partitions and rebalances nobody (docs/behaviours.md B174), and a second
 * live consumer with the same instance id fences the first (B175).
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "cluster.sh is a bash script that reads /proc")
class KafkaStaticMembershipTest {
    /** Three node JVMs, the consumers and this JVM share two cores: joins can take seconds under load. */
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Long against the restart below (a new KafkaConsumer joins within a second or two). */
    private static final int SESSION_MS = 20_000;
    private static final String TOPIC = "static";
    private static final String GROUP = "g-static";
    private static final int NODES = 3;
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    @TempDir
    static Path dir;
    private static ScriptCluster cluster;
    private static List<Long> nodePids = List.of();
    private static String bootstrap;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ScriptCluster(REPO, dir, NODES);
        nodePids = cluster.startAndRecordPids();
        bootstrap = cluster.kafkaBootstrap();
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 4, (short) NODES))).all().get(60, TimeUnit.SECONDS);
            Awaitility.await("a leader for every partition of " + TOPIC).atMost(WAIT).untilAsserted(() ->
                    assertTrue(admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS).get(TOPIC)
                            .partitions().stream().allMatch(p -> p.leader() != null)));
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.stopLeavingNothing(nodePids);
        }
    }

    private static String bootstrap() {
        return bootstrap;
    }

    /** Counts the rebalance callbacks one consumer sees. */
    private static final class Counting implements ConsumerRebalanceListener {
        final AtomicInteger revoked = new AtomicInteger();
        final AtomicInteger assigned = new AtomicInteger();
        final AtomicInteger lost = new AtomicInteger();

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            revoked.incrementAndGet();
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            assigned.incrementAndGet();
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            lost.incrementAndGet();
        }

        List<Integer> counts() {
            return List.of(revoked.get(), assigned.get(), lost.get());
        }
    }

    private static KafkaConsumer<String, String> consumer(String instance, Counting listener) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instance);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, SESSION_MS);
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 300);
        p.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
        c.subscribe(List.of(TOPIC), listener);
        return c;
    }

    private static void pollAll(List<KafkaConsumer<String, String>> consumers) {
        for (KafkaConsumer<String, String> c : consumers) {
            c.poll(Duration.ofMillis(50));
        }
    }

    private static Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        return Admin.create(p);
    }

    @Test
    void aRestartedStaticConsumerGetsItsPartitionsBackAndTheOtherSeesNoRebalance() throws Exception {
        Counting aCalls = new Counting();
        KafkaConsumer<String, String> a = consumer("a", aCalls);
        KafkaConsumer<String, String> b = consumer("b", new Counting());
        List<KafkaConsumer<String, String>> open = new ArrayList<>(List.of(a, b));
        try {
            Awaitility.await("two partitions each").atMost(WAIT).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(1)).until(() -> {
                        pollAll(List.of(a, b));
                        return a.assignment().size() == 2 && b.assignment().size() == 2;
                    });
            Set<TopicPartition> aPartitions = Set.copyOf(a.assignment());
            Set<TopicPartition> bPartitions = Set.copyOf(b.assignment());
            try (Admin admin = admin()) {
                ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(GROUP)).all().get(30, TimeUnit.SECONDS)
                        .get(GROUP);
                assertEquals(Set.of("a", "b"), d.members().stream().map(m -> m.groupInstanceId().orElse("none"))
                        .collect(Collectors.toSet()), "DescribeGroups shows each member's group.instance.id");
            }
            List<Integer> before = aCalls.counts();

            // A static member's close sends no LeaveGroup: its slot waits for it for a session.
            open.remove(b);
            b.close();
            Counting restartedCalls = new Counting();
            KafkaConsumer<String, String> restarted = consumer("b", restartedCalls);
            open.add(restarted);
            Awaitility.await("the restarted consumer's assignment").atMost(WAIT).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(1)).until(() -> {
                        pollAll(List.of(a, restarted));
                        return !restarted.assignment().isEmpty();
                    });
            assertEquals(bPartitions, restarted.assignment(), "the restarted consumer holds its old partitions");
            // A rebalance would reach a within a heartbeat interval (300 ms); a few of them pass without one.
            Awaitility.await("no rebalance at a").during(Duration.ofSeconds(2)).atMost(WAIT).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(1)).until(() -> {
                        pollAll(List.of(a, restarted));
                        return aCalls.counts().equals(before) && a.assignment().equals(aPartitions);
                    });
            assertEquals(1, restartedCalls.assigned.get(), "the restarted consumer was assigned once");

            // A second live consumer with the same instance id takes the slot; the first is fenced.
            KafkaConsumer<String, String> twin = consumer("b", new Counting());
            open.add(twin);
            Awaitility.await("the twin's assignment").atMost(WAIT).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(1)).until(() -> {
                        pollAll(List.of(a, twin));
                        return !twin.assignment().isEmpty();
                    });
            assertEquals(bPartitions, twin.assignment());
            List<Throwable> fenced = new ArrayList<>();
            Awaitility.await("the first instance fenced").atMost(WAIT).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(1)).until(() -> {
                        try {
                            restarted.poll(Duration.ofMillis(50));
                            return false;
                        } catch (FencedInstanceIdException e) {
                            fenced.add(e);
                            return true;
                        }
                    });
            assertEquals(1, fenced.size());
            assertEquals(before, aCalls.counts(), "a saw no rebalance through either replacement");
            try (Admin admin = admin()) {
                Set<String> ids = new HashSet<>();
                for (MemberDescription m : admin.describeConsumerGroups(List.of(GROUP)).all().get(30, TimeUnit.SECONDS)
                        .get(GROUP).members()) {
                    ids.add(m.groupInstanceId().orElse("none"));
                }
                assertEquals(Set.of("a", "b"), ids, "still two members");
            }
            assertFalse(aPartitions.isEmpty());
            assertTrue(aPartitions.stream().noneMatch(bPartitions::contains));
        } finally {
            for (KafkaConsumer<String, String> c : open) {
                try {
                    c.close(CloseOptions.timeout(Duration.ofSeconds(5)));
                } catch (RuntimeException e) {
                    // the fenced consumer may throw again while closing
                }
            }
        }
    }
}
