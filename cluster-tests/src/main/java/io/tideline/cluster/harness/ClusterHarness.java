package io.tideline.cluster.harness;

import io.tideline.cluster.proxy.LinkProxy;
import io.tideline.cluster.proxy.Network;
import io.tideline.common.time.Time;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.TidelineNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The in-JVM cluster of {@link NodeTestCluster} (N complete {@link TidelineNode}s, broker and controller each, on
 * loopback) with a {@link LinkProxy} on every directed link between two of them and between the clients and each
 * broker, all in {@link #network()}:
 * <ul>
 * <li>{@code "client->N"}: the clients' link to broker N. Node N advertises this proxy's address
 *     ({@code advertised.listeners}), so {@link #bootstrapServers()} and every broker address a client learns
 *     from metadata go through it; all clients share it.</li>
 * <li>{@code "i->j replication"}: node i's channels to broker j (replica fetches, rebuild copies), chosen by
 *     broker id in node i's {@code ChannelFactory}.</li>
 * <li>{@code "i->j raft"}: everything node i sends to voter j, its Raft server (appends, votes, snapshots) and
 *     its controller client (heartbeats, commands, queries) alike. Node i's {@code controller.quorum.voters}
 *     names itself at its Raft port and every other voter at i's own proxy for it. Ratis keeps these
 *     addresses for good: it registers a peer's address the first time it meets the peer id, from the group a
 *     node starts with, and never replaces it with the addresses of a configuration entry (which carry the
 *     leader's view) written by a leader or reloaded from the Raft log or snapshot at a restart;
 *     {@code ClusterHarnessLinksTest} shows it.</li>
 * </ul>
 * A link carries the bytes of connections its source opens; the answers travel back on them, so cutting
 * {@code "i->j raft"} alone stops i's requests to j and j's answers to them, not j's requests to i.
 * {@link #partition} cuts every link to and from a node, {@link #isolate} those of some kinds, {@link #heal}
 * heals them; {@link #pause}/{@link #resume} hold and release them (see {@link #pause} for how that differs
 * from SIGSTOP). A node's links to itself (its broker to its own voter) are direct.
 *
 * <p>What survives a {@link #kill}/{@link #restart} or {@link #stop}/{@link #restart}: the node's ports (probed
 * once, together, at construction), its data directories, the injected {@link Time} (with the node's skew, see
 * {@link #skewClock}), its channel factory and
 * so the proxies (a restarted node is still behind the same links, in whatever state they were left).
 *
 * <p>The nodes run without a Kafka listener, which would be a way around the proxies, and with the broker's
 * default replica.lag.time.max.ms, which the scenarios' timings assume where they do not set it.
 */
public final class ClusterHarness extends NodeTestCluster {
    private static final String REPLICATION = " replication";
    private static final String RAFT = " raft";

    private final Map<Integer, SkewedClock> clocks = new HashMap<>();
    private final Network network = new Network();
    private final Set<Integer> paused = ConcurrentHashMap.newKeySet();

    private ClusterHarness(Path root, int size, Map<String, ?> overrides, Time time) throws IOException {
        super(root, size, overrides);
        withTime(Objects.requireNonNull(time, "time"));
        try {
            for (int to : nodeIds()) {
                network.add(clientLink(to), loopback(clientPort(to)));
                for (int from : nodeIds()) {
                    if (from != to) {
                        network.add(replicationLink(from, to), loopback(clientPort(to)));
                        network.add(raftLink(from, to), loopback(quorumPort(to)));
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            network.close();
            throw e;
        }
        for (int id : nodeIds()) {
            withChannelFactory(id, proxiedChannels(id));
            clocks.put(id, new SkewedClock(time));
        }
    }

    private static InetSocketAddress loopback(int port) {
        return new InetSocketAddress("127.0.0.1", port);
    }

    /**
     * Starts {@code size} nodes with ids 1..size (in parallel: registration needs a quorum leader, so one node
     * alone would wait for the others) and returns once every one serves. {@code overrides} are server
     * properties for every node, over the harness's test timings.
     */
    public static ClusterHarness start(Path root, int size, Map<String, ?> overrides, Time time) throws Exception {
        ClusterHarness harness = new ClusterHarness(root, size, overrides, time);
        try {
            harness.startAll();
            return harness;
        } catch (Exception | Error e) {
            harness.close();
            throw e;
        }
    }

    public static ClusterHarness start(Path root, int size, Map<String, ?> overrides) throws Exception {
        return start(root, size, overrides, Time.SYSTEM);
    }

    /** The link name of follower {@code follower}'s replica fetches from leader {@code leader}. */
    public static String replicationLink(int follower, int leader) {
        return follower + "->" + leader + REPLICATION;
    }

    /** The link name of the clients' link to broker {@code broker}. */
    public static String clientLink(int broker) {
        return "client->" + broker;
    }

    /** The link name of what node {@code from} sends to voter {@code to}. */
    public static String raftLink(int from, int to) {
        return from + "->" + to + RAFT;
    }

    /**
     * Node {@code self}'s channels to other brokers, by broker id: the registered address of a node of this
     * harness is its client proxy, which is not the replication link, so the address cannot pick the proxy.
     */
    private TidelineNode.ChannelFactory proxiedChannels(int self) {
        return (brokerId, host, port) -> {
            if (brokerId == self || !nodeIds().contains(brokerId)) {
                return TidelineNode.ChannelFactory.PLAINTEXT.open(brokerId, host, port);
            }
            return TidelineNode.ChannelFactory.PLAINTEXT.open(brokerId, "127.0.0.1",
                    replicationProxy(self, brokerId).port());
        };
    }

    /**
     * Node {@code id}'s {@code controller.quorum.voters} names itself at its Raft port (where its Raft server binds)
     * and every other voter j at the port of its own proxy {@code "id->j raft"}; it advertises its client proxy
     * ({@code advertised.listeners}), so every address a client learns from metadata is proxied.
     */
    @Override
    protected Map<String, Object> properties(int id) {
        Map<String, Object> props = super.properties(id);
        props.put("controller.quorum.voters", nodeIds().stream()
                .map(v -> v + "@127.0.0.1:" + (v == id ? quorumPort(v) : raftProxy(id, v).port()))
                .collect(Collectors.joining(",")));
        props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + clientProxy(id).port());
        props.remove("kafka.listeners");
        props.remove("replica.lag.time.max.ms");
        return props;
    }

    /** Node {@code id}'s clock: the cluster's with the node's skew ({@link #skewClock}). */
    @Override
    protected Time clock(int id) {
        return clocks.get(id);
    }

    public Network network() {
        return network;
    }

    /** The proxy on follower {@code follower}'s replication link to leader {@code leader}. */
    public LinkProxy replicationProxy(int follower, int leader) {
        return network.link(replicationLink(follower, leader));
    }

    /** The address of every node's client proxy ({@code "client->N"}), "127.0.0.1:p1,127.0.0.1:p2,...". */
    @Override
    public String bootstrapServers() {
        return nodeIds().stream().map(id -> clientProxy(id).address()).collect(Collectors.joining(","));
    }

    /** The proxy on the clients' link to broker {@code broker}; {@link #clientPort} bypasses it. */
    public LinkProxy clientProxy(int broker) {
        return network.link(clientLink(broker));
    }

    /** The proxy on what node {@code from} sends to voter {@code to}. */
    public LinkProxy raftProxy(int from, int to) {
        return network.link(raftLink(from, to));
    }

    /** None: the nodes have no Kafka listener (see the class comment). */
    @Override
    public int kafkaPort(int id) {
        throw new UnsupportedOperationException("the harness's nodes have no Kafka listener");
    }

    /** None: the nodes have no Kafka listener (see the class comment). */
    @Override
    public String kafkaBootstrapServers() {
        throw new UnsupportedOperationException("the harness's nodes have no Kafka listener");
    }

    /**
     * The names of every link to and from node {@code id} of the given kinds (all kinds when none is given):
     * {@code client->id}, {@code id->j} and {@code j->id} for every other node j.
     */
    public List<String> linksOf(int id, LinkKind... kinds) {
        requireNode(id);
        Set<LinkKind> wanted = kinds.length == 0 ? EnumSet.allOf(LinkKind.class) : EnumSet.copyOf(List.of(kinds));
        List<String> names = new ArrayList<>();
        if (wanted.contains(LinkKind.CLIENT)) {
            names.add(clientLink(id));
        }
        for (int other : nodeIds()) {
            if (other == id) {
                continue;
            }
            if (wanted.contains(LinkKind.REPLICATION)) {
                names.add(replicationLink(id, other));
                names.add(replicationLink(other, id));
            }
            if (wanted.contains(LinkKind.RAFT)) {
                names.add(raftLink(id, other));
                names.add(raftLink(other, id));
            }
        }
        return names;
    }

    /** Cuts node {@code id} off from everyone (clients, replication, Raft; both directions): a partition. */
    public void partition(int id) {
        network.cut(linksOf(id));
    }

    /** Cuts node {@code id}'s links of the given kinds, both directions (e.g. only its Raft links). */
    public void isolate(int id, LinkKind kind, LinkKind... more) {
        LinkKind[] kinds = new LinkKind[more.length + 1];
        kinds[0] = kind;
        System.arraycopy(more, 0, kinds, 1, more.length);
        network.cut(linksOf(id, kinds));
    }

    /** Heals every link to and from node {@code id} (every fault, a pause's hold included). */
    public void heal(int id) {
        paused.remove(id);
        network.heal(linksOf(id));
    }

    /** Heals every link of the cluster. */
    public void healAll() {
        paused.clear();
        network.healAll();
    }

    /**
     * What the rest of the cluster sees of node {@code id} stopped with SIGSTOP: every link to and from it is
     * held ({@link LinkProxy#hold()}): connections stay open, new ones are accepted, nothing crosses, nothing
     * is lost, and {@link #resume} delivers what waited, in order. The node's threads cannot be frozen in one
     * JVM (gRPC's, Netty's and Ratis's pools are shared by the nodes or made lazily), so unlike SIGSTOP the
     * node itself keeps running: its timers fire (its calls time out and are retried, its fetchers back off,
     * its ISR checks and Raft election timers run; as a Raft leader it steps down for lost heartbeats), it
     * still reaches itself (its broker its own voter; in-JVM reads such as {@link #node}), and its disk work
     * (retention, flushes) goes on. So on resume it has already reacted to the silence, where a stopped
     * process resumes mid-step with its old view. Real SIGSTOP: the network-namespace suite.
     */
    public void pause(int id) {
        network.hold(linksOf(id));
        paused.add(id);
    }

    /** Ends {@link #pause}: the held bytes are delivered; other faults on the node's links stay. */
    public void resume(int id) {
        paused.remove(id);
        network.release(linksOf(id));
    }

    public boolean isPaused(int id) {
        return paused.contains(id);
    }

    /**
     * Sets node {@code id}'s wall clock {@code offset} ahead of the cluster's (behind when negative; zero puts it
     * right). The offset belongs to the node's seat, so it survives a restart of the node.
     */
    public void skewClock(int id, Duration offset) {
        requireNode(id);
        clocks.get(id).skew(offset);
    }

    public Duration clockSkew(int id) {
        requireNode(id);
        return clocks.get(id).skew();
    }

    /** A readable text of every node's image, replicas, log bounds and fetcher state, and of the links. */
    public String dumpState() {
        return ClusterStateDump.render(running().stream().collect(Collectors.toMap(TidelineNode::nodeId, Function.identity())),
                nodeIds(), network.toString());
    }

    @Override
    public void close() {
        super.close();
        network.close();
    }

    /**
     * The active controller: the running node that leads the metadata quorum (the Raft leader) and that every
     * running node names as its quorum leader; empty while they disagree (an election, or a stale leader that
     * has not noticed it was deposed), so a test that kills "the controller" kills the one the cluster follows.
     */
    public Optional<Integer> activeController() {
        List<TidelineNode> running = running();
        Optional<Integer> leader = running.stream().filter(n -> n.quorum().map(q -> q.isLeader()).orElse(false))
                .map(TidelineNode::nodeId).findFirst();
        boolean agreed = leader.isPresent() && running.stream()
                .allMatch(n -> n.quorum().flatMap(q -> q.leaderId()).equals(leader));
        return agreed ? leader : Optional.empty();
    }
}
