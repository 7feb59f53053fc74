package io.tideline.cluster.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.TidelineAdmin;
import io.tideline.cluster.harness.ClusterHarness;
import io.tideline.cluster.harness.ReplicaLogReader;
import io.tideline.cluster.history.CheckResult;
import io.tideline.cluster.history.History;
import io.tideline.cluster.history.HistoryChecker;
import io.tideline.cluster.history.HistoryEvent.LogEntry;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.PartitionRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 3 of docs/testing.md, "Scenarios",
 * over three real nodes in one JVM: acks=all produces (min.insync.replicas=2) go on while
 * the partition's leader is killed and restarted, three times, and then partitioned from everyone (clients,
 * replication and Raft links) instead. After each restart the old leader is a follower that refuses writes
 * (NOT_LEADER_OR_FOLLOWER) and catches up into the ISR; while partitioned it acknowledges no acks=all write, the
 * controller fences it and the others elect a new leader; after the heal its unacknowledged tail is gone and it
 * follows. The checker passes.
 *
 * <p>Lenient: the producer is not idempotent, and a leader killed between appending a batch and answering makes
 * the client retry a batch that may already be in the log, so a value may land twice; the lenient checker
 * counts and reports those duplicates, and every other property is checked as strictly as with strict().
 */
@ExtendWith(DumpClusterStateOnFailure.class)
class LeaderKillScenarioTest {
    private static final String TOPIC = "leader-kill";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final List<Integer> REPLICAS = List.of(1, 2, 3);
    private static final int KILLS = 3;
    private static final Duration BOUND = Duration.ofSeconds(45);

    @TempDir
    Path dir;
    ClusterHarness cluster;
    private TidelineAdmin admin;
    private final History history = new History();
    private PartitionProbe probe;

