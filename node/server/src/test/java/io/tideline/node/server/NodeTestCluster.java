package io.tideline.node.server;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.tideline.common.time.Time;
import io.tideline.proto.admin.AdminServiceGrpc;
import io.tideline.proto.client.ClientServiceGrpc;
import io.tideline.testsupport.ports.Ports;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * N full nodes (broker + controller each) in one JVM on loopback ports, each with its own data
 * directories under {@code root}: the one in-JVM cluster of the multi-node tests. Nodes start together
 * (registration needs a quorum leader, so one node alone would wait for the others), can be stopped cleanly
 * (the SIGTERM path), killed without a clean shutdown of their logs, and restarted over the same directories.
 *
 * <p>Seams: {@link #withTime} (one clock for every node) and {@link #withChannelFactory} (a node's broker-to-broker
 * channels, e.g. to put a proxy on its replication links). What a node keeps across {@link #kill}/{@link #stop} and
 * {@link #restart}: its ports (allocated once, at construction), directories, overrides, clock and channel factory.
 *
 * <p>A subclass that puts something between the nodes (cluster-tests' {@code ClusterHarness}, with a proxy on every
 * link) changes a node's server properties in {@link #properties} and its clock in {@link #clock}; the overrides
 * still apply over what it sets.
 */
public class NodeTestCluster implements AutoCloseable {
    private final Path root;
    private final SortedMap<Integer, Integer> quorumPorts = new TreeMap<>();
    private final SortedMap<Integer, Integer> clientPorts = new TreeMap<>();
    private final SortedMap<Integer, Integer> kafkaPorts = new TreeMap<>();
    private final Map<Integer, TidelineNode> nodes = new ConcurrentHashMap<>();
    private final Map<String, Object> overrides;
    private final List<ManagedChannel> channels = new ArrayList<>();
    private final Map<Integer, Map<String, Object>> nodeOverrides = new ConcurrentHashMap<>();
    private final Map<Integer, TidelineNode.ChannelFactory> channelFactories = new ConcurrentHashMap<>();
    private volatile Time time = Time.SYSTEM;

    public NodeTestCluster(Path root, int size, Map<String, ?> overrides) {
        if (size < 1) {
            throw new IllegalArgumentException("a cluster needs at least one node: " + size);
        }
        this.root = root;
        this.overrides = new HashMap<>(overrides);
        int[] ports = Ports.distinct(3 * size);
        for (int id = 1; id <= size; id++) {
            quorumPorts.put(id, ports[3 * (id - 1)]);
            clientPorts.put(id, ports[3 * (id - 1) + 1]);
            kafkaPorts.put(id, ports[3 * (id - 1) + 2]);
        }
    }

    /** A setting for one node only (before it starts), e.g. two log.dirs. */
    public NodeTestCluster withNodeOverride(int id, String key, Object value) {
        nodeOverrides.computeIfAbsent(id, k -> new HashMap<>()).put(key, value);
        return this;
    }

    /** The clock of every node (before they start); {@link Time#SYSTEM} unless set. */
    public NodeTestCluster withTime(Time time) {
        this.time = Objects.requireNonNull(time, "time");
        return this;
    }

    /** Node {@code id}'s broker-to-broker channels (before it starts); plaintext straight to the target unless set. */
    public NodeTestCluster withChannelFactory(int id, TidelineNode.ChannelFactory factory) {
        channelFactories.put(id, Objects.requireNonNull(factory, "factory"));
        return this;
    }

    /** Starts every node (in parallel) and waits until all serve. */
    public NodeTestCluster startAll() throws Exception {
        startTogether(nodeIds());
        return this;
    }

    private void startTogether(List<Integer> ids) throws Exception {
        ExecutorService starter = Executors.newFixedThreadPool(ids.size());
        try {
            Map<Integer, Future<TidelineNode>> starting = new TreeMap<>();
            for (int id : ids) {
                starting.put(id, starter.submit(() -> startNode(id)));
            }
            for (Map.Entry<Integer, Future<TidelineNode>> e : starting.entrySet()) {
                nodes.put(e.getKey(), e.getValue().get(150, TimeUnit.SECONDS));
            }
        } finally {
            starter.shutdownNow();
        }
    }

    /** Every start of a node, the first and each restart, goes through here: same config, clock and channels. */
    private TidelineNode startNode(int id) throws IOException, InterruptedException {
        return TidelineNode.start(config(id), clock(id),
                channelFactories.getOrDefault(id, TidelineNode.ChannelFactory.PLAINTEXT));
    }

    /** Node {@code id}'s clock: the cluster's ({@link #time()}) unless a subclass gives each node its own. */
    protected Time clock(int id) {
        return time;
    }

    /** The clock set by {@link #withTime}; {@link Time#SYSTEM} unless set. */
    public Time time() {
        return time;
    }

    /** Node {@code id}'s server properties: its own overrides over the cluster's over {@link #properties}. */
    public ServerConfig config(int id) {
        Map<String, Object> props = properties(id);
        props.putAll(overrides);
        props.putAll(nodeOverrides.getOrDefault(id, Map.of()));
        return ServerConfig.fromMap(props);
    }

    /**
     * The harness's own server properties of node {@code id}, under the overrides: broker and controller in one, on
     * its fixed loopback ports (so a restart binds the same ones), data under {@link #dataDir}, with the timings of
     * a test cluster (fast heartbeats and fetch backoff, a short session). A mutable map a subclass may change.
     */
    protected Map<String, Object> properties(int id) {
        Map<String, Object> props = new HashMap<>();
        props.put("node.id", id);
        props.put("process.roles", "broker,controller");
        props.put("controller.quorum.voters", quorumPorts.entrySet().stream()
                .map(e -> e.getKey() + "@127.0.0.1:" + e.getValue()).collect(Collectors.joining(",")));
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + clientPorts.get(id));
        props.put("kafka.listeners", "PLAINTEXT://127.0.0.1:" + kafkaPorts.get(id));
        props.put("log.dirs", dataDir(id).resolve("logs").toString());
        props.put("metadata.log.dir", dataDir(id).resolve("metadata").toString());
        props.put("broker.heartbeat.interval.ms", 200);
        props.put("broker.session.timeout.ms", 3000);
        props.put("replica.fetch.backoff.ms", 50);
        props.put("replica.lag.time.max.ms", 5000);
        props.put("controlled.shutdown.timeout.ms", 10_000);
        props.put("metrics.http.host", "127.0.0.1");
        props.put("metrics.http.port", 0);
        return props;
    }

    /** Node {@code id}'s directory under {@code root}: its log.dirs and metadata.log.dir are in it. */
    public Path dataDir(int id) {
        return root.resolve("node-" + id);
    }

    /** The ids of every node, running or not: 1..size. */
    public List<Integer> nodeIds() {
        return new ArrayList<>(clientPorts.keySet());
    }

    public TidelineNode node(int id) {
        TidelineNode n = nodes.get(id);
        if (n == null) {
            throw new IllegalStateException("node " + id + " is not running");
        }
        return n;
    }

    public boolean isRunning(int id) {
        return nodes.containsKey(id);
    }

    public List<TidelineNode> running() {
        return new ArrayList<>(new TreeMap<>(nodes).values());
    }

    /** Node {@code id}'s Raft port, where its controller.quorum.voters entry points. */
    protected int quorumPort(int id) {
        return quorumPorts.get(id);
    }

    /** Node {@code id}'s own client (gRPC) listener port. */
    public int clientPort(int id) {
        return clientPorts.get(id);
    }

    /** "127.0.0.1:p1,127.0.0.1:p2,..." of every node. */
    public String bootstrapServers() {
        return clientPorts.values().stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    public int kafkaPort(int id) {
        return kafkaPorts.get(id);
    }

    /** "127.0.0.1:k1,127.0.0.1:k2,..." of every node's Kafka listener: bootstrap.servers for kafka-clients. */
    public String kafkaBootstrapServers() {
        return kafkaPorts.values().stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /** The orderly stop (what SIGTERM does). */
    public void stop(int id) {
        TidelineNode n = nodes.remove(id);
        if (n != null) {
            n.close();
        }
    }

    /**
     * The abrupt stop, as kill -9: no controlled shutdown (the controller learns of it only when the
     * broker's session times out and its leaderships move then), and logs left unflushed without the
     * clean-shutdown marker, so {@link #restart} recovers them.
     */
    public void kill(int id) {
        TidelineNode n = nodes.remove(id);
        if (n != null) {
            n.crash();
        }
    }

    /** Starts a stopped or killed node again: same directories, ports, overrides, clock and channel factory. */
    public TidelineNode restart(int id) throws IOException, InterruptedException {
        requireStopped(id);
        TidelineNode n = startNode(id);
        nodes.put(id, n);
        return n;
    }

    /**
     * Starts several stopped or killed nodes again at once and returns when every one serves: nodes that
     * together hold the quorum's majority cannot start one after the other, since each waits for a quorum
     * leader to register with.
     */
    public void restartTogether(List<Integer> ids) throws Exception {
        for (int id : ids) {
            requireStopped(id);
        }
        startTogether(ids);
    }

    private void requireStopped(int id) {
        requireNode(id);
        if (nodes.containsKey(id)) {
            throw new IllegalStateException("node " + id + " is running");
        }
    }

    /** Throws unless {@code id} is a node of this cluster. */
    protected void requireNode(int id) {
        if (!clientPorts.containsKey(id)) {
            throw new IllegalArgumentException("no node " + id + " in this cluster");
        }
    }

    public ClientServiceGrpc.ClientServiceBlockingStub client(int id) {
        return ClientServiceGrpc.newBlockingStub(channel(id));
    }

    public AdminServiceGrpc.AdminServiceBlockingStub admin(int id) {
        return AdminServiceGrpc.newBlockingStub(channel(id));
    }

    private synchronized ManagedChannel channel(int id) {
        ManagedChannel c = NettyChannelBuilder.forAddress("127.0.0.1", clientPorts.get(id)).usePlaintext()
                .maxInboundMessageSize(TidelineNode.MAX_MESSAGE_BYTES).build();
        channels.add(c);
        return c;
    }

    @Override
    public void close() {
        synchronized (this) {
            channels.forEach(ManagedChannel::shutdownNow);
        }
        List<TidelineNode> all = new ArrayList<>(nodes.values());
        nodes.clear();
        // Teardown, not a test of shutdown: the quorum goes away with the nodes, so a controlled shutdown
        // of the last ones would only wait for its timeout.
        all.parallelStream().forEach(n -> {
            try {
                n.closeSkippingControlledShutdown();
            } catch (RuntimeException e) {
                // keep closing the others
            }
        });
    }

}
