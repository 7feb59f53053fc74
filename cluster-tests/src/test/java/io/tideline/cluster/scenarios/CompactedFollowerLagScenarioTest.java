package io.tideline.cluster.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Gauge;
import io.tideline.client.ConsumerRecord;
import io.tideline.client.PartitionReplicas;
import io.tideline.client.ProducerRecord;
import io.tideline.client.RecordMetadata;
import io.tideline.client.ReplicaDescription;
import io.tideline.client.ReplicaState;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineConsumer;
import io.tideline.client.TidelineProducer;
import io.tideline.cluster.harness.ClusterHarness;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.replication.fetcher.FollowerStatusView;
import io.tideline.replication.follower.ReplicaStatus;
import io.tideline.replication.metrics.ReplicationMetrics;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.segment.LogFileNames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 10 of docs/testing.md, "Scenarios": the follower-lag story of a compacted topic, the counterpart of
 * {@link MissionScenarioTest}. Three nodes, one partition on [1, 2, 3] with {@code cleanup.policy=compact}. Keyed
 * records (50 keys, one write in ten a tombstone) reach all three; follower 3's replication link to leader 1 is
 * cut while more updates of the same keys roll the leader's segments and its cleaner compacts them, until the
 * leader's cleaner checkpoint is past node 3's log end and no batch of the leader holds that offset (the one node 3
 * will fetch at); the last writes of the cut delete five keys node 3 holds values of. Healed, node 3 must not get
 * OFFSET_OUT_OF_RANGE (compaction never moves the log start offset, B181): its fetch at the cleaned-away offset
 * gets the next batch that exists, it appends across the gap (B222), rejoins the ISR with the leader's log end and
 * is never FAILED. Every replica's own log, and a consumer reading from the start, then hold for each key its last
 * acknowledged value, deleted keys absent. Last, five more keys are deleted in sync under a short
 * delete.retention.ms, and every replica's own cleaner removes their tombstones (B185) with the keys still absent.
 *
 * <p>delete.retention.ms is long while node 3 is cut: Kafka's rule removes a tombstone once its horizon has passed
 * whoever has not fetched it yet, and a replica cut off for longer keeps the deleted keys; the disabled method shows it.
 */
@ExtendWith(DumpClusterStateOnFailure.class)
class CompactedFollowerLagScenarioTest {
    private static final String TOPIC = "compacted-lag";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int LEADER = 1;
    private static final int CUT = 3;
    private static final List<Integer> REPLICAS = List.of(LEADER, 2, CUT);
    private static final int KEYS = 50;
    /** One write in this many is a tombstone. */
    private static final int TOMBSTONE_EVERY = 10;
    private static final int IN_FLIGHT = 200;
    private static final String PADDING = "x".repeat(100);
    /** Longer than the whole test: no tombstone goes before every replica has it. */
    private static final long LONG_DELETE_RETENTION_MS = 600_000;
    /** Keys 0-4 are deleted as the last writes while node 3 is cut, keys 5-9 with every replica in sync. */
    private static final int DELETED_WHILE_CUT = 5;
    private static final int DELETED_IN_SYNC = 5;

    @TempDir
    Path dir;
    ClusterHarness cluster;
    private TidelineAdmin admin;
    private TidelineProducer producer;
    private final Random random = new Random(20261204L);
    /** Per key, the acknowledged write with the highest offset: what compaction must keep. */
    private final Map<String, Acknowledged> model = new TreeMap<>();
    private long writes;
    /** produce() writes the keys from this index up; those below are deleted and left so. */
    private int firstKey;

    private record Acknowledged(long offset, String value) {
    }

