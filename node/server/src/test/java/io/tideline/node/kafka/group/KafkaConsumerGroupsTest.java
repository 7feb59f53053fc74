package io.tideline.node.kafka.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.proto.admin.CreateTopicsRequest;
import io.tideline.proto.admin.CreateTopicsResponse;
import io.tideline.proto.admin.NewTopic;
import io.tideline.proto.metadata.PartitionRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.GroupSubscribedToTopicException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients' KafkaConsumer in classic consumer groups (subscribe, commitSync, LeaveGroup on close) and its Admin
 * client's group calls against three nodes' Kafka listeners. The test that kills the coordinator runs last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaConsumerGroupsTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    @TempDir
    static Path dir;
    private static NodeTestCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        // A short first-rebalance delay and session floor keep the rebalances of this class within seconds.
        cluster = new NodeTestCluster(dir, 3, Map.of(
                "group.initial.rebalance.delay.ms", 100,
                "group.min.session.timeout.ms", 1000)).startAll();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static void createTopic(String name, int partitions) {
        CreateTopicsResponse created = cluster.admin(1).createTopics(CreateTopicsRequest.newBuilder()
                .addTopics(NewTopic.newBuilder().setName(name).setNumPartitions(partitions).setReplicationFactor(3))
                .build());
        assertEquals(Errors.NONE.code(), created.getResults(0).getErrorCode(), created.toString());
        for (int p = 0; p < partitions; p++) {
            int partition = p;
            Awaitility.await("leader and full ISR of " + name + "-" + p).atMost(WAIT).until(() ->
                    cluster.running().stream().allMatch(n -> n.image().partition(name, partition)
                            .map(r -> r.getIsrCount() == 3 && r.getLeader() >= 0).orElse(false)));
        }
    }

    private static String bootstrap() {
        return cluster.running().stream().map(n -> "127.0.0.1:" + cluster.kafkaPort(n.nodeId()))
                .collect(Collectors.joining(","));
    }

    private static KafkaProducer<byte[], byte[]> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static KafkaConsumer<String, String> consumer(String group) {
        return consumer(group, 6000);
    }

    private static KafkaConsumer<String, String> consumer(String group, int sessionTimeoutMs) {
        return consumer(group, sessionTimeoutMs, null);
    }

    private static KafkaConsumer<String, String> consumer(String group, int sessionTimeoutMs, String assignor) {
        Properties p = new Properties();
        if (assignor != null) {
            p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignor);
        }
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        // earliest: a consumer that forgot a committed offset would re-read from 0 and the test would see it.
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, sessionTimeoutMs);
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 300);
        p.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 1000);
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    private static Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        return Admin.create(p);
    }

    /** Sends values "{prefix}{i}" round-robin over the partitions and waits for each acknowledgement. */
    private static void produce(String topic, int partitions, String prefix, int count) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, null,
                        (prefix + i).getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
            }
        }
    }

    /** What a set of consumers of one group read, by value, and the next offset each read to per partition. */
    private static final class Reads {
        final Map<String, Integer> times = new HashMap<>();
        final Map<TopicPartition, Long> next = new HashMap<>();

        /** Polls every consumer in turn, committing what each read, until {@code done} holds (or the bound). */
        void pollUntil(String what, List<KafkaConsumer<String, String>> consumers, BooleanSupplier done) {
            Awaitility.await(what).atMost(WAIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                    .until(() -> {
                        for (KafkaConsumer<String, String> c : consumers) {
                            boolean any = false;
                            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(50))) {
                                times.merge(r.value(), 1, Integer::sum);
                                next.merge(new TopicPartition(r.topic(), r.partition()), r.offset() + 1, Math::max);
                                any = true;
                            }
                            if (any) {
                                c.commitSync();
                            }
                        }
                        return done.getAsBoolean();
                    });
        }

        boolean all(String prefix, int count) {
            for (int i = 0; i < count; i++) {
                if (!times.containsKey(prefix + i)) {
                    return false;
                }
            }
            return true;
        }

        void assertEachOnce(String prefix, int count) {
            for (int i = 0; i < count; i++) {
                assertEquals(1, times.getOrDefault(prefix + i, 0), prefix + i + " read once; read " + times);
            }
        }
    }

    private static Set<TopicPartition> partitions(String topic, int count) {
        Set<TopicPartition> all = new HashSet<>();
        for (int p = 0; p < count; p++) {
            all.add(new TopicPartition(topic, p));
        }
        return all;
    }

    /** Each consumer holds {@code sizes[i]} partitions and together they hold all of the topic's. */
    private static boolean assigned(List<KafkaConsumer<String, String>> consumers, Set<TopicPartition> all) {
        Set<TopicPartition> union = new HashSet<>();
        int total = 0;
        for (KafkaConsumer<String, String> c : consumers) {
            if (c.assignment().isEmpty()) {
                return false;
            }
            union.addAll(c.assignment());
            total += c.assignment().size();
        }
        return union.equals(all) && total == all.size();
    }

    private static Map<TopicPartition, Long> committed(Admin admin, String group) throws Exception {
        Map<TopicPartition, Long> out = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                .forEach((tp, o) -> out.put(tp, o.offset()));
        return out;
    }

    private static Map<TopicPartition, Long> sorted(Map<TopicPartition, Long> m) {
        Map<TopicPartition, Long> out = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
        out.putAll(m);
        return out;
    }

    @Test
    @Order(1)
    void threeConsumersShareThePartitionsAndTheTwoLeftTakeOverTheThirds() throws Exception {
        shareAndLeave("share", "g-share", null);
    }

    /** The same with the incremental protocol: members keep their partitions through the rebalances. */
    @Test
    @Order(2)
    void theSameWithTheCooperativeStickyAssignor() throws Exception {
        shareAndLeave("share-coop", "g-share-coop", CooperativeStickyAssignor.class.getName());
    }

    private void shareAndLeave(String topic, String group, String assignor) throws Exception {
        createTopic(topic, 3);
        Set<TopicPartition> all = partitions(topic, 3);
        Reads reads = new Reads();
        List<KafkaConsumer<String, String>> consumers = new ArrayList<>();
        try (Admin admin = admin()) {
            for (int i = 0; i < 3; i++) {
                KafkaConsumer<String, String> c = assignor == null ? consumer(group) : consumer(group, 6000, assignor);
                c.subscribe(List.of(topic));
                consumers.add(c);
            }
            reads.pollUntil("one partition each", consumers, () -> assigned(consumers, all));
            for (KafkaConsumer<String, String> c : consumers) {
                assertEquals(1, c.assignment().size(), "one partition each: " + c.assignment());
            }
            produce(topic, 3, "a", 30);
            reads.pollUntil("the first 30 records", consumers, () -> reads.all("a", 30));
            reads.assertEachOnce("a", 30);
            assertEquals(sorted(reads.next), committed(admin, group), "commitSync committed what was read");

            consumers.remove(2).close();
            reads.pollUntil("the two left hold all three partitions", consumers, () -> assigned(consumers, all));
            assertEquals(Set.of(1, 2), consumers.stream().map(c -> c.assignment().size()).collect(Collectors.toSet()));
            produce(topic, 3, "b", 30);
            reads.pollUntil("the next 30 records", consumers, () -> reads.all("b", 30));
            reads.assertEachOnce("a", 30);
            reads.assertEachOnce("b", 30);
            assertEquals(Map.of(new TopicPartition(topic, 0), 20L, new TopicPartition(topic, 1), 20L,
                    new TopicPartition(topic, 2), 20L), reads.next);
            assertEquals(sorted(reads.next), committed(admin, group), "committed offsets are what was read");
        } finally {
            consumers.forEach(KafkaConsumer::close);
        }
    }

    @Test
    @Order(3)
    void aRestartedConsumerResumesFromItsCommittedOffset() throws Exception {
        createTopic("resume", 1);
        produce("resume", 1, "r", 10);
        Reads first = new Reads();
        try (KafkaConsumer<String, String> c = consumer("g-resume")) {
            c.subscribe(List.of("resume"));
            first.pollUntil("the first 10", List.of(c), () -> first.all("r", 10));
        }
        first.assertEachOnce("r", 10);
        produce("resume", 1, "s", 5);
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        try (KafkaConsumer<String, String> c = consumer("g-resume")) {
            c.subscribe(List.of("resume"));
            Awaitility.await("the 5 new records").atMost(WAIT).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(1)).until(() -> {
                        c.poll(Duration.ofMillis(50)).forEach(got::add);
                        return got.size() >= 5;
                    });
            assertEquals(10L, got.get(0).offset(), "resumed at the committed offset, not at earliest");
            assertEquals(List.of("s0", "s1", "s2", "s3", "s4"),
                    got.stream().map(ConsumerRecord::value).collect(Collectors.toList()));
            c.commitSync(Map.of(new TopicPartition("resume", 0), new OffsetAndMetadata(15L, "all of it")));
            OffsetAndMetadata committed = c.committed(Set.of(new TopicPartition("resume", 0)))
                    .get(new TopicPartition("resume", 0));
            assertEquals(15L, committed.offset(), "OffsetFetch answers the commit just made");
            assertEquals("all of it", committed.metadata());
        }
    }

    @Test
    @Order(4)
    void adminListsDescribesAltersAndDeletesGroups() throws Exception {
        createTopic("admin", 2);
        produce("admin", 2, "d", 4);
        TopicPartition p0 = new TopicPartition("admin", 0);
        TopicPartition p1 = new TopicPartition("admin", 1);
        try (Admin admin = admin()) {
            KafkaConsumer<String, String> c = consumer("g-admin");
            try {
                c.subscribe(List.of("admin"));
                Reads reads = new Reads();
                reads.pollUntil("the 4 records", List.of(c), () -> reads.all("d", 4));

                Awaitility.await("listed").atMost(WAIT).until(() -> admin.listConsumerGroups().all()
                        .get(30, TimeUnit.SECONDS).stream().map(ConsumerGroupListing::groupId)
                        .anyMatch("g-admin"::equals));
                ConsumerGroupListing listing = admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS).stream()
                        .filter(l -> l.groupId().equals("g-admin")).findFirst().orElseThrow();
                assertEquals(GroupState.STABLE, listing.groupState().orElseThrow(), listing.toString());
                ConsumerGroupDescription d = admin.describeConsumerGroups(List.of("g-admin")).all()
                        .get(30, TimeUnit.SECONDS).get("g-admin");
                assertEquals(GroupState.STABLE, d.groupState(), d.toString());
                assertEquals("range", d.partitionAssignor(), d.toString());
                assertEquals(1, d.members().size(), d.toString());
                MemberDescription m = d.members().iterator().next();
                assertEquals(Set.of(p0, p1), m.assignment().topicPartitions(), d.toString());
                assertTrue(m.consumerId().startsWith("consumer-g-admin-"), m.toString());
                assertEquals(Map.of(p0, 2L, p1, 2L), committed(admin, "g-admin"));

                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> admin.deleteConsumerGroups(List.of("g-admin")).all().get(30, TimeUnit.SECONDS));
                assertInstanceOf(GroupNotEmptyException.class, e.getCause(), e.toString());
            } finally {
                c.close();
            }
            Awaitility.await("Empty").atMost(WAIT).until(() -> admin.describeConsumerGroups(List.of("g-admin")).all()
                    .get(30, TimeUnit.SECONDS).get("g-admin").groupState() == GroupState.EMPTY);
            admin.alterConsumerGroupOffsets("g-admin", Map.of(p0, new OffsetAndMetadata(1L, "set back")))
                    .all().get(30, TimeUnit.SECONDS);
            assertEquals(Map.of(p0, 1L, p1, 2L), committed(admin, "g-admin"));
            assertEquals("set back", admin.listConsumerGroupOffsets("g-admin").partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS).get(p0).metadata());

            admin.deleteConsumerGroups(List.of("g-admin")).all().get(30, TimeUnit.SECONDS);
            assertTrue(admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS).stream()
                    .noneMatch(l -> l.groupId().equals("g-admin")), "deleted groups are not listed");
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> admin.deleteConsumerGroups(List.of("g-admin")).all().get(30, TimeUnit.SECONDS));
            assertInstanceOf(GroupIdNotFoundException.class, e.getCause(), e.toString());
        }
    }

    @Test
    @Order(4)
    void adminDeletesOffsetsOfTopicsNoMemberSubscribesTo() throws Exception {
        createTopic("offdel-a", 2);
        createTopic("offdel-b", 1);
        produce("offdel-a", 2, "o", 4);
        TopicPartition a0 = new TopicPartition("offdel-a", 0);
        TopicPartition a1 = new TopicPartition("offdel-a", 1);
        TopicPartition b0 = new TopicPartition("offdel-b", 0);
        try (Admin admin = admin()) {
            KafkaConsumer<String, String> c = consumer("g-offdel");
            try {
                c.subscribe(List.of("offdel-a"));
                Reads reads = new Reads();
                reads.pollUntil("the 4 records", List.of(c), () -> reads.all("o", 4));
                // A member may commit a partition it does not consume; its topic is not subscribed.
                c.commitSync(Map.of(b0, new OffsetAndMetadata(3L)));
                assertEquals(Map.of(a0, 2L, a1, 2L, b0, 3L), committed(admin, "g-offdel"));

                ExecutionException e = assertThrows(ExecutionException.class, () -> admin
                        .deleteConsumerGroupOffsets("g-offdel", Set.of(a0)).all().get(30, TimeUnit.SECONDS));
                assertInstanceOf(GroupSubscribedToTopicException.class, e.getCause(), e.toString());
                admin.deleteConsumerGroupOffsets("g-offdel", Set.of(b0)).all().get(30, TimeUnit.SECONDS);
                assertEquals(Map.of(a0, 2L, a1, 2L), committed(admin, "g-offdel"), "b0 deleted, a kept");
            } finally {
                c.close();
            }
            Awaitility.await("Empty").atMost(WAIT).until(() -> admin.describeConsumerGroups(List.of("g-offdel")).all()
                    .get(30, TimeUnit.SECONDS).get("g-offdel").groupState() == GroupState.EMPTY);
            admin.deleteConsumerGroupOffsets("g-offdel", Set.of(a0, b0)).all().get(30, TimeUnit.SECONDS);
            assertEquals(Map.of(a1, 2L), committed(admin, "g-offdel"), "an Empty group loses what is named");

            KafkaConsumer<String, String> again = consumer("g-offdel");
            try {
                again.assign(List.of(a0, a1));
                Reads reread = new Reads();
                reread.pollUntil("a0 from its start, a1 past its commit", List.of(again), () -> reread.all("o", 1));
                assertTrue(reread.times.keySet().stream().allMatch(v -> Integer.parseInt(v.substring(1)) % 2 == 0),
                        "nothing of a1 (odd values) before its committed offset: " + reread.times);
            } finally {
                again.close();
            }
            ExecutionException e = assertThrows(ExecutionException.class, () -> admin
                    .deleteConsumerGroupOffsets("g-none", Set.of(a0)).all().get(30, TimeUnit.SECONDS));
            assertInstanceOf(GroupIdNotFoundException.class, e.getCause(), e.toString());
        }
    }

    @Test
    @Order(5)
    void aMemberThatStopsHeartbeatingIsRemovedAndItsPartitionsMove() throws Exception {
        createTopic("expire", 2);
        Set<TopicPartition> all = partitions("expire", 2);
        Reads reads = new Reads();
        KafkaConsumer<String, String> stays = consumer("g-expire", 2000);
        KafkaConsumer<String, String> vanishes = consumer("g-expire", 2000);
        try (Admin admin = admin()) {
            stays.subscribe(List.of("expire"));
            vanishes.subscribe(List.of("expire"));
            List<KafkaConsumer<String, String>> both = List.of(stays, vanishes);
            reads.pollUntil("one partition each", both, () -> assigned(both, all));
            produce("expire", 2, "e", 10);
            reads.pollUntil("the first 10", both, () -> reads.all("e", 10));
            // Gone without a LeaveGroup, as a crashed process: only its session's expiry removes it.
            vanishes.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP));
            reads.pollUntil("the survivor holds both", List.of(stays), () -> stays.assignment().equals(all));
            assertEquals(1, admin.describeConsumerGroups(List.of("g-expire")).all().get(30, TimeUnit.SECONDS)
                    .get("g-expire").members().size());
            produce("expire", 2, "f", 10);
            reads.pollUntil("the next 10", List.of(stays), () -> reads.all("f", 10));
            reads.assertEachOnce("e", 10);
            reads.assertEachOnce("f", 10);
            assertEquals(sorted(reads.next), committed(admin, "g-expire"));
        } finally {
            stays.close();
        }
    }

    @Test
    @Order(6)
    void theGroupMovesWhenItsCoordinatorDiesAndKeepsItsOffsets() throws Exception {
        createTopic("move", 3);
        Set<TopicPartition> all = partitions("move", 3);
        Reads reads = new Reads();
        List<KafkaConsumer<String, String>> consumers = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                KafkaConsumer<String, String> c = consumer("g-move");
                c.subscribe(List.of("move"));
                consumers.add(c);
            }
            reads.pollUntil("assigned", consumers, () -> assigned(consumers, all));
            produce("move", 3, "m", 30);
            reads.pollUntil("the first 30", consumers, () -> reads.all("m", 30));
            int coordinator;
            Map<TopicPartition, Long> before;
            try (Admin admin = admin()) {
                coordinator = admin.describeConsumerGroups(List.of("g-move")).all().get(30, TimeUnit.SECONDS)
                        .get("g-move").coordinator().id();
                before = committed(admin, "g-move");
            }
            assertEquals(sorted(reads.next), before);

            cluster.kill(coordinator);
            // The survivors only: the admin must get its answer from a live broker.
            try (Admin admin = admin()) {
                Awaitility.await("another coordinator").atMost(WAIT).ignoreExceptions().until(() ->
                        admin.describeConsumerGroups(List.of("g-move")).all().get(30, TimeUnit.SECONDS)
                                .get("g-move").coordinator().id() != coordinator);
                assertEquals(before, committed(admin, "g-move"), "the offsets survived the coordinator");
                Awaitility.await("leaders on the survivors").atMost(WAIT).until(() -> cluster.running().stream()
                        .allMatch(n -> all.stream().allMatch(tp -> n.image().partition("move", tp.partition())
                                .map(PartitionRecord::getLeader).map(l -> l != coordinator && l >= 0).orElse(false))));
                produce("move", 3, "n", 30);
                reads.pollUntil("the 30 after the move", consumers, () -> reads.all("n", 30));
                reads.assertEachOnce("m", 30);
                reads.assertEachOnce("n", 30);
                assertEquals(sorted(reads.next), committed(admin, "g-move"));
                int now = admin.describeConsumerGroups(List.of("g-move")).all().get(30, TimeUnit.SECONDS)
                        .get("g-move").coordinator().id();
                assertNotEquals(coordinator, now);
            }

            // Back again: the restarted broker is the group's coordinator once more and loads it from the image,
            // while the broker that held it meanwhile lets it go.
            cluster.restart(coordinator);
            try (Admin admin = admin()) {
                Awaitility.await("the coordinator back").atMost(WAIT).ignoreExceptions().until(() ->
                        admin.describeConsumerGroups(List.of("g-move")).all().get(30, TimeUnit.SECONDS)
                                .get("g-move").coordinator().id() == coordinator);
                produce("move", 3, "o", 30);
                reads.pollUntil("the 30 after the return", consumers, () -> reads.all("o", 30));
                reads.assertEachOnce("m", 30);
                reads.assertEachOnce("n", 30);
                reads.assertEachOnce("o", 30);
                assertEquals(sorted(reads.next), committed(admin, "g-move"));
                ConsumerGroupDescription d = admin.describeConsumerGroups(List.of("g-move")).all()
                        .get(30, TimeUnit.SECONDS).get("g-move");
                assertEquals(2, d.members().size(), d.toString());
                assertEquals(GroupState.STABLE, d.groupState(), d.toString());
            }
        } finally {
            consumers.forEach(KafkaConsumer::close);
        }
    }
}
