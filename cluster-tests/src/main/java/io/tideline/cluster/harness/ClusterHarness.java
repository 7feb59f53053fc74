package io.tideline.cluster.harness;

import io.tideline.cluster.proxy.LinkProxy;
import io.tideline.cluster.proxy.Network;
import io.tideline.common.time.Time;
import io.tideline.node.server.ServerConfig;
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
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * N complete {@link TidelineNode}s (broker and controller each) in one JVM on loopback, with a {@link LinkProxy}
 * on every directed link between two of them and between the clients and each broker, all in {@link #network()}:
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
 */
public final class ClusterHarness implements AutoCloseable {
    private static final String REPLICATION = " replication";
    private static final String RAFT = " raft";

    private final Time time;
    private final NodeConfigs configs;
    private final SortedMap<Integer, Integer> clientPorts = new TreeMap<>();
    private final Map<Integer, TidelineNode> running = new ConcurrentHashMap<>();
    private final Map<Integer, TidelineNode.ChannelFactory> channelFactories = new HashMap<>();
    private final Map<Integer, SkewedClock> clocks = new HashMap<>();
    private final Network network = new Network();
    private final Set<Integer> paused = ConcurrentHashMap.newKeySet();

    private ClusterHarness(Path root, int size, Map<String, ?> overrides, Time time) throws IOException {
        if (size < 1) {
            throw new IllegalArgumentException("a cluster needs at least one node: " + size);
        }
        this.time = Objects.requireNonNull(time, "time");
        SortedMap<Integer, Integer> quorumPorts = new TreeMap<>();
        int[] ports = io.tideline.testsupport.ports.Ports.distinct(2 * size);
        for (int id = 1; id <= size; id++) {
            quorumPorts.put(id, ports[2 * (id - 1)]);
            clientPorts.put(id, ports[2 * (id - 1) + 1]);
        }
        try {
            for (int to = 1; to <= size; to++) {
                network.add(clientLink(to), loopback(clientPorts.get(to)));
                for (int from = 1; from <= size; from++) {
                    if (from != to) {
                        network.add(replicationLink(from, to), loopback(clientPorts.get(to)));
                        network.add(raftLink(from, to), loopback(quorumPorts.get(to)));
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            network.close();
            throw e;
        }
        for (int id = 1; id <= size; id++) {
            channelFactories.put(id, proxiedChannels(id));
            clocks.put(id, new SkewedClock(time));
        }
        this.configs = new NodeConfigs(root, quorumPorts, clientPorts,
                (from, to) -> network.link(raftLink(from, to)).port(), id -> network.link(clientLink(id)).port(),
                overrides);
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
            if (brokerId == self || !clientPorts.containsKey(brokerId)) {
                return TidelineNode.ChannelFactory.PLAINTEXT.open(brokerId, host, port);
            }
            return TidelineNode.ChannelFactory.PLAINTEXT.open(brokerId, "127.0.0.1",
                    replicationProxy(self, brokerId).port());
        };
    }

    private void startAll() throws Exception {
        startTogether(List.copyOf(clientPorts.keySet()));
    }

    private void startTogether(List<Integer> ids) throws Exception {
        ExecutorService starter = Executors.newFixedThreadPool(ids.size());
        try {
            Map<Integer, Future<TidelineNode>> starting = new TreeMap<>();
            for (int id : ids) {
                starting.put(id, starter.submit(() -> startNode(id)));
            }
            for (Map.Entry<Integer, Future<TidelineNode>> e : starting.entrySet()) {
                running.put(e.getKey(), e.getValue().get(150, TimeUnit.SECONDS));
            }
        } finally {
            starter.shutdownNow();
        }
    }

    private TidelineNode startNode(int id) throws IOException, InterruptedException {
        return TidelineNode.start(configs.config(id), clocks.get(id), channelFactories.get(id));
    }

    public Network network() {
        return network;
    }

    /** The proxy on follower {@code follower}'s replication link to leader {@code leader}. */
    public LinkProxy replicationProxy(int follower, int leader) {
        return network.link(replicationLink(follower, leader));
    }

    public Time time() {
        return time;
    }

    public List<Integer> nodeIds() {
        return new ArrayList<>(clientPorts.keySet());
    }

    public TidelineNode node(int id) {
        TidelineNode n = running.get(id);
        if (n == null) {
            throw new IllegalStateException("node " + id + " is not running");
        }
        return n;
    }

    public boolean isRunning(int id) {
        return running.containsKey(id);
    }

    public ServerConfig config(int id) {
        return configs.config(id);
    }

    public Path dataDir(int id) {
        return configs.dataDir(id);
    }

    /** Node {@code id}'s own listener port, behind {@code "client->id"}: a connection here bypasses every proxy. */
    public int clientPort(int id) {
        return clientPorts.get(id);
    }

    /** The address of every node's client proxy ({@code "client->N"}), "127.0.0.1:p1,127.0.0.1:p2,...". */
    public String bootstrapServers() {
        return clientPorts.keySet().stream().map(id -> clientProxy(id).address()).collect(Collectors.joining(","));
    }

    /** The proxy on the clients' link to broker {@code broker}. */
    public LinkProxy clientProxy(int broker) {
        return network.link(clientLink(broker));
    }

    /** The proxy on what node {@code from} sends to voter {@code to}. */
    public LinkProxy raftProxy(int from, int to) {
        return network.link(raftLink(from, to));
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
        for (int other : clientPorts.keySet()) {
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

    private void requireNode(int id) {
        if (!clientPorts.containsKey(id)) {
            throw new IllegalArgumentException("no node " + id + " in this cluster");
        }
    }

    /** The orderly stop (SIGTERM): controlled shutdown, logs flushed and closed cleanly. */
    public void stop(int id) {
        TidelineNode n = running.remove(id);
        if (n != null) {
            n.close();
        }
    }

    /**
     * A crash, as kill -9 in one JVM: no controlled shutdown (the controller learns of it when the broker's
     * session times out) and the logs are released without flushing, checkpoints or the clean-shutdown marker.
     */
    public void kill(int id) {
        TidelineNode n = running.remove(id);
        if (n != null) {
            n.crash();
        }
    }

    /** Starts a stopped or killed node again over the same directories and ports, clock and proxies. */
    public TidelineNode restart(int id) throws IOException, InterruptedException {
        requireNode(id);
        if (running.containsKey(id)) {
            throw new IllegalStateException("node " + id + " is running");
        }
        TidelineNode n = startNode(id);
        running.put(id, n);
        return n;
    }

    /**
     * Starts several stopped or killed nodes again at once and returns when every one serves: nodes that
     * together hold the quorum's majority cannot start one after the other, since each waits for a quorum
     * leader to register with.
     */
    public void restartTogether(List<Integer> ids) throws Exception {
        for (int id : ids) {
            requireNode(id);
            if (running.containsKey(id)) {
                throw new IllegalStateException("node " + id + " is running");
            }
        }
        startTogether(ids);
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
        return ClusterStateDump.render(Map.copyOf(running), clientPorts.keySet(), network.toString());
    }

    @Override
    public void close() {
        List<TidelineNode> all = new ArrayList<>(running.values());
        running.clear();
        // Teardown, not a test of shutdown: the quorum goes away with the nodes, so a controlled shutdown
        // of the last ones would only wait for its timeout.
        all.parallelStream().forEach(n -> {
            try {
                n.closeSkippingControlledShutdown();
            } catch (RuntimeException e) {
                // keep closing the others
            }
        });
        network.close();
    }

    /**
     * The active controller: the running node that leads the metadata quorum (the Raft leader) and that every
     * running node names as its quorum leader; empty while they disagree (an election, or a stale leader that
     * has not noticed it was deposed), so a test that kills "the controller" kills the one the cluster follows.
     */
    public Optional<Integer> activeController() {
        Optional<Integer> leader = running.values().stream().filter(n -> n.quorum().map(q -> q.isLeader()).orElse(false))
                .map(TidelineNode::nodeId).findFirst();
        boolean agreed = leader.isPresent() && running.values().stream()
                .allMatch(n -> n.quorum().flatMap(q -> q.leaderId()).equals(leader));
        return agreed ? leader : Optional.empty();
    }
}