    @AfterEach
    void close() {
        if (producer != null) {
            producer.close();
        }
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void followerCutOffWhileTheLeaderCompactsCatchesUpAcrossTheGapsWithoutOffsetOutOfRange() throws Exception {
        startWithCompactedTopic(LONG_DELETE_RETENTION_MS);
        produce(2000);
        awaitSameLogEnd();

        cluster.replicationProxy(CUT, LEADER).cut();
        long cutLogEnd = log(CUT).logEndOffset();
        produce(2000);
        Awaitility.await("node 3 out of the ISR").atMost(Duration.ofSeconds(20))
                .until(() -> !image().getIsrList().contains(CUT));
        // Updates go on until the leader's cleaner has removed the batch at node 3's fetch offset: node 3's
        // next fetch then asks for an offset no batch of the leader holds.
        Awaitility.await("the leader's cleaner removed the batch at node 3's log end " + cutLogEnd)
                .atMost(Duration.ofSeconds(40)).pollInSameThread().pollInterval(Duration.ofMillis(200))
                .pollDelay(Duration.ZERO).until(() -> {
                    produce(500);
                    return cleanerCheckpoint(LEADER).orElse(-1L) > cutLogEnd && !holdsBatchAt(log(LEADER), cutLogEnd);
                });
        // The last writes of the cut delete five keys that node 3 holds values of: it must get the tombstones.
        deleteKeys(DELETED_WHILE_CUT);
        assertEquals(cutLogEnd, log(CUT).logEndOffset(), "node 3 fetched nothing while cut");
        assertEquals(0L, log(LEADER).logStartOffset(), "compaction never moves the log start offset (B181)");
        long leaderEnd = log(LEADER).logEndOffset();

        cluster.replicationProxy(CUT, LEADER).heal();
        Set<ReplicaStatus> statuses = EnumSet.noneOf(ReplicaStatus.class);
        Awaitility.await("node 3 catches up and rejoins the ISR").atMost(Duration.ofSeconds(30))
                .pollInSameThread().pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                    status(CUT).ifPresent(statuses::add);
                    ReplicaDescription three = replica(CUT);
                    assertNotEquals(ReplicaState.FAILED, three.state(), three.toString());
                    assertEquals(Set.of(LEADER, 2, CUT), new HashSet<>(image().getIsrList()));
                    assertEquals(leaderEnd, log(CUT).logEndOffset());
                    assertEquals(ReplicaState.IN_SYNC, three.state(), three.toString());
                });
        assertTrue(statuses.stream().noneMatch(s -> s == ReplicaStatus.FAILED || s == ReplicaStatus.REBUILDING),
                "node 3's fetcher went " + statuses);
        assertEquals(0L, metric(LEADER, ReplicationMetrics.partitionMetric("OffsetOutOfRangeCount", TP)),
                "the leader answered OFFSET_OUT_OF_RANGE");
        assertEquals(0L, metric(CUT, ReplicationMetrics.FETCHER_FAILED_PARTITIONS), "a FAILED partition on node 3");
        assertEquals(0L, log(CUT).logStartOffset(), "node 3's log start offset");
        assertFalse(holdsBatchAt(log(CUT), cutLogEnd), "node 3 appended across the leader's gap at " + cutLogEnd
                + " (B222), so no batch of its log holds that offset either");
        assertReplicasAndConsumerHoldTheModel();

