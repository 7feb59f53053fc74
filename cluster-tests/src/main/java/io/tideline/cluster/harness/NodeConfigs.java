package io.tideline.cluster.harness;

import io.tideline.node.server.ServerConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.function.IntBinaryOperator;
import java.util.function.IntUnaryOperator;
import java.util.stream.Collectors;

/**
 * The harness's server.properties for node {@code id}: broker and controller in one, on fixed loopback ports
 * (so a restart binds the same ones), data under {@code root/node-<id>}, with the timings of a test cluster
 * (fast heartbeats and fetch backoff, a short session) under the caller's overrides.
 *
 * <p>Each node gets its own {@code controller.quorum.voters}: itself at its Raft port (where its Raft server
 * binds), every other voter j at the port of its own proxy {@code "id->j raft"}; and it advertises its client
 * proxy's port ({@code advertised.listeners}), so every address a client learns from metadata is proxied.
 */
final class NodeConfigs {
    private final Path root;
    private final SortedMap<Integer, Integer> quorumPorts;
    private final SortedMap<Integer, Integer> clientPorts;
    private final IntBinaryOperator raftProxyPort;
    private final IntUnaryOperator advertisedPort;
    private final Map<String, Object> overrides;

    /**
     * @param raftProxyPort  (from, to) -> the port of the proxy on from's Raft link to voter to
     * @param advertisedPort id -> the port node id advertises to clients and other brokers
     */
    NodeConfigs(Path root, SortedMap<Integer, Integer> quorumPorts, SortedMap<Integer, Integer> clientPorts,
                IntBinaryOperator raftProxyPort, IntUnaryOperator advertisedPort, Map<String, ?> overrides) {
        this.root = root;
        this.quorumPorts = quorumPorts;
        this.clientPorts = clientPorts;
        this.raftProxyPort = raftProxyPort;
        this.advertisedPort = advertisedPort;
        this.overrides = Map.copyOf(overrides);
    }

    ServerConfig config(int id) {
        Map<String, Object> props = new HashMap<>();
        props.put("node.id", id);
        props.put("process.roles", "broker,controller");
        props.put("controller.quorum.voters", quorumPorts.keySet().stream()
                .map(v -> v + "@127.0.0.1:" + (v == id ? quorumPorts.get(v) : raftProxyPort.applyAsInt(id, v)))
                .collect(Collectors.joining(",")));
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + clientPorts.get(id));
        props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + advertisedPort.applyAsInt(id));
        props.put("log.dirs", dataDir(id).resolve("logs").toString());
        props.put("metadata.log.dir", dataDir(id).resolve("metadata").toString());
        props.put("broker.heartbeat.interval.ms", 200);
        props.put("broker.session.timeout.ms", 3000);
        props.put("replica.fetch.backoff.ms", 50);
        props.put("controlled.shutdown.timeout.ms", 10_000);
        props.put("metrics.http.host", "127.0.0.1");
        props.put("metrics.http.port", 0);
        props.putAll(overrides);
        return ServerConfig.fromMap(props);
    }

    Path dataDir(int id) {
        return root.resolve("node-" + id);
    }
}
