package io.tideline.client;

import io.grpc.ManagedChannel;
import io.tideline.client.internals.BrokerAddress;
import io.tideline.proto.admin.AdminServiceGrpc;
import io.tideline.proto.client.ClientServiceGrpc;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gRPC channel per broker address, opened on first use and reused by every request after that (a
 * channel multiplexes concurrent calls and reconnects by itself). Thread-safe.
 */
final class BrokerChannels implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BrokerChannels.class);
    private static final long SHUTDOWN_WAIT_MS = 5_000;

    private final ChannelFactory factory;
    private final long connectTimeoutMs;
    private final Map<BrokerAddress, ManagedChannel> channels = new ConcurrentHashMap<>();
    private volatile boolean closed;

    BrokerChannels(ChannelFactory factory, long connectTimeoutMs) {
        this.factory = factory;
        this.connectTimeoutMs = connectTimeoutMs;
    }

    ManagedChannel channel(BrokerAddress address) {
        if (closed) {
            throw new IllegalStateException("client is closed");
        }
        return channels.computeIfAbsent(address, a -> factory.create(a.host(), a.port(), connectTimeoutMs));
    }

    ClientServiceGrpc.ClientServiceStub client(BrokerAddress address, long timeoutMs) {
        return ClientServiceGrpc.newStub(channel(address)).withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS);
    }

    AdminServiceGrpc.AdminServiceStub admin(BrokerAddress address, long timeoutMs) {
        return AdminServiceGrpc.newStub(channel(address)).withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /** Shuts every channel down, waiting a bounded time for calls in flight before cutting them. */
    @Override
    public void close() {
        closed = true;
        List<ManagedChannel> open = new ArrayList<>(channels.values());
        channels.clear();
        open.forEach(ManagedChannel::shutdown);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SHUTDOWN_WAIT_MS);
        for (ManagedChannel channel : open) {
            try {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !channel.awaitTermination(left, TimeUnit.NANOSECONDS)) {
                    channel.shutdownNow();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                channel.shutdownNow();
            }
        }
        log.debug("closed {} broker channel(s)", open.size());
    }
}
