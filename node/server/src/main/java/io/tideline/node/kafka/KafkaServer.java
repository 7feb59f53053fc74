package io.tideline.node.kafka;

import io.netty.bootstrap.ServerBootstrap;
import io.tideline.common.time.Time;
import io.tideline.node.metrics.IdleRatioGauge;
import io.tideline.node.metrics.ThreadCpuTime;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannelRecvByteBufAllocator;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The Kafka protocol listener: a Netty server (NIO transport) whose connections are {@link KafkaConnection}s.
 * One acceptor thread and {@code networkThreads} event-loop threads (Kafka's {@code num.network.threads}), named
 * {@code <prefix>-acceptor-N} and {@code <prefix>-network-N}; the APIs run on the node's request handler pool.
 * A connection idle for {@code connections.max.idle.ms}, or that takes longer than
 * {@code kafka.request.receive.timeout.ms} to send a request, is closed by its {@link KafkaConnection}, which also
 * keeps at most {@code maxInFlight} of its requests unanswered. A gRPC client that reaches this port is told
 * {@code grpcAddress} ({@link Http2PrefaceAnswer}). {@code max.connections} and
 * {@code max.connections.per.ip} bound the connections where they are accepted ({@link KafkaConnectionQuotas}).
 *
 * <p>Thread-safe: {@link #start} once, then {@link #close} or {@link #closeNow} from any thread.
 */
public final class KafkaServer implements AutoCloseable {
    /** How long an orderly stop lets the event loops finish the writes in progress. */
    private static final long QUIET_PERIOD_MS = 0;
    private static final long SHUTDOWN_TIMEOUT_MS = 5_000;
    /** Kafka's name; a fraction, 0 (all network threads busy) to 1 (all idle), over the last 10-20 s. */
    public static final String NETWORK_PROCESSOR_AVG_IDLE_PERCENT =
            "kafka.network:type=SocketServer,name=NetworkProcessorAvgIdlePercent";

    private final EventLoopGroup acceptor;
    private final EventLoopGroup network;
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final KafkaListenerMetrics metrics;
    private final InetSocketAddress bindAddress;
    private final KafkaApis apis;
    private final Executor handlers;
    private final KafkaRequestMemory memory;
    private final int maxRequestBytes;
    private final long maxIdleMs;
    private final long receiveTimeoutMs;
    private final int maxInFlight;
    private final Time time;
    private final boolean bounded;
    private final KafkaConnectionQuotas quotas;
    private final String grpcAddress;
    private final OncePerAddress grpcClientsWarned = new OncePerAddress();
    private Channel serverChannel;

    /**
     * Kafka's {@code max.connections}, {@code max.connections.per.ip} and {@code max.connections.per.ip.overrides}
     * (the bound of each address named there); {@code Integer.MAX_VALUE}: no bound.
     */
    public record ConnectionLimits(int maxConnections, int maxConnectionsPerIp, Map<InetAddress, Integer> perIpOverrides) {
        public ConnectionLimits {
            perIpOverrides = Map.copyOf(perIpOverrides);
        }

        /** Whether a bound is set: without one the listener accepts in batches, as Netty does by default. */
        boolean bounded() {
            return maxConnections < Integer.MAX_VALUE || maxConnectionsPerIp < Integer.MAX_VALUE
                    || !perIpOverrides.isEmpty();
        }
    }

    public KafkaServer(String listenerName, InetSocketAddress bindAddress, KafkaApis apis, Executor handlers,
                       KafkaRequestMemory memory, int maxRequestBytes, long maxIdleMs, long receiveTimeoutMs,
                       int maxInFlight,
                       int networkThreads, ConnectionLimits limits,
                       String threadPrefix, String grpcAddress,
                       com.codahale.metrics.MetricRegistry registry, Time time) {
        this.grpcAddress = grpcAddress;
        this.bounded = limits.bounded();
        // Constructed either way, so that its metric exists (at 0) as Kafka's does.
        this.quotas = new KafkaConnectionQuotas(listenerName, limits, time, registry);
        this.bindAddress = bindAddress;
        this.apis = apis;
        this.handlers = handlers;
        this.memory = memory;
        this.maxRequestBytes = maxRequestBytes;
        this.maxIdleMs = maxIdleMs;
        this.receiveTimeoutMs = receiveTimeoutMs;
        this.maxInFlight = maxInFlight;
        this.time = time;
        this.metrics = new KafkaListenerMetrics(registry, listenerName);
        this.acceptor = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(threadPrefix + "-acceptor", true),
                NioIoHandler.newFactory());
        ThreadCpuTime networkCpu = new ThreadCpuTime();
        this.network = new MultiThreadIoEventLoopGroup(networkThreads,
                networkCpu.track(new DefaultThreadFactory(threadPrefix + "-network", true)), NioIoHandler.newFactory());
        if (networkCpu.supported()) {
            // The event loops' CPU time is their busy time: they block in nothing but the selector.
            registry.register(NETWORK_PROCESSOR_AVG_IDLE_PERCENT, new IdleRatioGauge(networkCpu::cpuNanos,
                    () -> networkThreads, time, IdleRatioGauge.WINDOW_NANOS));
        }
    }

    /** Binds the listener; returns once it accepts connections. */
    public KafkaServer start() throws InterruptedException {
        ServerBootstrap b = new ServerBootstrap().group(acceptor, network)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.add(ch);
                        ch.pipeline().addLast(new IdleStateHandler(0, 0, maxIdleMs, TimeUnit.MILLISECONDS));
                        ch.pipeline().addLast(new Http2PrefaceAnswer(grpcAddress, grpcClientsWarned));
                        ch.pipeline().addLast(new KafkaConnection(apis, handlers, memory, maxRequestBytes, maxInFlight,
                                receiveTimeoutMs, metrics, time));
                    }
                });
        if (bounded) {
            // One connection per accept, so that the count reaches the bound before the next is taken (Netty
            // would otherwise accept up to 16 in one read before any of them is counted).
            b.option(ChannelOption.RCVBUF_ALLOCATOR, new ServerChannelRecvByteBufAllocator().maxMessagesPerRead(1))
                    .handler(quotas);
        }
        serverChannel = b.bind(bindAddress).sync().channel();
        return this;
    }

    public int boundPort() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** What this listener serves; ApiVersions answers exactly these. */
    public KafkaApis apis() {
        return apis;
    }

    public int connectionCount() {
        return metrics.connectionCount();
    }

    /**
     * Stops accepting, cuts every open connection at once (an answer not yet written is dropped and its stored
     * slices closed; the client retries elsewhere, as after a broker crash) and stops the event loops.
     */
    @Override
    public void close() {
        if (serverChannel != null) {
            serverChannel.close().awaitUninterruptibly();
        }
        connections.close().awaitUninterruptibly();
        acceptor.shutdownGracefully(QUIET_PERIOD_MS, SHUTDOWN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        network.shutdownGracefully(QUIET_PERIOD_MS, SHUTDOWN_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .awaitUninterruptibly(SHUTDOWN_TIMEOUT_MS);
    }
}
