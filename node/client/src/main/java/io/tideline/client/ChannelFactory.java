package io.tideline.client;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;

/**
 * Opens the gRPC channel to one broker address. Clients open one channel per address and reuse it for
 * every request; they shut their channels down on {@code close()}. The seam exists so that tests can
 * connect a client to in-process fakes and a chaos harness can cut a single link.
 */
@FunctionalInterface
public interface ChannelFactory {

    ManagedChannel create(String host, int port);

    /**
     * The channel for a client whose socket.connection.setup.timeout.ms is {@code connectTimeoutMs}; what
     * the clients call. A factory without sockets (in-process fakes) need not override it.
     */
    default ManagedChannel create(String host, int port, long connectTimeoutMs) {
        return create(host, port);
    }

    /**
     * Plaintext HTTP/2 over Netty. The inbound size limit is lifted: a fetch answer is bounded by the
     * client's own fetch.max.bytes request, except that a broker returns one whole batch even when it is
     * larger, and gRPC's 4 MiB default would turn such an answer into a transport failure. The TCP connect
     * is bounded by the client's socket.connection.setup.timeout.ms (Netty's own default is 30 s): an
     * unreachable broker then fails a call with UNAVAILABLE after that time instead of holding it until
     * its deadline.
     */
    static ChannelFactory plaintext() {
        return new ChannelFactory() {
            @Override
            public ManagedChannel create(String host, int port) {
                return create(host, port, CommonClientConfigs.DEFAULT_SOCKET_CONNECTION_SETUP_TIMEOUT_MS);
            }

            @Override
            public ManagedChannel create(String host, int port, long connectTimeoutMs) {
                return NettyChannelBuilder.forAddress(host, port)
                        .usePlaintext()
                        .maxInboundMessageSize(Integer.MAX_VALUE)
                        .withOption(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                                (int) Math.min(Integer.MAX_VALUE, connectTimeoutMs))
                        .build();
            }
        };
    }
}
