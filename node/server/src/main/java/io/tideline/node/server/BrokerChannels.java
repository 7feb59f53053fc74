package io.tideline.node.server;

import io.grpc.ManagedChannel;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.Endpoint;
import io.tideline.replication.fetcher.LeaderEndpoint;
import io.tideline.replication.rpc.GrpcLeaderEndpoint;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * This follower's links to each leader broker: one channel per address, and one endpoint on it, which holds
 * the replica fetch stream (so it is kept, not made per fetch). The address is the first endpoint of the
 * broker's registration in the applied metadata, the gRPC listener.
 *
 * <p>Thread-safety: {@link #leaderEndpoint} may be called from any fetcher thread; {@link #close} once, after
 * the replica manager that asks for endpoints has closed.
 */
final class BrokerChannels {
    private record BrokerLink(String address, long brokerEpoch, ManagedChannel channel, GrpcLeaderEndpoint endpoint) {
        void close() {
            endpoint.close();
            channel.shutdownNow();
        }
    }

    private final TidelineNode.ChannelFactory channels;
    private final Supplier<MetadataImage> image;
    /** This broker's own epoch, which its fetches carry. */
    private final LongSupplier brokerEpoch;
    private final Map<Integer, BrokerLink> links = new ConcurrentHashMap<>();

    BrokerChannels(TidelineNode.ChannelFactory channels, Supplier<MetadataImage> image, LongSupplier brokerEpoch) {
        this.channels = channels;
        this.image = image;
        this.brokerEpoch = brokerEpoch;
    }

    /** The endpoint to fetch from {@code brokerId}; empty while the applied metadata has no address for it. */
    Optional<LeaderEndpoint> leaderEndpoint(int brokerId) {
        Optional<BrokerRegistrationRecord> broker = image.get().broker(brokerId);
        if (broker.isEmpty() || broker.get().getEndpointsCount() == 0) {
            return Optional.empty();
        }
        Endpoint endpoint = broker.get().getEndpoints(0);
        String address = endpoint.getHost() + ":" + endpoint.getPort();
        long epoch = brokerEpoch.getAsLong();
        BrokerLink link = links.compute(brokerId, (k, existing) -> {
            if (existing != null && existing.address().equals(address)) {
                if (existing.brokerEpoch() == epoch) {
                    return existing;
                }
                // Re-registered: a new endpoint (its fetches carry the epoch) on the same channel.
                existing.endpoint().close();
                return new BrokerLink(address, epoch, existing.channel(),
                        new GrpcLeaderEndpoint(existing.channel(), epoch));
            }
            if (existing != null) {
                existing.endpoint().close();
                existing.channel().shutdown();
            }
            ManagedChannel channel = channels.open(brokerId, endpoint.getHost(), endpoint.getPort());
            return new BrokerLink(address, epoch, channel, new GrpcLeaderEndpoint(channel, epoch));
        });
        return Optional.of(link.endpoint());
    }

    /** Closes every fetch stream and channel at once. */
    void close() {
        links.values().forEach(BrokerLink::close);
    }
}
