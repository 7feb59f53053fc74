package io.tideline.node.kafka;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.tideline.common.time.Time;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's connection bounds on the Kafka listener, applied where connections are accepted (on the listener's
 * server channel, before a connection gets its pipeline):
 * <ul>
 *   <li>{@code max.connections.per.ip}, or the address's own bound from {@code max.connections.per.ip.overrides}:
 *       a connection from an address that already has that many is closed at once, with one INFO line, as Kafka's
 *       acceptor does;</li>
 *   <li>{@code max.connections}: at that many open connections the listener stops accepting (the server channel
 *       stops reading) until one closes. New connections wait in the kernel's accept backlog, as with Kafka,
 *       rather than being refused: a client at the limit sees a slow connect, not an error.</li>
 * </ul>
 * The time spent not accepting is Kafka's {@code kafka.network:type=Acceptor,name=AcceptorBlockedPercent,
 * listener=<NAME>}, a meter marked with the nanoseconds blocked (its rates are nanoseconds per second, so
 * 1e9 is always blocked). See docs/kafka-protocol.md, "Connection limits".
 *
 * <p>The counts are kept on the server channel's event loop only: a closing connection hands its decrement to
 * that loop, so that counting and switching accepting on and off never race.
 */
@ChannelHandler.Sharable
final class KafkaConnectionQuotas extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(KafkaConnectionQuotas.class);
    /** At most one WARN line a minute while the listener keeps reaching max.connections. */
    private static final long BLOCKED_LOG_INTERVAL_NS = TimeUnit.MINUTES.toNanos(1);

    private final String listenerName;
    private final int maxConnections;
    private final int maxConnectionsPerIp;
    private final Map<InetAddress, Integer> perIpOverrides;
    private final Time time;
    private final Meter blocked;
    private final Map<InetAddress, Integer> perIp = new HashMap<>();
    private int open;
    private long blockedSinceNs;
    private long lastBlockedLogNs;
    private boolean loggedBlocked;

    KafkaConnectionQuotas(String listenerName, KafkaServer.ConnectionLimits limits, Time time, MetricRegistry registry) {
        if (limits.maxConnections() < 1 || limits.maxConnectionsPerIp() < 0
                || limits.perIpOverrides().values().stream().anyMatch(n -> n < 0)) {
            throw new IllegalArgumentException("connection limits out of range: " + limits);
        }
        this.listenerName = listenerName;
        this.maxConnections = limits.maxConnections();
        this.maxConnectionsPerIp = limits.maxConnectionsPerIp();
        this.perIpOverrides = limits.perIpOverrides();
        this.time = time;
        this.blocked = registry.meter("kafka.network:type=Acceptor,name=AcceptorBlockedPercent,listener="
                + listenerName);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Channel child = (Channel) msg;
        InetAddress address = ((InetSocketAddress) child.remoteAddress()).getAddress();
        int fromAddress = perIp.getOrDefault(address, 0);
        Integer own = perIpOverrides.get(address);
        int bound = own != null ? own : maxConnectionsPerIp;
        if (fromAddress >= bound) {
            log.info("Rejected connection from {} on listener {}: the address already has the configured maximum "
                    + "of {} connections ({})", address.getHostAddress(), listenerName, bound,
                    own != null ? "max.connections.per.ip.overrides" : "max.connections.per.ip");
            // Not registered with an event loop yet, so closed the way Netty closes a child it cannot register.
            child.unsafe().closeForcibly();
            return;
        }
        perIp.put(address, fromAddress + 1);
        open++;
        child.closeFuture().addListener(f -> ctx.executor().execute(() -> closed(ctx, address)));
        updateAccepting(ctx);
        ctx.fireChannelRead(child);
    }

    private void closed(ChannelHandlerContext ctx, InetAddress address) {
        open--;
        perIp.computeIfPresent(address, (a, n) -> n == 1 ? null : n - 1);
        updateAccepting(ctx);
    }

    /** Stops reading the server channel at max.connections, and reads again below it. */
    private void updateAccepting(ChannelHandlerContext ctx) {
        boolean full = open >= maxConnections;
        boolean accepting = ctx.channel().config().isAutoRead();
        if (full && accepting) {
            ctx.channel().config().setAutoRead(false);
            blockedSinceNs = time.nanoseconds();
            if (!loggedBlocked || blockedSinceNs - lastBlockedLogNs >= BLOCKED_LOG_INTERVAL_NS) {
                log.warn("Listener {} has {} connections, the configured max.connections: new connections wait "
                        + "in the accept backlog until one closes", listenerName, open);
                loggedBlocked = true;
                lastBlockedLogNs = blockedSinceNs;
            }
        } else if (!full && !accepting) {
            blocked.mark(time.nanoseconds() - blockedSinceNs);
            ctx.channel().config().setAutoRead(true);
        }
    }
}
