package io.tideline.cluster.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.TopicDescription.PartitionDescription;
import io.tideline.cluster.history.History;
import io.tideline.cluster.history.HistoryChecker;
import io.tideline.cluster.netns.DriverClient;
import io.tideline.cluster.netns.NamespaceCluster;
import io.tideline.cluster.netns.NamespaceNode;
import io.tideline.cluster.netns.NetworkNamespace;
import io.tideline.common.TopicPartition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 3 of docs/testing.md, "Scenarios",
 * over three real node processes in a private network namespace, under one acks=all
 * producer (the driver, in the namespace) that runs throughout: the partition's leader is lost three times
 * in three ways, and each time a new leader is elected among the others, acknowledgements go on, and the old
 * leader comes back as a follower (it must not act as a stale leader: anything it appended alone is truncated),
 * back in the ISR. The history checker passes over the final read and each replica's files.
 * <ol>
 *   <li>kill -9 of the leader, restarted over the same data (a crash: nothing flushed, no controlled shutdown);
 *   <li>the leader partitioned from both other nodes with iptables (every port, both ways), while the driver
 *       still reaches it: its appends cannot reach the ISR, the others fence it and elect; then healed;
 *   <li>SIGSTOP of the leader (frozen with its sockets open), SIGCONT after the others elected.
 * </ol>
 */
class NetnsLeaderFailureScenarioTest {
    private static final TopicPartition TP = new TopicPartition("failover", 0);
    private static final List<Integer> ALL = List.of(1, 2, 3);
    private static final String LOOP = "load";

    @TempDir
    Path dir;
    private NamespaceCluster cluster;
    private DriverClient driver;
    private NamespaceProbe probe;
    private final History history = new History();

    @AfterEach
    void removeEverything() {
        String ns = cluster == null ? null : cluster.namespace().name();
        try {
            if (driver != null) {
                driver.close();
            }
        } finally {
            if (cluster != null) {
                cluster.close();
                assertFalse(NetworkNamespace.exists(ns), "namespace " + ns + " removed");
            }
        }
    }

    @Test
    void leaderKilledPartitionedAndPausedUnderAcksAllLoad() throws Exception {
        cluster = NamespaceCluster.start(dir, NamespaceProbe.REPO, System.getProperty("java.class.path"), 3, Map.of(
                "replica.lag.time.max.ms", 2000,
                "broker.session.timeout.ms", 4000,
                // Leadership moves only by the faults below, so each round knows whom it hits.
                "auto.leader.rebalance.enable", false), Duration.ofSeconds(180));
        try {
            run();
        } catch (Throwable t) {
            System.err.println(NamespaceProbe.dump(cluster));
            throw t;
        }
    }

    private void run() throws Exception {
        driver = cluster.startDriver(history);
        probe = new NamespaceProbe(cluster, driver, TP, history);
        cluster.admin(1, "topics", "--create", "--topic", TP.topic(), "--replica-assignment", "1:2:3",
                "--config", "min.insync.replicas=2").assertOk();
        awaitAllInSync(1);
        driver.startProducing(LOOP, TP, "v");

        // 1. kill -9, restart.
        int killed = leaderAfterLoad(1);
        cluster.node(killed).kill9();
        int next = awaitNewLeader(killed);
        Awaitility.await("the new leader's UnderReplicatedPartitions shows the lost replica")
                .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> probe.underReplicated(next) == 1);
        awaitAcknowledgementsGoOn();
        cluster.startAndAwaitServing(List.of(killed), Duration.ofSeconds(120));
        history.brokerRestartedAfterCrash(killed);
        awaitAllInSync(next);
        assertFollows(killed, next);

        // 2. iptables partition of the leader from both others (every port, both ways); the driver reaches it.
        int partitioned = leaderAfterLoad(next);
        NamespaceNode old = cluster.node(partitioned);
        for (NamespaceNode other : cluster.nodes()) {
            if (other != old) {
                cluster.firewall().cut(old, other);
                cluster.firewall().cut(other, old);
            }
        }
        int elected = awaitNewLeader(partitioned);
        awaitAcknowledgementsGoOn();
        assertTrue(cluster.firewall().droppedPackets() > 0, cluster.firewall().listing());
        probe.sample();
        cluster.firewall().healAll();
        awaitAllInSync(elected);
        assertFollows(partitioned, elected);

        // 3. SIGSTOP, SIGCONT.
        int paused = leaderAfterLoad(elected);
        cluster.node(paused).pause();
        Awaitility.await("stopped").atMost(Duration.ofSeconds(10)).until(() -> cluster.node(paused).procState() == 'T');
        int successor = awaitNewLeader(paused);
        awaitAcknowledgementsGoOn();
        cluster.node(paused).resume();
        awaitAllInSync(successor);
        assertFollows(paused, successor);

        driver.stopProducing(LOOP);
        String under = cluster.admin(successor, "topics", "--describe", "--under-replicated-partitions")
                .assertOk().stdout();
        assertEquals("", under.strip(), "no under-replicated partition once every node is back");
        var result = probe.finalReadAndCheck(ALL, HistoryChecker.lenient());
        assertTrue(result.acknowledged() >= 60, result.report());
    }

    /** Waits for some acknowledgements under leader {@code leader}, then returns it (still the leader). */
    private int leaderAfterLoad(int leader) {
        awaitAcknowledgementsGoOn();
        PartitionDescription p = probe.partition(leader);
        assertEquals(leader, p.leader(), p.toString());
        return leader;
    }

    /** At least 20 more acknowledgements than now (bounded): acks=all produces succeed. */
    private void awaitAcknowledgementsGoOn() {
        long from = driver.acknowledged(LOOP);
        Awaitility.await("acknowledgements go on after " + from).atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(500)).until(() -> driver.acknowledged(LOOP) >= from + 20);
    }

    /** Waits until both other nodes see a leader other than {@code lost}, the same one; returns it. */
    private int awaitNewLeader(int lost) {
        List<Integer> others = ALL.stream().filter(b -> b != lost).toList();
        int[] leader = new int[1];
        Awaitility.await("a new leader instead of " + lost).atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(500)).until(() -> {
                    int a = probe.partition(others.get(0)).leader();
                    int b = probe.partition(others.get(1)).leader();
                    leader[0] = a;
                    return a == b && others.contains(a);
                });
        return leader[0];
    }

    private void awaitAllInSync(int leader) {
        Awaitility.await("ISR " + ALL + " under leader " + leader).atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(500)).until(() -> {
                    PartitionDescription p = probe.partition(leader);
                    return p.leader() == leader && NamespaceProbe.allIn(p.isr(), ALL);
                });
    }

    /** The old leader's own image has the new leader: it is a follower, not a stale leader. */
    private void assertFollows(int old, int leader) {
        Awaitility.await("node " + old + " follows " + leader).atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                    PartitionDescription p = probe.partition(old);
                    assertEquals(leader, p.leader(), p.toString());
                    assertNotEquals(old, p.leader());
                });
    }
}