    @AfterEach
    void close() {
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void leaderKilledAndPartitionedUnderAcksAllLoad() throws Exception {
        cluster = ClusterHarness.start(dir, 3, Map.of(
                // The faults here are kills and a partition, whose broker the controller fences and drops from
                // the ISR after the 3 s session. A short lag would also shrink the ISR to the leader alone now
                // and then on a loaded machine, and that leader killed leaves the partition offline until it
                // returns (right without unclean election, but another scenario).
                "replica.lag.time.max.ms", 10_000,
                // Leadership moves only because of the faults, not back to the preferred replica meanwhile.
                "auto.leader.rebalance.enable", false));
        probe = new PartitionProbe(cluster, TP, history);
        admin = new TidelineAdmin(Map.of("bootstrap.servers", cluster.bootstrapServers()));
        var created = admin.createTopic(TOPIC, Map.of(0, REPLICAS), Map.of("min.insync.replicas", "2"));
        assertEquals(Errors.NONE, created.error(), created.toString());
        Awaitility.await("all three in sync").atMost(BOUND).until(() -> agreedLeader() > 0 && isr().size() == 3);

        try (ProduceLoop producer = new ProduceLoop(cluster.bootstrapServers(), TP, history, "load-")) {
            awaitAcknowledged(producer, 20);
            for (int round = 1; round <= KILLS; round++) {
                killAndRestartTheLeader(producer, round);
            }
            partitionTheLeader(producer);
            awaitAcknowledged(producer, 20);
        }
        CheckResult result = probe.finalReadAndCheck(REPLICAS, HistoryChecker.lenient());
        assertEquals(0, result.lost(), result.report());
        assertTrue(result.acknowledged() >= 100, result.report());
    }

    private void killAndRestartTheLeader(ProduceLoop producer, int round) throws Exception {
        int old = agreedLeader();
        int epoch = leaderEpoch();
        probe.sample(REPLICAS);
        cluster.kill(old);
        Awaitility.await("round " + round + ": a new leader after killing " + old).atMost(BOUND)
                .until(() -> leaderAmongRunning() > 0 && leaderAmongRunning() != old);
        // acks=all goes on with the two that are left (min.insync.replicas=2).
        awaitAcknowledged(producer, 20);
        probe.sample(REPLICAS);

        cluster.restart(old);
        history.brokerRestartedAfterCrash(old);
        assertNotStaleLeader(old, epoch, "round " + round + ", restarted");
        Awaitility.await("round " + round + ": restarted " + old + " back in the ISR").atMost(BOUND)
                .until(() -> isr().contains(old) && isr().size() == 3);
        probe.sample(REPLICAS);
    }

    /** The old leader cut off from clients, replicas and the quorum, while a client on its side still writes. */
    private void partitionTheLeader(ProduceLoop producer) throws Exception {
        int old = agreedLeader();
        int epoch = leaderEpoch();
        List<Integer> others = REPLICAS.stream().filter(b -> b != old).toList();
        probe.sample(REPLICAS);
        cluster.partition(old);

        Awaitility.await("a new leader among " + others + " and " + old + " fenced").atMost(BOUND).until(() ->
                others.stream().allMatch(v -> brokerFenced(v, old) && leaderSeenBy(v) != old && leaderSeenBy(v) > 0));
        awaitAcknowledged(producer, 20);
        PartitionRecord after = probe.image(others.get(0));
        assertFalse(after.getIsrList().contains(old), after.toString());
        assertTrue(after.getLeaderEpoch() > epoch, after.toString());

        // A client that still reaches the old leader: its acks=all write is not acknowledged (nothing can
        // replicate it, and the ISR cannot shrink without the controller).
        String stale = "partitioned-old-leader-write";
        Errors answer = DirectProduce.send(cluster.clientPort(old), TP, stale, 3_000, history);
        assertNotEquals(Errors.NONE, answer, "the partitioned old leader acknowledged an acks=all write");
        probe.sample(REPLICAS);

        cluster.heal(old);
        Awaitility.await("healed " + old + " follows and is back in the ISR").atMost(BOUND)
                .until(() -> isr().contains(old) && isr().size() == 3 && agreedLeader() != old);
        assertNotStaleLeader(old, epoch, "healed after the partition");
        // Its unacknowledged tail was truncated: once caught up its log is the leader's.
        int leader = agreedLeader();
        Awaitility.await("healed " + old + " caught up").atMost(BOUND).until(() ->
                probe.log(old).highWatermark() == probe.log(leader).highWatermark()
                        && probe.log(old).logEndOffset() == probe.log(leader).logEndOffset());
        List<LogEntry> own = ReplicaLogReader.read(probe.log(old)).entries();
        assertTrue(own.stream().noneMatch(e -> e.value().equals(stale)), "the old leader kept its unacknowledged write");
        probe.sample(REPLICAS);
    }

    /**
     * Broker {@code old} does not act as the leader it was: its replica is a follower, its image names another
     * leader at a higher epoch, and a write sent straight to it is refused with NOT_LEADER_OR_FOLLOWER.
     */
    private void assertNotStaleLeader(int old, int oldEpoch, String when) {
        Awaitility.await(when + ": " + old + " knows the new leader").atMost(BOUND).until(() -> {
            PartitionRecord seen = probe.image(old);
            return seen.getLeader() != old && seen.getLeaderEpoch() > oldEpoch;
        });
        assertFalse(cluster.node(old).replicaManager().partition(TP).orElseThrow().isLeader(), when);
        Errors answer = DirectProduce.send(cluster.clientPort(old), TP, "to-" + old + "-" + when, 3_000, history);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, answer, when);
    }

    private void awaitAcknowledged(ProduceLoop producer, long more) {
        long target = producer.acknowledged() + more;
        Awaitility.await("another " + more + " acknowledged").atMost(BOUND).until(() -> producer.acknowledged() >= target);
    }

    /** The partition's leader every running node's image agrees on, or -1. */
    private int agreedLeader() {
        Set<Integer> seen = new HashSet<>();
        for (int id : REPLICAS) {
            if (cluster.isRunning(id)) {
                seen.add(leaderSeenBy(id));
            }
        }
        return seen.size() == 1 ? seen.iterator().next() : -1;
    }

    private int leaderAmongRunning() {
        int leader = agreedLeader();
        return leader > 0 && cluster.isRunning(leader) ? leader : -1;
    }

    private int leaderSeenBy(int viewer) {
        return cluster.node(viewer).image().partition(TOPIC, 0).map(PartitionRecord::getLeader).orElse(-1);
    }

    private int leaderEpoch() {
        return probe.image(agreedLeader()).getLeaderEpoch();
    }

    private List<Integer> isr() {
        int leader = leaderAmongRunning();
        return leader < 0 ? List.of() : probe.image(leader).getIsrList();
    }

    /** Broker {@code broker} is fenced in voter {@code viewer}'s quorum image (the controller's view). */
    private boolean brokerFenced(int viewer, int broker) {
        return cluster.node(viewer).quorum().orElseThrow().image().broker(broker)
                .map(BrokerRegistrationRecord::getFenced).orElse(false);
    }
}
