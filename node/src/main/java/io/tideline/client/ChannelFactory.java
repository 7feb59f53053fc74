package io.tideline.client;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;

/**
 * Opens the gRPC channel to one broker address. Clients open one channel per address and reuse it for
 * every request; they shut their channels down on {@code close()}. The seam exists so that tests can
 * connect a client to in-process fakes and a chaos harness can cut a single link.
 */
@FunctionalInterface
public interface ChannelFactory {

    ManagedChannel create(String host, int port);

    /**
     * Plaintext HTTP/2 over Netty. The inbound size limit is lifted: a fetch answer is bounded by the
     * client's own fetch.max.bytes request, except that a broker returns one whole batch even when it is
     * larger, and gRPC's 4 MiB default would turn such an answer into a transport failure.
     */
    static ChannelFactory plaintext() {
        return (host, port) -> NettyChannelBuilder.forAddress(host, port)
                .usePlaintext()
                .maxInboundMessageSize(Integer.MAX_VALUE)
                .build();
    }
}
