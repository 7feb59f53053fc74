package io.tideline.node.server;

import io.grpc.netty.shaded.io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.shaded.io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.shaded.io.grpc.netty.InternalProtocolNegotiators;
import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandler;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.util.AsciiString;
import io.tideline.node.kafka.OncePerAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC listener's protocol negotiator: gRPC's plaintext one, behind a look at each connection's first byte, so
 * that a Kafka client pointed at the gRPC port (bootstrap.servers with the wrong port) gets a correct answer at
 * once instead of retrying until its timeout (docs/kafka-protocol.md "Ports", docs/behaviours.md B231).
 *
 * <p>A gRPC client opens with HTTP/2's preface ('P'); a Kafka client with a request whose size field starts with a
 * zero byte (every request under 16 MiB, and a client's first request is ApiVersions, some tens of bytes). A
 * connection whose first byte is zero is relayed, byte for byte, to this node's own Kafka listener
 * ({@link TcpRelay}); its Metadata answer names the Kafka listeners, so the client's next connections go to the
 * right port. Any other first byte goes to gRPC unchanged. A Kafka client that arrives before the Kafka listener
 * is up, or on a node without one, is closed. Each host that does this is logged once, at WARN.
 *
 * <p>Thread-safe: per-connection state lives in the handler, used on the connection's event loop.
 */
final class KafkaClientSniffer implements InternalProtocolNegotiator.ProtocolNegotiator {
    private static final Logger log = LoggerFactory.getLogger(KafkaClientSniffer.class);

    /** Where to relay: the address to connect to, and the advertised one the log line tells the operator. */
    record Target(InetSocketAddress connect, String advertised) {
    }

    private final InternalProtocolNegotiator.ProtocolNegotiator plaintext = InternalProtocolNegotiators.serverPlaintext();
    private final Supplier<Target> kafkaListener;
    private final Supplier<String> grpcAddress;
    private final OncePerAddress warned = new OncePerAddress();

    /**
     * {@code kafkaListener}: null while this node has no Kafka listener serving; {@code grpcAddress}: the gRPC
     * listener as advertised, for the log line.
     */
    KafkaClientSniffer(Supplier<Target> kafkaListener, Supplier<String> grpcAddress) {
        this.kafkaListener = kafkaListener;
        this.grpcAddress = grpcAddress;
    }

    @Override
    public AsciiString scheme() {
        return plaintext.scheme();
    }

    @Override
    public ChannelHandler newHandler(GrpcHttp2ConnectionHandler grpcHandler) {
        return new FirstByte(plaintext.newHandler(grpcHandler));
    }

    @Override
    public void close() {
        plaintext.close();
    }

    /** Not thread-safe; one per connection, on its event loop. */
    private final class FirstByte extends ChannelInboundHandlerAdapter {
        private final ChannelHandler grpcNegotiation;
        // gRPC starts its negotiation with a user event fired when the transport starts, before any byte is read;
        // it is held here and replayed to gRPC's handler once the connection turns out to be gRPC's.
        private final List<Object> events = new ArrayList<>(2);

        FirstByte(ChannelHandler grpcNegotiation) {
            this.grpcNegotiation = grpcNegotiation;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            events.add(evt);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            if (!in.isReadable()) {
                in.release();
                return;
            }
            if (in.getByte(in.readerIndex()) != 0) {
                ctx.pipeline().replace(this, null, grpcNegotiation);
                for (Object evt : events) {
                    ctx.fireUserEventTriggered(evt);
                }
                ctx.fireChannelRead(in);
                return;
            }
            Target target = kafkaListener.get();
            boolean first = warned.first(ctx.channel().remoteAddress());
            if (target == null) {
                if (first) {
                    log.warn("{} sent a Kafka request to the gRPC API's port {}, and this node serves no Kafka "
                            + "listener (kafka.listeners); closed the connection (logged once per host)",
                            ctx.channel().remoteAddress(), grpcAddress.get());
                }
                in.release();
                ctx.close();
                return;
            }
            if (first) {
                log.warn("{} sent a Kafka request to the gRPC API's port {}; relaying its connection to this node's "
                        + "Kafka listener. Kafka clients belong on {} (bootstrap.servers) (logged once per host)",
                        ctx.channel().remoteAddress(), grpcAddress.get(), target.advertised());
            }
            TcpRelay relay = new TcpRelay(target.connect());
            ctx.pipeline().replace(this, null, relay);
            relay.forward(in);
        }
    }
}
