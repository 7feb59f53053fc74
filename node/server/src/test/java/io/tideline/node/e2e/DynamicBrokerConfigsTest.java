package io.tideline.node.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.ConfigEntry;
import io.tideline.client.ProducerRecord;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineClientException;
import io.tideline.client.TidelineProducer;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.TidelineNode;
import io.tideline.store.log.Log;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dynamic broker configs on a running three-node cluster (docs/behaviours.md B56): a cluster-wide default
 * reaches every broker without a restart, a broker's own value beats it, a topic's override beats both,
 * and the values are in the metadata log, so a restarted broker comes back with them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DynamicBrokerConfigsTest {
    private NodeTestCluster cluster;
    private TidelineAdmin admin;

    @BeforeAll
    void startCluster(@TempDir Path dir) throws Exception {
        // A retention pass every 300 ms: "the next pass" comes soon after a change.
        // Three voters, so that one restarting leaves a quorum; the topics live on brokers 1 and 2 only.
        cluster = new NodeTestCluster(dir, 3, Map.of("log.retention.check.interval.ms", 300,
                "leader.replication.throttled.rate", 1_000_000)).startAll();
        admin = new TidelineAdmin(E2e.clientConfig(cluster, Map.of()));
    }

    @AfterAll
    void stopCluster() {
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aClusterDefaultRetentionDeletesOldSegmentsOnTheNextPassWhereNoBrokerOrTopicValueOverridesIt() throws Exception {
        // One partition on each broker, so each broker's own retention is what acts on it.
        createOn("aging-1", 1, Map.of("segment.bytes", "200"));
        createOn("aging-2", 2, Map.of("segment.bytes", "200"));
        createOn("keeps-own", 1, Map.of("segment.bytes", "200", "retention.ms", "-1"));
        long anHourAgo = System.currentTimeMillis() - 3_600_000L;
        for (String topic : List.of("aging-1", "aging-2", "keeps-own")) {
            produceOld(topic, anHourAgo);
        }
        Log aging1 = log(1, "aging-1");
        Log aging2 = log(2, "aging-2");
        Log keepsOwn = log(1, "keeps-own");
        assertTrue(aging1.numberOfSegments() >= 3, "segment.bytes=200 should have rolled: " + aging1);
        awaitRetentionPasses(1, 2); // two retention passes under the static 7 days: nothing goes
        assertEquals(0, aging1.logStartOffset());

        admin.alterBrokerConfigs(OptionalInt.of(2), Map.of("log.retention.ms", "-1"), List.of());
        admin.alterBrokerConfigs(OptionalInt.empty(), Map.of("log.retention.ms", "60000"), List.of());

        Awaitility.await("broker 1's retention pass under the new default").atMost(E2e.WAIT)
                .until(() -> aging1.logStartOffset() > 0 && aging1.numberOfSegments() == 1);
        assertEquals(60_000L, aging1.config().retentionMs());
        // Broker 2's own value beats the default; the topic's override beats both.
        Awaitility.await("broker 2 applied both changes").atMost(E2e.WAIT).until(() ->
                cluster.node(2).image().brokerConfigs(-1).containsKey("log.retention.ms"));
        assertEquals(-1L, aging2.config().retentionMs());
        assertEquals(-1L, keepsOwn.config().retentionMs());
        awaitRetentionPasses(2, 2);
        assertEquals(0, aging2.logStartOffset(), "broker 2 keeps its records: its own retention is unlimited");
        assertEquals(0, keepsOwn.logStartOffset(), "the topic's own retention.ms=-1 wins over the broker default");

        Map<String, ConfigEntry> broker2 = admin.describeBrokerConfigs(OptionalInt.of(2));
        ConfigEntry retention = broker2.get("log.retention.ms");
        assertEquals("-1", retention.value());
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG, retention.source());
        assertEquals(List.of(new ConfigEntry.ConfigSynonym("log.retention.ms", "-1", ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG),
                new ConfigEntry.ConfigSynonym("log.retention.ms", "60000", ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG),
                new ConfigEntry.ConfigSynonym("log.retention.hours", "168", ConfigEntry.ConfigSource.DEFAULT_CONFIG)),
                retention.synonyms());
        assertEquals(Map.of("log.retention.ms", "60000"), values(admin.describeBrokerConfigs(OptionalInt.empty())));

        // The values live in the metadata quorum: a restarted broker runs with them before anything changes.
        cluster.stop(2);
        TidelineNode restarted = cluster.restart(2);
        Awaitility.await("broker 2 back with its dynamic retention").atMost(E2e.WAIT).until(() ->
                restarted.logManager().getLog(new TopicPartition("aging-2", 0))
                        .map(l -> l.config().retentionMs() == -1L).orElse(false));

        // Deleting the broker's own value lets the default through, at once.
        admin.alterBrokerConfigs(OptionalInt.of(2), Map.of(), List.of("log.retention.ms"));
        Awaitility.await("broker 2 follows the default again").atMost(E2e.WAIT).until(() ->
                log(2, "aging-2").logStartOffset() > 0);
        admin.alterBrokerConfigs(OptionalInt.empty(), Map.of(), List.of("log.retention.ms"));
    }

    @Test
    void aThrottleRateChangeReachesTheRunningQuotaAndDeletingItRestoresTheStaticRate() {
        assertEquals(1_000_000L, cluster.node(1).replicaManager().leaderQuota().rate(), "static");
        admin.alterBrokerConfigs(OptionalInt.empty(), Map.of("leader.replication.throttled.rate", "4096",
                "follower.replication.throttled.rate", "2048"), List.of());
        admin.alterBrokerConfigs(OptionalInt.of(1), Map.of("follower.replication.throttled.rate", "1024"), List.of());
        Awaitility.await("the rates on both brokers").atMost(E2e.WAIT).until(() ->
                cluster.node(1).replicaManager().leaderQuota().rate() == 4096
                        && cluster.node(1).replicaManager().followerQuota().rate() == 1024
                        && cluster.node(2).replicaManager().leaderQuota().rate() == 4096
                        && cluster.node(2).replicaManager().followerQuota().rate() == 2048);

        admin.alterBrokerConfigs(OptionalInt.empty(), Map.of(), List.of("leader.replication.throttled.rate",
                "follower.replication.throttled.rate"));
        admin.alterBrokerConfigs(OptionalInt.of(1), Map.of(), List.of("follower.replication.throttled.rate"));
        Awaitility.await("static and built-in rates again").atMost(E2e.WAIT).until(() ->
                cluster.node(2).replicaManager().leaderQuota().rate() == 1_000_000L
                        && cluster.node(1).replicaManager().followerQuota().isUnlimited());
    }

    @Test
    void aClusterDefaultMinInsyncReplicasRefusesAcksAllProducesToTopicsWithoutTheirOwnUntilDeleted() throws Exception {
        createOn("min-isr-follows", 1, Map.of());
        createOn("min-isr-own", 1, Map.of("min.insync.replicas", "1"));
        TopicPartition follows = new TopicPartition("min-isr-follows", 0);
        try (TidelineProducer producer = new TidelineProducer(E2e.clientConfig(cluster, Map.of("acks", "all",
                "retries", "0")))) {
            producer.send(new ProducerRecord(follows.topic(), 0, null, E2e.bytes("before"))).get();

            admin.alterBrokerConfigs(OptionalInt.empty(), Map.of("min.insync.replicas", "2"), List.of());
            Awaitility.await("broker 1's leader takes the default").atMost(E2e.WAIT).until(() ->
                    cluster.node(1).replicaManager().partition(follows).orElseThrow().minInsyncReplicas() == 2);
            // One replica, two needed: Kafka's answer for an acks=all produce is NOT_ENOUGH_REPLICAS.
            java.util.concurrent.ExecutionException refused = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> producer.send(new ProducerRecord(follows.topic(), 0, null, E2e.bytes("refused"))).get());
            assertEquals(Errors.NOT_ENOUGH_REPLICAS, ((TidelineClientException) refused.getCause()).error(),
                    String.valueOf(refused.getCause()));
            producer.send(new ProducerRecord("min-isr-own", 0, null, E2e.bytes("own value 1"))).get();
            // Any broker may answer the describe: each shows its own value, the default once it has it.
            Awaitility.await("describe shows the broker's dynamic value for a topic without its own")
                    .atMost(E2e.WAIT).until(() ->
                            admin.describeTopics(List.of(follows.topic())).get(0).minInsyncReplicas() == 2);

            admin.alterBrokerConfigs(OptionalInt.empty(), Map.of(), List.of("min.insync.replicas"));
            Awaitility.await("the static value again").atMost(E2e.WAIT).until(() ->
                    cluster.node(1).replicaManager().partition(follows).orElseThrow().minInsyncReplicas() == 1);
            producer.send(new ProducerRecord(follows.topic(), 0, null, E2e.bytes("after"))).get();
        }
        assertEquals(2L, log(1, follows.topic()).logEndOffset(), "the refused record was not appended");
    }

    @Test
    void badKeysValuesAndBrokersAreTypedErrors() {
        TidelineClientException notDynamic = assertThrows(TidelineClientException.class, () -> admin.alterBrokerConfigs(
                OptionalInt.of(1), Map.of("num.io.threads", "4"), List.of()));
        assertEquals(Errors.INVALID_CONFIG, notDynamic.error());
        assertEquals("Cannot update these configs dynamically: [num.io.threads]", notDynamic.getMessage());
        TidelineClientException badValue = assertThrows(TidelineClientException.class, () -> admin.alterBrokerConfigs(
                OptionalInt.empty(), Map.of("log.segment.bytes", "1"), List.of()));
        assertEquals(Errors.INVALID_CONFIG, badValue.error());
        assertTrue(badValue.getMessage().contains("log.segment.bytes"), badValue.getMessage());
        assertEquals(Errors.BROKER_NOT_AVAILABLE, assertThrows(TidelineClientException.class,
                () -> admin.alterBrokerConfigs(OptionalInt.of(9), Map.of("log.retention.ms", "1"), List.of())).error());
        assertEquals(Errors.BROKER_NOT_AVAILABLE, assertThrows(TidelineClientException.class,
                () -> admin.describeBrokerConfigs(OptionalInt.of(9))).error());
    }

    private void createOn(String topic, int broker, Map<String, String> configs) {
        assertTrue(admin.createTopic(topic, Map.of(0, List.of(broker)), configs).isSuccess(), topic);
        E2e.awaitSettled(cluster, admin, topic, 1);
    }

    private void produceOld(String topic, long timestamp) throws Exception {
        try (TidelineProducer producer = new TidelineProducer(E2e.clientConfig(cluster, Map.of("acks", "1")))) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord(topic, 0, null, E2e.bytes("old-" + i), timestamp + i)).get();
            }
        }
    }

    /** Waits until broker {@code broker} has run {@code passes} more retention passes from now. */
    private void awaitRetentionPasses(int broker, int passes) {
        long from = cluster.node(broker).logManager().retentionPassesCompleted();
        Awaitility.await(passes + " retention passes on broker " + broker).atMost(E2e.WAIT)
                .until(() -> cluster.node(broker).logManager().retentionPassesCompleted() >= from + passes);
    }

    private Log log(int broker, String topic) {
        return cluster.node(broker).logManager().getLog(new TopicPartition(topic, 0)).orElseThrow();
    }

    private static Map<String, String> values(Map<String, ConfigEntry> entries) {
        Map<String, String> out = new java.util.TreeMap<>();
        entries.forEach((k, v) -> out.put(k, v.value()));
        return out;
    }
}