        // Tombstones go: deletes written now, with every replica in sync, get a short delete horizon (B185), and
        // once it has passed every replica's own cleaner removes them; the keys stay absent everywhere.
        var altered = admin.alterTopicConfigs(TOPIC, Map.of("delete.retention.ms", "300"), List.of());
        assertEquals(Errors.NONE, altered.error(), altered.toString());
        Awaitility.await("delete.retention.ms=300 applied on every replica").atMost(Duration.ofSeconds(10))
                .until(() -> REPLICAS.stream().allMatch(b -> log(b).config().deleteRetentionMs() == 300));
        firstKey = DELETED_WHILE_CUT + DELETED_IN_SYNC;
        deleteKeys(firstKey);
        Awaitility.await("every replica's cleaner removed the tombstones of the keys deleted in sync")
                .atMost(Duration.ofSeconds(30)).pollInSameThread().pollInterval(Duration.ofMillis(200))
                .pollDelay(Duration.ZERO).until(() -> {
                    produce(200);
                    awaitSameLogEnd();
                    return REPLICAS.stream().allMatch(b -> keysInLog(b).stream().noneMatch(
                            k -> keyIndex(k) >= DELETED_WHILE_CUT && keyIndex(k) < firstKey));
                });
        assertReplicasAndConsumerHoldTheModel();
    }

    /**
     * What a replica cut off for longer than delete.retention.ms comes back to: the leader has removed the
     * tombstones written meanwhile (B185, Kafka's rule, which does not look at followers), node 3 fetches on past
     * them and keeps the values it had of the deleted keys, so its log and the leader's disagree on those keys
     * (and they would come back if node 3 led). Run it to see the divergence; it fails on node 3's log.
     */
    @Test
    @Disabled("reproduces a divergence Kafka's tombstone rule allows: a replica cut off past delete.retention.ms "
            + "keeps the deleted keys (docs/testing.md, Scenarios 10); enable once the policy is decided")
    void followerCutOffPastDeleteRetentionGetsTheDeletes() throws Exception {
        startWithCompactedTopic(500);
        produce(2000);
        awaitSameLogEnd();
        cluster.replicationProxy(CUT, LEADER).cut();
        firstKey = DELETED_WHILE_CUT;
        deleteKeys(DELETED_WHILE_CUT);
        Awaitility.await("the leader's cleaner removed the tombstones").atMost(Duration.ofSeconds(40))
                .pollInSameThread().pollInterval(Duration.ofMillis(200)).pollDelay(Duration.ZERO).until(() -> {
                    produce(500);
                    return keysInLog(LEADER).stream().noneMatch(k -> keyIndex(k) < DELETED_WHILE_CUT);
                });
        long leaderEnd = log(LEADER).logEndOffset();
        cluster.replicationProxy(CUT, LEADER).heal();
        Awaitility.await("node 3 catches up").atMost(Duration.ofSeconds(30))
                .until(() -> log(CUT).logEndOffset() == leaderEnd);
        assertReplicasAndConsumerHoldTheModel();
    }

    private void startWithCompactedTopic(long deleteRetentionMs) throws Exception {
        cluster = ClusterHarness.start(dir, 3, Map.of(
                "replica.lag.time.max.ms", 1000,
                "log.cleaner.backoff.ms", 200,
                // Three stores share this JVM's heap: a small dedupe map each (50 keys need a few KiB).
                "log.cleaner.dedupe.buffer.size", 2 * 1024 * 1024,
                "log.cleaner.io.buffer.size", 64 * 1024));
        admin = new TidelineAdmin(Map.of("bootstrap.servers", cluster.bootstrapServers()));
        var created = admin.createTopic(TOPIC, Map.of(0, REPLICAS), Map.of(
                "cleanup.policy", "compact",
                "segment.bytes", String.valueOf(16 * 1024),
                "min.cleanable.dirty.ratio", "0.01",
                "delete.retention.ms", String.valueOf(deleteRetentionMs),
                "file.delete.delay.ms", "300",
                "min.insync.replicas", "2"));
        assertEquals(Errors.NONE, created.error(), created.toString());
        Awaitility.await("all three in sync").atMost(Duration.ofSeconds(20))
                .until(() -> image().getIsrCount() == 3 && image().getLeader() == LEADER);
        producer = new TidelineProducer(Map.of("bootstrap.servers", cluster.bootstrapServers(), "acks", "all",
                "delivery.timeout.ms", 30_000, "request.timeout.ms", 10_000));
    }

    /** Every replica's own log, and a consumer reading from the start, hold the model's latest value per key. */
    private void assertReplicasAndConsumerHoldTheModel() {
        Map<String, String> expected = expectedLatest();
        for (int b : REPLICAS) {
            assertEquals(expected, latestPerKey(b), "broker " + b + "'s log, latest value per key");
        }
        assertEquals(expected, consumedLatestPerKey(), "a consumer reading from the start, latest value per key");
    }

    /** Deletes the keys {@code key-<from - 5>} to {@code key-<from - 1>}, acks=all, one tombstone each. */
    private void deleteKeys(int from) throws Exception {
        for (int k = from - 5; k < from; k++) {
            String key = "key-" + k;
            long offset = producer.send(new ProducerRecord(TOPIC, 0, bytes(key), null)).get(30, TimeUnit.SECONDS)
                    .offset();
            model.put(key, new Acknowledged(offset, null));
        }
    }

    /**
     * Sends {@code count} writes to random keys, {@code IN_FLIGHT} at a time, every tenth a tombstone, and waits
     * for each acknowledgement: the model keeps the write at the highest offset of each key.
     */
    private void produce(int count) throws Exception {
        for (int sent = 0; sent < count; sent += IN_FLIGHT) {
            Map<Future<RecordMetadata>, String[]> window = new HashMap<>();
            for (int i = 0; i < Math.min(IN_FLIGHT, count - sent); i++) {
                String key = "key-" + (firstKey + random.nextInt(KEYS - firstKey));
                long n = writes++;
                String value = n % TOMBSTONE_EVERY == TOMBSTONE_EVERY - 1 ? null : key + "-v" + n + "-" + PADDING;
                window.put(producer.send(new ProducerRecord(TOPIC, 0, bytes(key), bytes(value))),
                        new String[] {key, value});
            }
            for (Map.Entry<Future<RecordMetadata>, String[]> e : window.entrySet()) {
                long offset = e.getKey().get(30, TimeUnit.SECONDS).offset();
                String key = e.getValue()[0];
                Acknowledged previous = model.get(key);
                if (previous == null || previous.offset() < offset) {
                    model.put(key, new Acknowledged(offset, e.getValue()[1]));
                }
            }
        }
    }

    /** The keys of every record in broker {@code b}'s log, tombstones included, up to its log end. */
    private Set<String> keysInLog(int b) {
        Log log = log(b);
        Set<String> keys = new HashSet<>();
        long next = log.logStartOffset();
        long end = log.logEndOffset();
        while (next < end) {
            long before = next;
            try (FetchDataInfo info = log.read(next, 1024 * 1024, end, true)) {
                for (RecordBatch batch : info.records().toMemoryRecords().batches()) {
                    for (Record r : batch.records()) {
                        keys.add(new String(r.key(), StandardCharsets.UTF_8));
                    }
                    next = Math.max(next, batch.lastOffset() + 1);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (next == before) {
                break;
            }
        }
        return keys;
    }

    private static int keyIndex(String key) {
        return Integer.parseInt(key.substring("key-".length()));
    }

    /** The model's keys with their last value; tombstoned keys left out. */
    private Map<String, String> expectedLatest() {
        Map<String, String> latest = new TreeMap<>();
        model.forEach((k, a) -> {
            if (a.value() != null) {
                latest.put(k, a.value());
            }
        });
        return latest;
    }

    /**
     * Broker {@code b}'s own log read from its log start offset to its high watermark (once that is the leader's
     * log end), folded to the latest value per key; a key whose latest record is a tombstone is left out.
     */
    private Map<String, String> latestPerKey(int b) {
        Log log = log(b);
        Awaitility.await("broker " + b + "'s high watermark at the leader's log end").atMost(Duration.ofSeconds(20))
                .until(() -> log.highWatermark() == log(LEADER).logEndOffset());
        Map<String, String> latest = new TreeMap<>();
        long hw = log.highWatermark();
        long next = log.logStartOffset();
        while (next < hw) {
            List<RecordBatch> batches;
            try (FetchDataInfo info = log.read(next, 1024 * 1024, hw, true)) {
                batches = info.records().toMemoryRecords().batches();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            long before = next;
            for (RecordBatch batch : batches) {
                for (Record r : batch.records()) {
                    if (r.offset() >= next && r.offset() < hw) {
                        fold(latest, r.key(), r.value());
                    }
                }
                next = Math.max(next, batch.lastOffset() + 1);
            }
            assertTrue(next > before, "broker " + b + ": a read at " + before + " below " + hw + " returned nothing");
        }
        return latest;
    }

    /** A consumer's read of the partition from its start to its end offset, folded to the latest value per key. */
    private Map<String, String> consumedLatestPerKey() {
        Map<String, String> latest = new TreeMap<>();
        try (TidelineConsumer consumer = new TidelineConsumer(Map.of("bootstrap.servers", cluster.bootstrapServers(),
                "auto.offset.reset", "none"))) {
            consumer.assign(List.of(TP));
            consumer.seekToBeginning(List.of(TP));
            long end = consumer.endOffsets(List.of(TP)).get(TP);
            Awaitility.await("a consumer reads up to " + end).atMost(Duration.ofSeconds(30))
                    .pollDelay(Duration.ZERO).until(() -> {
                        for (ConsumerRecord r : consumer.poll(Duration.ofMillis(200))) {
                            fold(latest, r.key(), r.value());
                        }
                        return consumer.position(TP) >= end;
                    });
        }
        return latest;
    }

    private static void fold(Map<String, String> latest, byte[] key, byte[] value) {
        String k = new String(key, StandardCharsets.UTF_8);
        if (value == null) {
            latest.remove(k);
        } else {
            latest.put(k, new String(value, StandardCharsets.UTF_8));
        }
    }

    /** Whether some batch of {@code log} holds {@code offset} (a cleaning may have removed it: a gap, B184). */
    private static boolean holdsBatchAt(Log log, long offset) {
        try (FetchDataInfo info = log.read(offset, 1, log.logEndOffset(), true)) {
            List<RecordBatch> batches = info.records().toMemoryRecords().batches();
            return !batches.isEmpty() && batches.get(0).baseOffset() <= offset;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The partition's first dirty offset in broker {@code b}'s {@code cleaner-offset-checkpoint} (B190): lines
     * {@code 0}, the count, then {@code <topic> <partition> <offset>}; empty before its first cleaning.
     */
    private Optional<Long> cleanerCheckpoint(int b) throws IOException {
        Path file = cluster.dataDir(b).resolve("logs").resolve(LogFileNames.CLEANER_OFFSET_CHECKPOINT);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        List<String> lines = Files.readAllLines(file);
        List<Long> found = new ArrayList<>();
        for (String line : lines.subList(Math.min(2, lines.size()), lines.size())) {
            String[] fields = line.trim().split(" ");
            if (fields.length == 3 && fields[0].equals(TOPIC) && fields[1].equals("0")) {
                found.add(Long.parseLong(fields[2]));
            }
        }
        return found.stream().findFirst();
    }

    private void awaitSameLogEnd() {
        Awaitility.await("every replica at the leader's log end").atMost(Duration.ofSeconds(20))
                .until(() -> REPLICAS.stream().allMatch(b -> log(b).highWatermark() == log(LEADER).logEndOffset()
                        && log(b).logEndOffset() == log(LEADER).logEndOffset()));
    }

    private Optional<ReplicaStatus> status(int broker) {
        return cluster.node(broker).replicaManager().fetcherManager().status(TP).map(FollowerStatusView::status);
    }

    private ReplicaDescription replica(int broker) {
        PartitionReplicas replicas = admin.describeReplicas(List.of(TP)).get(TP);
        return replicas.replicas().stream().filter(r -> r.brokerId() == broker).findFirst()
                .orElseThrow(() -> new AssertionError("no replica " + broker + " in " + replicas));
    }

    private long metric(int broker, String name) {
        Gauge<?> gauge = cluster.node(broker).metrics().getGauges().get(name);
        return ((Number) gauge.getValue()).longValue();
    }

    private static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    private Log log(int broker) {
        return new PartitionProbe(cluster, TP, null).log(broker);
    }

    private PartitionRecord image() {
        return new PartitionProbe(cluster, TP, null).image(LEADER);
    }
}
