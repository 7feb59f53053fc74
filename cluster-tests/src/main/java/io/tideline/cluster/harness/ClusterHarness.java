package io.tideline.cluster.harness;

import io.tideline.cluster.proxy.LinkProxy;
import io.tideline.cluster.proxy.Network;
import io.tideline.common.time.Time;
import io.tideline.node.server.ServerConfig;
import io.tideline.node.server.TidelineNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * N complete {@link TidelineNode}s (broker and controller each) in one JVM on loopback, with a
 * {@link LinkProxy} on every directed replication link: node i's channel to broker j goes through the proxy
 * named {@code "i->j replication"} of {@link #network()}, so a test can cut exactly one follower's fetches
 * from one leader while that follower still reaches the metadata quorum (whose Ratis links are direct).
 *
 * <p>What survives a {@link #kill}/{@link #restart} or {@link #stop}/{@link #restart}: the node's ports (probed
 * once, together, at construction), its data directories, the injected {@link Time}, its channel factory and
 * so the proxies (a restarted node is still behind the same links, in whatever state they were left).
 *
 * <p>Client links (producers, consumers, admin) and the Ratis voter links are not proxied yet.
 */
public final class ClusterHarness implements AutoCloseable {
    private static final String REPLICATION = " replication";

    private final Time time;
    private final NodeConfigs configs;
    private final SortedMap<Integer, Integer> clientPorts = new TreeMap<>();
    private final Map<Integer, TidelineNode> running = new ConcurrentHashMap<>();
    private final Map<Integer, TidelineNode.ChannelFactory> channelFactories = new HashMap<>();
    private final Network network = new Network();

    private ClusterHarness(Path root, int size, Map<String, ?> overrides, Time time) throws IOException {
        if (size < 1) {
            throw new IllegalArgumentException("a cluster needs at least one node: " + size);
        }
        this.time = Objects.requireNonNull(time, "time");
        SortedMap<Integer, Integer> quorumPorts = new TreeMap<>();
        int[] ports = HarnessPorts.distinct(2 * size);
        for (int id = 1; id <= size; id++) {
            quorumPorts.put(id, ports[2 * (id - 1)]);
            clientPorts.put(id, ports[2 * (id - 1) + 1]);
        }
        this.configs = new NodeConfigs(root, quorumPorts, clientPorts, overrides);
        try {
            for (int follower = 1; follower <= size; follower++) {
                for (int leader = 1; leader <= size; leader++) {
                    if (follower != leader) {
                        network.add(replicationLink(follower, leader),
                                new InetSocketAddress("127.0.0.1", clientPorts.get(leader)));
                    }
                }
                channelFactories.put(follower, proxiedChannels(follower));
            }
        } catch (IOException | RuntimeException e) {
            network.close();
            throw e;
        }
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

    private TidelineNode.ChannelFactory proxiedChannels(int self) {
        return (brokerId, host, port) -> {
            LinkProxy link = linkTo(self, brokerId, port);
            return link == null ? TidelineNode.ChannelFactory.PLAINTEXT.open(brokerId, host, port)
                    : TidelineNode.ChannelFactory.PLAINTEXT.open(brokerId, "127.0.0.1", link.port());
        };
    }

    /** The proxy for self -> brokerId, or null for a broker outside this harness (or at another port). */
    private LinkProxy linkTo(int self, int brokerId, int port) {
        Integer expected = clientPorts.get(brokerId);
        if (brokerId == self || expected == null || expected != port) {
            return null;
        }
        return network.link(replicationLink(self, brokerId));
    }

    private void startAll() throws Exception {
        ExecutorService starter = Executors.newFixedThreadPool(clientPorts.size());
        try {
            Map<Integer, Future<TidelineNode>> starting = new TreeMap<>();
            for (int id : clientPorts.keySet()) {
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
        return TidelineNode.start(configs.config(id), time, channelFactories.get(id));
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

    public int clientPort(int id) {
        return clientPorts.get(id);
    }

    /** "127.0.0.1:p1,127.0.0.1:p2,..." of every node, straight to the listeners (client links are not proxied). */
    public String bootstrapServers() {
        return clientPorts.values().stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
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
        if (!clientPorts.containsKey(id)) {
            throw new IllegalArgumentException("no node " + id + " in this cluster");
        }
        if (running.containsKey(id)) {
            throw new IllegalStateException("node " + id + " is running");
        }
        TidelineNode n = startNode(id);
        running.put(id, n);
        return n;
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
