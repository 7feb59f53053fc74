package io.tideline.node.server;

import com.codahale.metrics.MetricRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.ThreadPoolScheduler;
import io.tideline.common.time.Time;
import io.tideline.node.broker.BrokerMetadataPublisher;
import io.tideline.node.config.BrokerConfigResolver;
import io.tideline.node.config.NodeConfig;
import io.tideline.node.controller.ControllerSettings;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.kafka.KafkaApis;
import io.tideline.node.kafka.KafkaRequestMemoryPool;
import io.tideline.node.kafka.KafkaServer;
import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.group.MissedTombstones;
import io.tideline.node.group.ImageTracker;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.quorum.LeaderBalancer;
import io.tideline.node.quorum.QuorumServer;
import io.tideline.node.replica.BrokerConfigApplier;
import io.tideline.node.replica.PartitionSettingsResolver;
import io.tideline.node.replica.QuorumFailedReplicaReporter;
import io.tideline.node.replica.QuorumIsrChannel;
import io.tideline.node.replica.ReplicaMetadataHandler;
import io.tideline.proto.client.ClientServiceGrpc;
import io.tideline.replication.rpc.ReplicaFetchGrpcService;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.manager.LogManager;
import io.tideline.node.metrics.BusyTimeExecutor;
import io.tideline.node.metrics.LinuxIoMetrics;
import io.tideline.node.metrics.JvmMetrics;
import io.tideline.node.producer.ProducerIdInitializer;
import io.tideline.node.producer.ProducerIdManager;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Tideline node: storage, the metadata quorum member (when it has the controller role), replication and
 * the listeners: the gRPC services (client, admin, replica fetch, health, reflection) and, when
 * {@code kafka.listeners} is set, Kafka's protocol, both wired by {@link ListenerWiring}.
 *
 * <p>Start-up order: lock, stamp and recover the log dirs; start the quorum member; bind the
 * listener; register with the controller; follow the metadata (own voter's image, or fetched from the
 * quorum by a broker-only node) and apply it to the replicas; get unfenced; report SERVING.
 *
 * <p>{@link #close()} is the orderly stop (SIGTERM): controlled shutdown (the controller moves leaderships
 * away), NOT_SERVING, listener closed, fetchers stopped, logs flushed and closed with their checkpoints and
 * clean-shutdown marker, quorum member stopped.
 *
 * <p>This class wires the node and keeps both orders; the links to other brokers are {@link BrokerChannels},
 * the metadata publisher thread {@link MetadataFollower}, what the node advertises {@link AdvertisedEndpoints}.
 */
