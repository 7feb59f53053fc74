package io.tideline.node.quorum;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.node.controller.CommandChecks;
import io.tideline.node.controller.ControllerSettings;
import io.tideline.node.controller.MetadataController;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.ControllerResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One voter of the metadata quorum: a Ratis server (gRPC) running the {@link MetadataStateMachine},
 * plus the {@link ControllerDuties} it performs while it is the Raft leader, plus the controller
 * metrics.
 *
 * <p>Ratis layout under {@code metadata.log.dir}: {@code <group uuid>/current/} holds the Raft log
 * and metadata, {@code <group uuid>/sm/} the snapshots ({@link SnapshotFile}). The server always
 * starts with {@link RaftStorage.StartupOption#RECOVER}, which also works on an empty directory (FORMAT
 * refuses an existing one, which would make every restart a special case).
 *
 * <p>Reads use Ratis' DEFAULT read option: a read-only request is answered by the leader only (a
 * follower answers NotLeader and the client retries at the leader). Heartbeats must reach the leader,
 * whose soft state they update, and the leader replies to a command only after applying it, so a
 * client reads its own writes there.
 *
 * <p>Thread-safety: {@link #start} and {@link #close} from one thread; the accessors from any.
 */
public final class QuorumServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(QuorumServer.class);

    private final Builder config;
    private final RaftGroup group;
    private final RaftPeerId peerId;
    private final MetadataStateMachine stateMachine;
    private final ControllerDuties duties;
    private final LeaderBalancer balancer;
    private final UncleanLeaderElector uncleanElector;
    private final ClientId localClientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    private volatile RaftServer server;
    private volatile RaftServer.Division division;
    private QuorumMetrics metrics;
    private MetadataListener uncleanElectionCounter;

    private QuorumServer(Builder b) {
        this.config = b;
        this.group = QuorumIds.group(b.clusterId, b.voters);
        this.peerId = QuorumIds.peerId(b.nodeId);
        this.stateMachine = new MetadataStateMachine(new MetadataController(b.controllerSettings), b.faultHandler);
        this.duties = new ControllerDuties(b.time, b.scheduler, b.heartbeatIntervalMs, b.sessionTimeoutMs,
                stateMachine::image, this::isLeader, this::submitLocal);
        stateMachine.attachDuties(duties);
        this.balancer = new LeaderBalancer(b.leaderBalance, b.time, b.scheduler, stateMachine::image,
                () -> duties.active() && isLeader(), this::submitLocal);
        this.uncleanElector = new UncleanLeaderElector(b.controllerSettings, b.uncleanElectionIntervalMs, b.time,
                b.scheduler, stateMachine::image, () -> duties.active() && isLeader(), this::submitLocal);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the Ratis server: loads the latest snapshot, replays the local log and joins the quorum.
     *
     * @throws IOException when the storage cannot be used, e.g. a snapshot fails its checksum
     */
    public synchronized void start() throws IOException {
        if (server != null) {
            throw new IllegalStateException("already started");
        }
        RaftServer s = RaftServer.newBuilder()
                .setServerId(peerId)
                .setGroup(group)
                .setStateMachine(stateMachine)
                .setProperties(properties())
                .setOption(RaftStorage.StartupOption.RECOVER)
                .build();
        try {
            s.start();
        } catch (IOException | RuntimeException e) {
            closeQuietly(s);
            throw startFailure(e);
        }
        server = s;
        division = s.getDivision(group.getGroupId());
        duties.start();
        balancer.start();
        uncleanElector.start();
        metrics = new QuorumMetrics(config.metrics, stateMachine::image, this::isLeader);
        uncleanElectionCounter = metrics.uncleanElectionCounter();
        stateMachine.addListener(uncleanElectionCounter);
        log.info("Metadata quorum voter {} started at {} (storage {}, voters {})", config.nodeId,
                QuorumIds.hostPort(config.voters.get(config.nodeId)), config.storageDir, config.voters.keySet());
    }

    /** The clearest cause Ratis wraps a start failure in (a corrupt snapshot reads as itself). */
    private IOException startFailure(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String why = t.getMessage() == null ? t.toString() : t.getMessage();
        return new IOException("Metadata quorum voter " + config.nodeId + " cannot start: " + why, e);
    }

    private RaftProperties properties() {
        RaftProperties p = new RaftProperties();
        RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
        InetSocketAddress address = config.voters.get(config.nodeId);
        GrpcConfigKeys.Server.setHost(p, address.getHostString());
        GrpcConfigKeys.Server.setPort(p, address.getPort());
        RaftServerConfigKeys.setStorageDir(p, List.of(config.storageDir.toFile()));
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, ms(config.rpcTimeoutMin));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, ms(config.rpcTimeoutMax));
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(p, ms(config.firstElectionTimeoutMin));
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(p, ms(config.firstElectionTimeoutMax));
        RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.DEFAULT);
        // Snapshots keep restart time and log size bounded; two are kept so one is always complete.
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, config.snapshotThreshold);
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
        // Ratis' default ("1ms,10, 1s,20, 5s,1000") waits 5 s between appends to a follower after 30
        // errors, and it counts every INCONSISTENCY reply as one: a voter back after a short outage with
        // an uncommitted tail from its own term took 5 s per divergent entry to rejoin (over 20 s seen).
        // Retrying every 100 ms costs a refused connect per 100 ms while a voter is down.
        RaftServerConfigKeys.Log.Appender.setRetryPolicy(p, "1ms,10, 100ms,1000000");
        config.ratisProperties.forEach(p::set);
        return p;
    }

    private static TimeDuration ms(Duration d) {
        return TimeDuration.valueOf(d.toMillis(), TimeUnit.MILLISECONDS);
    }

    public int nodeId() {
        return config.nodeId;
    }

    public boolean isLeader() {
        RaftServer.Division d = division;
        return d != null && d.getInfo().isLeader();
    }

    /** The node id of the current Raft leader as this voter knows it. */
    public Optional<Integer> leaderId() {
        RaftServer.Division d = division;
        return d == null ? Optional.empty() : QuorumIds.nodeId(d.getInfo().getLeaderId());
    }

    /** The first index still in this voter's Raft log (above 0 once a snapshot let it purge). */
    public long raftLogStartIndex() {
        RaftServer.Division d = division;
        return d == null ? -1 : d.getRaftLog().getStartIndex();
    }

    public MetadataImage image() {
        return stateMachine.image();
    }

    public MetadataStateMachine stateMachine() {
        return stateMachine;
    }

    public ControllerDuties duties() {
        return duties;
    }

    public LeaderBalancer balancer() {
        return balancer;
    }

    public UncleanLeaderElector uncleanElector() {
        return uncleanElector;
    }

    /**
     * Takes a snapshot of the applied image now (on Ratis' apply thread, like an automatic one).
     *
     * @return the snapshot's Raft index
     */
    public long takeSnapshot() throws IOException {
        RaftServer s = requireStarted();
        // creationGap 1: snapshot whenever anything was applied since the last one.
        RaftClientReply reply = s.snapshotManagement(SnapshotManagementRequest.newCreate(localClientId, peerId,
                group.getGroupId(), callIds.incrementAndGet(), 30_000, 1));
        if (!reply.isSuccess()) {
            throw new IOException("snapshot on voter " + config.nodeId + " failed", reply.getException());
        }
        return reply.getLogIndex();
    }

    /**
     * Submits a command to this voter's Raft server, without forwarding: it fails with
     * {@link Errors#NOT_CONTROLLER} unless this voter is the leader. The controller's own duties use
     * it, so a deposed leader's decisions never reach the quorum through another node.
     */
    public CompletableFuture<ControllerResponse> submitLocal(ControllerCommand command) {
        CommandChecks.Refusal refusal = stateMachine.controllerChecks().check(command);
        if (refusal != null) {
            return CompletableFuture.completedFuture(refusal.result().response());
        }
        RaftServer s = server;
        if (s == null) {
            return CompletableFuture.completedFuture(ControllerResponse.newBuilder().setErrorCode(Errors.NOT_CONTROLLER.code())
                    .setErrorMessage("voter " + config.nodeId + " is not running").build());
        }
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(localClientId)
                .setServerId(peerId)
                .setGroupId(group.getGroupId())
                .setCallId(callIds.incrementAndGet())
                .setMessage(RatisMessages.of(command))
                .setType(RaftClientRequest.writeRequestType())
                .build();
        try {
            return s.submitClientRequestAsync(request).thenApply(RatisMessages::commandResponse)
                    .exceptionally(RatisErrors::response);
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.completedFuture(RatisErrors.response(e));
        }
    }

    private RaftServer requireStarted() {
        RaftServer s = server;
        if (s == null) {
            throw new IllegalStateException("voter " + config.nodeId + " is not running");
        }
        return s;
    }

    @Override
    public synchronized void close() {
        balancer.close();
        uncleanElector.close();
        duties.close();
        if (metrics != null) {
            stateMachine.removeListener(uncleanElectionCounter);
            metrics.close();
            metrics = null;
        }
        RaftServer s = server;
        server = null;
        division = null;
        if (s != null) {
            closeQuietly(s);
        }
    }

    private void closeQuietly(RaftServer s) {
        try {
            s.close();
        } catch (IOException | RuntimeException e) {
            log.warn("Closing metadata quorum voter {} failed", config.nodeId, e);
        }
    }

    @Override
    public String toString() {
        return "QuorumServer(" + config.nodeId + ")";
    }

    /**
     * The voter's settings. Required: node id, voters (which must include the node), cluster id,
     * storage dir and scheduler. The timeouts default to values for a LAN; tests shorten them.
     */
    public static final class Builder {
        private int nodeId = -1;
        private Map<Integer, InetSocketAddress> voters = Map.of();
        private String clusterId;
        private Path storageDir;
        private ControllerSettings controllerSettings = ControllerSettings.DEFAULT;
        private LeaderBalancer.Settings leaderBalance = LeaderBalancer.Settings.DEFAULT;
        private long uncleanElectionIntervalMs = 300_000L;
        private Time time = Time.SYSTEM;
        private Scheduler scheduler;
        private MetricRegistry metrics = new MetricRegistry();
        private MetadataFaultHandler faultHandler = (message, cause) ->
                LoggerFactory.getLogger(MetadataStateMachine.class).error("Metadata fault: {}", message, cause);
        private long heartbeatIntervalMs = 2000;
        private long sessionTimeoutMs = 9000;
        private Duration rpcTimeoutMin = Duration.ofMillis(1000);
        private Duration rpcTimeoutMax = Duration.ofMillis(2000);
        private Duration firstElectionTimeoutMin;
        private Duration firstElectionTimeoutMax;
        private long snapshotThreshold = 1000;
        private Map<String, String> ratisProperties = Map.of();

        private Builder() {
        }

        public Builder nodeId(int id) {
            this.nodeId = id;
            return this;
        }

        /** Every voter: node id -> address its gRPC server listens on. */
        public Builder voters(Map<Integer, InetSocketAddress> v) {
            this.voters = Map.copyOf(new TreeMap<>(v));
            return this;
        }

        public Builder clusterId(String id) {
            this.clusterId = id;
            return this;
        }

        /** The node's {@code metadata.log.dir}. */
        public Builder storageDir(Path dir) {
            this.storageDir = dir;
            return this;
        }

        public Builder controllerSettings(ControllerSettings s) {
            this.controllerSettings = s;
            return this;
        }

        /** unclean.leader.election.interval.ms. */
        public Builder uncleanElectionIntervalMs(long ms) {
            this.uncleanElectionIntervalMs = ms;
            return this;
        }

        /** auto.leader.rebalance.enable and its two companions. */
        public Builder leaderBalance(LeaderBalancer.Settings s) {
            this.leaderBalance = Objects.requireNonNull(s, "leaderBalance");
            return this;
        }

        /** The clock of the controller duties (heartbeat times, command timestamps). */
        public Builder time(Time t) {
            this.time = t;
            return this;
        }

        /** Runs the session check; not owned by the server. */
        public Builder scheduler(Scheduler s) {
            this.scheduler = s;
            return this;
        }

        public Builder metrics(MetricRegistry registry) {
            this.metrics = registry;
            return this;
        }

        public Builder faultHandler(MetadataFaultHandler handler) {
            this.faultHandler = handler;
            return this;
        }

        /** {@code broker.heartbeat.interval.ms}. */
        public Builder heartbeatIntervalMs(long ms) {
            this.heartbeatIntervalMs = ms;
            return this;
        }

        /** {@code broker.session.timeout.ms}. */
        public Builder sessionTimeoutMs(long ms) {
            this.sessionTimeoutMs = ms;
            return this;
        }

        /** Raft election timeout range (a follower waits a random time in it before campaigning). */
        public Builder rpcTimeout(Duration min, Duration max) {
            this.rpcTimeoutMin = min;
            this.rpcTimeoutMax = max;
            return this;
        }

        /** The election timeout range right after start (defaults to the rpc timeout range). */
        public Builder firstElectionTimeout(Duration min, Duration max) {
            this.firstElectionTimeoutMin = min;
            this.firstElectionTimeoutMax = max;
            return this;
        }

        /** Applied entries between automatic snapshots. */
        public Builder snapshotThreshold(long entries) {
            this.snapshotThreshold = entries;
            return this;
        }

        /**
         * A raw Ratis setting ({@code raft.server.log.segment.size.max}, ...), applied after Tideline's
         * own, for tuning what Tideline does not expose. Unknown keys are ignored by Ratis.
         */
        public Builder ratisProperty(String key, String value) {
            Map<String, String> m = new TreeMap<>(ratisProperties);
            m.put(key, value);
            this.ratisProperties = Map.copyOf(m);
            return this;
        }

        public QuorumServer build() {
            if (!voters.containsKey(nodeId)) {
                throw new IllegalArgumentException("node " + nodeId + " is not among the voters " + voters.keySet());
            }
            Objects.requireNonNull(clusterId, "clusterId");
            Objects.requireNonNull(storageDir, "storageDir");
            Objects.requireNonNull(scheduler, "scheduler");
            if (snapshotThreshold <= 0) {
                throw new IllegalArgumentException("snapshot threshold must be positive: " + snapshotThreshold);
            }
            Builder c = copy();
            if (c.firstElectionTimeoutMin == null) {
                c.firstElectionTimeoutMin = rpcTimeoutMin;
                c.firstElectionTimeoutMax = rpcTimeoutMax;
            }
            return new QuorumServer(c);
        }

        /** The server keeps its own copy: reusing the builder for another voter changes nothing here. */
        private Builder copy() {
            Builder c = new Builder();
            c.nodeId = nodeId;
            c.voters = voters;
            c.clusterId = clusterId;
            c.storageDir = storageDir;
            c.controllerSettings = controllerSettings;
            c.leaderBalance = leaderBalance;
            c.uncleanElectionIntervalMs = uncleanElectionIntervalMs;
            c.time = time;
            c.scheduler = scheduler;
            c.metrics = metrics;
            c.faultHandler = faultHandler;
            c.heartbeatIntervalMs = heartbeatIntervalMs;
            c.sessionTimeoutMs = sessionTimeoutMs;
            c.rpcTimeoutMin = rpcTimeoutMin;
            c.rpcTimeoutMax = rpcTimeoutMax;
            c.firstElectionTimeoutMin = firstElectionTimeoutMin;
            c.firstElectionTimeoutMax = firstElectionTimeoutMax;
            c.snapshotThreshold = snapshotThreshold;
            c.ratisProperties = ratisProperties;
            return c;
        }
    }
}
