package io.tideline.cluster.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.ClusterDescription;
import io.tideline.client.TidelineAdmin;
import io.tideline.cluster.proxy.Direction;
import io.tideline.cluster.proxy.LinkProxy;
import io.tideline.node.quorum.QuorumServer;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToLongFunction;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client and Raft links of {@link ClusterHarness}: clients only ever reach a broker through its client
 * proxy, and every node's Raft traffic to voter j goes through its own {@code "i->j raft"} proxy, also after a
 * restart reloaded a configuration written by another leader (whose entries name that leader's proxies), also
 * when that restarted node then leads. And {@link ClusterHarness#pause}: a paused node's links hold everything
 * and lose nothing.
 */
class ClusterHarnessLinksTest {
    private static final Duration BOUND = Duration.ofSeconds(45);

    @TempDir
    Path dir;
    ClusterHarness cluster;
    private TidelineAdmin admin;

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
    void clientsAndVotersUseTheirOwnProxiesAlsoAfterARestartAndAsTheNewLeader() throws Exception {
        cluster = ClusterHarness.start(dir, 3, Map.of());
        admin = new TidelineAdmin(Map.of("bootstrap.servers", cluster.bootstrapServers()));

        // Every broker address a client learns is the broker's client proxy.
        ClusterDescription described = admin.describeCluster();
        for (ClusterDescription.Broker b : described.brokers()) {
            assertEquals(cluster.clientProxy(b.id()).port(), b.port(), described.toString());
        }
        assertTrue(cluster.clientProxy(1).bytesForwarded(Direction.FROM_TARGET)
                + cluster.clientProxy(2).bytesForwarded(Direction.FROM_TARGET)
                + cluster.clientProxy(3).bytesForwarded(Direction.FROM_TARGET) > 0);

        int leader = awaitQuorumLeader(List.of(1, 2, 3));
        List<Integer> followers = cluster.nodeIds().stream().filter(id -> id != leader).toList();
        for (int f : followers) {
            // The leader's appends to f, and f's broker heartbeats (its controller client) to the leader.
            awaitGrowing(cluster.raftProxy(leader, f), "appends " + leader + "->" + f);
            awaitGrowing(cluster.raftProxy(f, leader), "heartbeats " + f + "->" + leader);
        }

        // The restarted node reloads, from its snapshot and log, configuration entries written by the leader:
        // they give the other voters at the leader's proxies.
        int restarted = followers.get(0);
        int other = followers.get(1);
        quorum(restarted).takeSnapshot();
        cluster.kill(restarted);
        cluster.restart(restarted);
        Awaitility.await("restarted node follows " + leader).atMost(BOUND)
                .until(() -> quorum(restarted).leaderId().equals(Optional.of(leader)));

        // Make it the leader: the old leader cut off the quorum, and `other`'s own requests to it dropped
        // (so `other` can neither win nor deny it a vote it asks for on its own link).
        cluster.isolate(leader, LinkKind.RAFT);
        cluster.network().cut(ClusterHarness.raftLink(other, restarted));
        Awaitility.await("restarted node " + restarted + " leads").atMost(BOUND).until(() ->
                quorum(restarted).isLeader() && quorum(other).leaderId().equals(Optional.of(restarted)));
        // It reached `other` on its own proxy: had it used the old leader's address for `other` (that leader's
        // proxy, cut), it could not have won.
        awaitGrowing(cluster.raftProxy(restarted, other), "appends of the restarted leader");
        Awaitility.await("old leader's broker fenced").atMost(BOUND).until(() -> fenced(restarted, leader));
        // Ratis's leader steps down once it has missed a majority's answers for an election timeout (seen ~5 s).
        Awaitility.await("the cut-off old leader stepped down").atMost(BOUND).until(() -> !quorum(leader).isLeader());

        cluster.healAll();
        Awaitility.await("old leader's broker unfenced after the heal").atMost(BOUND)
                .until(() -> !fenced(restarted, leader) && !fenced(restarted, other));

        // Cut the restarted node's Raft links both ways: the others elect a leader without it, and its broker
        // (whose controller client reaches the others only through those links) is fenced.
        cluster.isolate(restarted, LinkKind.RAFT);
        int next = awaitQuorumLeader(List.of(leader, other));
        assertTrue(next != restarted);
        Awaitility.await("restarted node's broker fenced").atMost(BOUND).until(() -> fenced(next, restarted));
        cluster.heal(restarted);
        Awaitility.await("back and unfenced").atMost(BOUND).until(() -> !fenced(next, restarted)
                && quorum(restarted).leaderId().isPresent());
    }

    @Test
    void aPausedNodeIsHeardOfByNobodyLosesNoByteAndResumes() throws Exception {
        cluster = ClusterHarness.start(dir, 3, Map.of());
        int leader = awaitQuorumLeader(List.of(1, 2, 3));
        int paused = leader == 3 ? 2 : 3;
        List<LinkProxy> links = cluster.linksOf(paused).stream().map(cluster.network()::link).toList();
        assertEquals(1 + 2 * 2 + 2 * 2, links.size(), cluster.linksOf(paused).toString());

        cluster.pause(paused);
        assertTrue(cluster.isPaused(paused));
        Awaitility.await("paused node's broker fenced").atMost(BOUND).until(() -> fenced(leader, paused));
        // Held, not cut: connections open, nothing crosses either way, nothing dropped.
        long[] before = {total(links, p -> p.bytesForwarded(Direction.TO_TARGET) + p.bytesForwarded(Direction.FROM_TARGET))};
        Awaitility.await("nothing crosses a held link").during(Duration.ofSeconds(1)).atMost(BOUND)
                .until(() -> {
                    long now = total(links, p -> p.bytesForwarded(Direction.TO_TARGET)
                            + p.bytesForwarded(Direction.FROM_TARGET));
                    boolean same = now == before[0];
                    before[0] = now;
                    return same;
                });
        assertTrue(total(links, LinkProxy::openConnections) > 0, "the hold keeps connections open");
        assertEquals(0, total(links, LinkProxy::bytesDropped));

        cluster.resume(paused);
        assertFalse(cluster.isPaused(paused));
        Awaitility.await("resumed node unfenced").atMost(BOUND).until(() -> !fenced(leader, paused));
        assertEquals(0, total(links, LinkProxy::bytesDropped), "a pause loses no byte");
    }

    private static long total(List<LinkProxy> links, ToLongFunction<LinkProxy> f) {
        return links.stream().mapToLong(f).sum();
    }

    private QuorumServer quorum(int id) {
        return cluster.node(id).quorum().orElseThrow();
    }

    /** Waits until every voter of {@code voters} names the same leader among them, and returns it. */
    private int awaitQuorumLeader(List<Integer> voters) {
        int[] leader = {-1};
        Awaitility.await("a quorum leader among " + voters).atMost(BOUND).until(() -> {
            Optional<Integer> first = quorum(voters.get(0)).leaderId();
            if (first.isEmpty() || !voters.contains(first.get()) || !quorum(first.get()).isLeader()) {
                return false;
            }
            leader[0] = first.get();
            return voters.stream().allMatch(v -> quorum(v).leaderId().equals(first));
        });
        return leader[0];
    }

    /** Broker {@code broker} is fenced in node {@code viewer}'s quorum image (the controller's view). */
    private boolean fenced(int viewer, int broker) {
        return quorum(viewer).image().broker(broker).map(BrokerRegistrationRecord::getFenced).orElse(false);
    }

    private static void awaitGrowing(LinkProxy link, String what) {
        long start = link.bytesForwarded(Direction.TO_TARGET);
        Awaitility.await(what + " on " + link.name()).atMost(BOUND)
                .until(() -> link.bytesForwarded(Direction.TO_TARGET) > start);
    }
}