public final class TidelineNode implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TidelineNode.class);
    /** How long start-up waits for registration and unfencing before it gives up. */
    static final long STARTUP_TIMEOUT_MS = 120_000L;
    /** How soon the gRPC health status follows a fencing or an unfencing. */
    private static final long HEALTH_REFRESH_MS = 1000L;
    /** How often committed offsets are compared with removed tombstones (B194): a report, not a bound. */
    private static final long MISSED_TOMBSTONE_CHECK_MS = 10_000L;
    /** gRPC's 4 MiB default is below a replica fetch response (replica.fetch.response.max.bytes, 10 MiB). */
    public static final int MAX_MESSAGE_BYTES = 128 * 1024 * 1024;

    /** Opens channels to other brokers; injectable so a test can cut one link. */
    @FunctionalInterface
    public interface ChannelFactory {
        ManagedChannel open(int brokerId, String host, int port);

        ChannelFactory PLAINTEXT = (id, host, port) -> NettyChannelBuilder.forAddress(host, port).usePlaintext()
                .maxInboundMessageSize(MAX_MESSAGE_BYTES).build();
    }

    private final ServerConfig config;
    private final Time time;
    private final ChannelFactory channels;
    private final MetricRegistry metrics = new MetricRegistry();
    private final ThreadPoolScheduler scheduler;
    /** The logs' own background work (retention, unlinks, checkpoints, roll fsyncs), apart from heartbeats. */
    private final ThreadPoolScheduler logScheduler;
    private final NodeHealth health = new NodeHealth(this::isHealthy);
    private LogManager logManager;
    private QuorumServer quorum;
    private ControllerClient controllerClient;
    private MetadataFollower follower;
    private BrokerChannels brokerChannels;
    private ReplicaManager replicaManager;
    private BrokerLifecycle lifecycle;
    private ProducerIdManager producerIds;
    private ProducerIdInitializer producerIdInitializer;
    private LogDirFailureHandler logDirFailures;
    private Server server;
    private KafkaServer kafkaServer;
    /** Where the gRPC listener relays a Kafka client; set once the Kafka listener serves, read on gRPC's threads. */
    private final AtomicReference<KafkaClientSniffer.Target> kafkaRelayTarget = new AtomicReference<>();
    private volatile ImageTracker groupImages;
    private volatile GroupCoordinator groupCoordinator;
    private ExecutorService requestHandlers;
    /** The request handlers as the listeners use them: each request's run time counts as the pool's busy time. */
    private BusyTimeExecutor handlers;
    private RequestMemoryPool requestMemory;
    private KafkaRequestMemoryPool kafkaRequestMemory;
    private MetricsExport metricsExport;
    private volatile boolean closed;
    private volatile boolean crashed;

    private TidelineNode(ServerConfig config, Time time, ChannelFactory channels) {
        this.config = config;
        this.time = time;
        this.channels = channels;
        int id = config.node().nodeId();
        this.scheduler = new ThreadPoolScheduler("tideline-" + id + "-scheduler", 2);
        this.logScheduler = new ThreadPoolScheduler("tideline-" + id + "-log-scheduler", config.backgroundThreads());
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    public static TidelineNode start(ServerConfig config) throws IOException, InterruptedException {
        return start(config, Time.SYSTEM, ChannelFactory.PLAINTEXT);
    }

    /** Starts a node; on failure everything started so far is stopped again. */
    public static TidelineNode start(ServerConfig config, Time time, ChannelFactory channels)
            throws IOException, InterruptedException {
        TidelineNode node = new TidelineNode(Objects.requireNonNull(config, "config"), time, channels);
        try {
            node.startup();
            return node;
        } catch (IOException | InterruptedException | RuntimeException e) {
            node.closeWithoutControlledShutdown();
            throw e;
        }
    }

    private void startup() throws IOException, InterruptedException {
        NodeConfig nodeConfig = config.node();
        int id = nodeConfig.nodeId();
        log.info("Starting node {} (roles {}, listener {}, advertised {})", id, nodeConfig.roles(), config.listener(),
                config.advertisedListener());
        logManager = new LogManager(config.store(), nodeConfig.clusterId(), id, time, logScheduler, metrics, new Random());
        logManager.startup();

        ControllerSettings controllerSettings = new ControllerSettings(nodeConfig.uncleanLeaderElectionEnable(),
                nodeConfig.maxPartitions());
        if (nodeConfig.isController()) {
            quorum = QuorumServer.builder()
                    .nodeId(id)
                    .voters(nodeConfig.voters())
                    .clusterId(nodeConfig.clusterId())
                    .storageDir(nodeConfig.metadataLogDir())
                    .controllerSettings(controllerSettings)
                    .leaderBalance(new LeaderBalancer.Settings(nodeConfig.autoLeaderRebalanceEnable(),
                            nodeConfig.leaderImbalancePerBrokerPercentage(),
                            TimeUnit.SECONDS.toMillis(nodeConfig.leaderImbalanceCheckIntervalSeconds())))
                    .uncleanElectionIntervalMs(nodeConfig.uncleanLeaderElectionIntervalMs())
                    .time(time)
                    .scheduler(scheduler)
                    .metrics(metrics)
                    .heartbeatIntervalMs(nodeConfig.brokerHeartbeatIntervalMs())
                    .sessionTimeoutMs(nodeConfig.brokerSessionTimeoutMs())
                    .snapshotThreshold(nodeConfig.metadataSnapshotEntries())
                    .build();
            quorum.start();
        }
        controllerClient = new ControllerClient(nodeConfig.clusterId(), nodeConfig.voters(), time,
                ControllerClient.DEFAULT_REQUEST_TIMEOUT, controllerSettings);

        lifecycle = new BrokerLifecycle(id, controllerClient, scheduler, time, nodeConfig.brokerHeartbeatIntervalMs(),
                () -> image().offset());
        brokerChannels = new BrokerChannels(channels, this::image, lifecycle::brokerEpoch);
        replicaManager = new ReplicaManager(id, config.replication(), logManager, time, scheduler,
                new QuorumIsrChannel(controllerClient, id, lifecycle::brokerEpoch),
                new QuorumFailedReplicaReporter(controllerClient, id, lifecycle::brokerEpoch,
                        topic -> image().topic(topic).map(t -> t.id())),
                brokerChannels::leaderEndpoint, metrics);
        replicaManager.startup();
        logDirFailures = new LogDirFailureHandler(id, logManager, replicaManager, controllerClient::reportFailedReplicas,
                lifecycle::brokerEpoch, this::image, scheduler);
        replicaManager.setStorageErrorListener(logDirFailures::onStorageError);
        logManager.setLogDirFailureListener(logDirFailures::onLogDirOffline);
        BrokerConfigResolver brokerConfigs = new BrokerConfigResolver(config.originals());
        PartitionSettingsResolver partitionSettings = new PartitionSettingsResolver(config.replication());
        BrokerConfigApplier configApplier = new BrokerConfigApplier(id, brokerConfigs, logManager, replicaManager,
                partitionSettings);
        ReplicaMetadataHandler replicaHandler = new ReplicaMetadataHandler(id, replicaManager, logManager,
                partitionSettings, logDirFailures::onLogCreationFailed);
        // Dynamic broker configs first: logs the replica handler creates start with the values in force.
        follower = new MetadataFollower(id, new BrokerMetadataPublisher(id, (delta, image) -> {
            configApplier.onDelta(delta, image);
            replicaHandler.onDelta(delta, image);
            ImageTracker groups = groupImages;
            if (groups != null) {
                groups.onImage(image);
            }
        }), lifecycle::registrationOffset, () -> closed);

        // Producer ids come from the controller in blocks; the first is asked for once the broker is registered.
        producerIds = new ProducerIdManager(() -> controllerClient.allocateProducerIds(id, lifecycle.brokerEpoch()));
        producerIdInitializer = new ProducerIdInitializer(producerIds);

        // One pool per listener (docs/behaviours.md B112): Kafka clients cannot starve gRPC clients or replication.
        requestMemory = new RequestMemoryPool(config.queuedMaxRequestBytes());
        kafkaRequestMemory = new KafkaRequestMemoryPool(config.queuedMaxRequestBytes());
        SocketServerMetrics.register(metrics, kafkaRequestMemory, requestMemory);
        JvmMetrics.register(metrics);
        AtomicInteger handlerCount = new AtomicInteger();
        requestHandlers = Executors.newFixedThreadPool(config.numIoThreads(),
                r -> daemon(r, "tideline-" + id + "-request-handler-" + handlerCount.incrementAndGet()));
        handlers = new BusyTimeExecutor(requestHandlers, time);
        HandlerPoolMetrics.register(metrics, handlers, config.numIoThreads(), time);
        LinuxIoMetrics.register(metrics, LinuxIoMetrics.PROC_SELF_IO);
        ListenerWiring wiring = new ListenerWiring(new ListenerWiring.Parts(id, nodeConfig, config.originals(),
                this::image, this::quorumLeaderId, replicaManager, logManager, controllerClient, brokerConfigs,
                partitionSettings::brokerMinInsyncReplicas, () -> groupCoordinator, producerIdInitializer, metrics));
        // Calls are looked up on their connection's transport thread (direct), then run on the request handlers;
        // a connection's Produce calls one at a time in arrival order, for the idempotent producer (ProduceOrdering).
        ProduceOrdering produceOrdering = new ProduceOrdering(ClientServiceGrpc.getProduceMethod(), handlers);
        server = NettyServerBuilder.forAddress(new InetSocketAddress(config.listener().bindHost(), config.listener().port()))
                .directExecutor()
                // A Kafka client on this port is relayed to the Kafka listener (docs/behaviours.md B231).
                .protocolNegotiator(new KafkaClientSniffer(kafkaRelayTarget::get, this::grpcAddress))
                .callExecutor(produceOrdering)
                .addTransportFilter(produceOrdering)
                .maxInboundMessageSize(config.socketRequestMaxBytes())
                .maxConcurrentCallsPerConnection(config.maxConcurrentCallsPerConnection())
                .flowControlWindow(config.flowControlWindowBytes())
                .intercept(requestMemory)
                // Bytes that are not a method's message get INVALID_ARGUMENT, not UNKNOWN (docs/behaviours.md B164).
                .addService(wiring.clientService())
                .addService(wiring.adminService())
                .addService(TypedRequestParsing.of(new ReplicaFetchGrpcService(replicaManager)))
                .addService(TypedRequestParsing.of(health.service()))
                .addService(TypedRequestParsing.of(ProtoReflectionServiceV1.newInstance()))
                .build()
                .start();
        // host:port, not InetSocketAddress.toString()'s "/127.0.0.1:9092".
        log.info("Node {} listening on {}", id, server.getListenSockets().stream()
                .map(a -> a instanceof InetSocketAddress isa ? isa.getAddress().getHostAddress() + ":" + isa.getPort()
                        : String.valueOf(a))
                .collect(Collectors.joining(", ")));
        if (config.kafkaListener().isPresent()) {
            startKafkaListener(config.kafkaListener().get(), wiring);
        }
        metricsExport = MetricsExport.start(config, metrics, this::isHealthy, this::image);

        lifecycle.register(AdvertisedEndpoints.registration(config, boundPort(), () -> kafkaServer.boundPort()),
                nodeConfig.brokerRack(), metricsExport.url(config), STARTUP_TIMEOUT_MS);
        followMetadata(nodeConfig);
        if (!lifecycle.awaitUnfenced(STARTUP_TIMEOUT_MS)) {
            throw new IllegalStateException("Node " + id + " was not unfenced within " + STARTUP_TIMEOUT_MS
                    + " ms (metadata applied up to offset " + image().offset() + ")");
        }
        producerIds.prefetch();
        health.refresh();
        scheduler.schedule("health-status", health::refresh, HEALTH_REFRESH_MS, HEALTH_REFRESH_MS);
        MissedTombstones missedTombstones = MissedTombstones.of(this::image, logManager,
                tp -> replicaManager.partition(tp).map(io.tideline.replication.server.Partition::isLeader).orElse(false));
        missedTombstones.register(metrics);
        scheduler.schedule("missed-tombstone-check", missedTombstones::check, MISSED_TOMBSTONE_CHECK_MS,
                MISSED_TOMBSTONE_CHECK_MS);
        log.info("Node {} is serving (broker epoch {})", id, lifecycle.brokerEpoch());
    }

    private void startKafkaListener(KafkaListeners listeners, ListenerWiring wiring) throws InterruptedException {
        int id = config.node().nodeId();
        // Consumer groups: the coordinator sees each image the publisher applies, so a commit answers once this
        // node has it.
        groupImages = new ImageTracker(image());
        groupCoordinator = new GroupCoordinator(id, config.groups(), time, scheduler, groupImages,
                controllerClient::submit).start();
        KafkaApis apis = wiring.kafkaApis(listeners.advertised().name(), groupCoordinator);
        kafkaServer = new KafkaServer(listeners.bind().name(),
                new InetSocketAddress(listeners.bind().bindHost(), listeners.bind().port()), apis,
                handlers, kafkaRequestMemory, config.socketRequestMaxBytes(), config.connectionsMaxIdleMs(),
                config.kafkaRequestReceiveTimeoutMs(), config.kafkaMaxInFlightRequestsPerConnection(), config.numNetworkThreads(),
                config.kafkaConnectionLimits(), "tideline-" + id + "-kafka", grpcAddress(),
                metrics, time).start();
        log.info("Node {} serves Kafka's protocol on {}:{}", id, listeners.bind().bindHost(), kafkaServer.boundPort());
        kafkaRelayTarget.set(AdvertisedEndpoints.kafkaRelayTarget(listeners, kafkaServer.boundPort()));
    }

    /** The gRPC listener as clients are told it, host:port (what the Kafka listener names to a gRPC client). */
    private String grpcAddress() {
        return AdvertisedEndpoints.grpcAddress(config, boundPort());
    }

    private void followMetadata(NodeConfig nodeConfig) {
        if (quorum != null) {
            follower.followVoter(quorum);
        } else {
            follower.fetchFrom(controllerClient::fetchImage, scheduler, time, nodeConfig.metadataFetchIntervalMs());
        }
    }

    /** The metadata this broker has applied. */
    public MetadataImage image() {
        return follower == null ? MetadataImage.EMPTY : follower.image();
    }

    private int quorumLeaderId() {
        return quorum != null ? quorum.leaderId().orElse(-1) : -1;
    }

    /** The port the listener is bound to (the configured one, or the one picked for port 0). */
    public int boundPort() {
        return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    }

    /** The Kafka listener's bound port; empty when the node has no Kafka listener. */
    public Optional<Integer> kafkaPort() {
        return Optional.ofNullable(kafkaServer).map(KafkaServer::boundPort);
    }

    /** The APIs of the Kafka listener; empty when the node has none. */
    public Optional<KafkaApis> kafkaApis() {
        return Optional.ofNullable(kafkaServer).map(KafkaServer::apis);
    }

    public int nodeId() {
        return config.node().nodeId();
    }

    public ServerConfig config() {
        return config;
    }

    public MetricRegistry metrics() {
        return metrics;
    }

    public ReplicaManager replicaManager() {
        return replicaManager;
    }

    public LogManager logManager() {
        return logManager;
    }

    public Optional<QuorumServer> quorum() {
        return Optional.ofNullable(quorum);
    }

    public ControllerClient controllerClient() {
        return controllerClient;
    }

    public long brokerEpoch() {
        return lifecycle.brokerEpoch();
    }

    public boolean isFenced() {
        return lifecycle.isFenced();
    }

    /** Serving: started, registered and unfenced, not stopping. What /health answers. */
    public boolean isHealthy() {
        return !closed && lifecycle != null && lifecycle.brokerEpoch() >= 0 && !lifecycle.isFenced();
    }

    /** The metrics endpoint's port, empty when it is off. */
    public Optional<Integer> metricsPort() {
        return metricsExport == null ? Optional.empty() : metricsExport.port();
    }

    /** Test hook and operator path alike: what an I/O error on {@code tp}'s log does. */
    public void reportStorageError(io.tideline.common.TopicPartition tp, RuntimeException error) {
        logDirFailures.onStorageError(tp, error);
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    /** The orderly stop (SIGTERM): controlled shutdown first, then everything closes in reverse order. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (lifecycle != null && server != null) {
            try {
                lifecycle.controlledShutdown(config.controlledShutdownTimeoutMs());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        closeWithoutControlledShutdown();
    }

    /**
     * Stops without asking the controller to move leaderships first (it may be gone already: the last
     * nodes of a cluster being torn down). Logs are still flushed and closed cleanly.
     */
    public void closeSkippingControlledShutdown() {
        closeWithoutControlledShutdown();
    }

    /**
     * What kill -9 leaves behind, for tests in one JVM: no controlled shutdown, and the logs are released
     * without flushing, checkpoints or the clean-shutdown marker, so the next start recovers them.
     */
    public void crash() {
        crashed = true;
        closeWithoutControlledShutdown();
    }

    private synchronized void closeWithoutControlledShutdown() {
        if (closed) {
            return;
        }
        closed = true;
        health.stop();
        if (follower != null) {
            follower.stopFetching();
        }
        if (lifecycle != null) {
            lifecycle.close();
        }
        if (logDirFailures != null) {
            logDirFailures.close();
        }
        if (groupCoordinator != null) {
            groupCoordinator.close();
        }
        if (kafkaServer != null) {
            // Cut at once on both paths, as gRPC's shutdownNow for a crash: Kafka clients retry on another broker.
            kafkaServer.close();
        }
        if (server != null && crashed) {
            // A killed process answers nothing more and acts no more: no draining of calls in flight, during
            // which this node would go on leading (a leader draining for 5 s shrinks the ISR to itself, refuses
            // its followers' new fetches, and leaves the partition without a leader once fenced).
            server.shutdownNow();
            awaitQuietly(server);
        } else if (server != null) {
            server.shutdown();
            awaitQuietly(server);
        }
        if (requestHandlers != null) {
            requestHandlers.shutdownNow();
        }
        if (follower != null) {
            follower.stopPublisher(crashed);
        }
        if (metricsExport != null) {
            metricsExport.close();
        }
        if (replicaManager != null) {
            replicaManager.close();
        }
        if (brokerChannels != null) {
            brokerChannels.close();
        }
        if (logManager != null && crashed) {
            logManager.closeWithoutShutdown();
        } else if (logManager != null) {
            logManager.close();
        }
        if (controllerClient != null) {
            controllerClient.close();
        }
        if (quorum != null) {
            quorum.close();
        }
        scheduler.close();
        logScheduler.close();
        log.info("Node {} stopped", config.node().nodeId());
    }

    private static void awaitQuietly(Server s) {
        try {
            if (!s.awaitTermination(5, TimeUnit.SECONDS)) {
                s.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            s.shutdownNow();
        }
    }
}
