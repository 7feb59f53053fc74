package io.tideline.node.server;

import io.grpc.netty.shaded.io.netty.bootstrap.Bootstrap;
import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.buffer.Unpooled;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelFuture;
import io.grpc.netty.shaded.io.netty.channel.ChannelFutureListener;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Queue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relays one accepted connection, byte for byte, to {@code target} and back (a Kafka client on the gRPC port, to
 * the node's Kafka listener: {@link KafkaClientSniffer}). Backpressure both ways: each side reads again only once
 * its last read was written to the other, so a relayed connection holds at most one read per direction, and the
 * bytes read before the target connection is open, at most {@link #MAX_EARLY_BYTES}. Either side closing closes
 * the other once what it sent is written. The target connection uses the accepted connection's event loop and
 * channel type (gRPC picks epoll or NIO).
 *
 * <p>Not thread-safe; one per accepted connection, on its event loop.
 */
final class TcpRelay extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(TcpRelay.class);
    static final int MAX_EARLY_BYTES = 1 << 20;
    private static final int CONNECT_TIMEOUT_MS = 5_000;

    private final InetSocketAddress target;
    private final Queue<ByteBuf> early = new ArrayDeque<>();
    private int earlyBytes;
    private ChannelHandlerContext ctx;
    private Channel outbound;
    private boolean connected;

    TcpRelay(InetSocketAddress target) {
        this.target = target;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        Channel inbound = ctx.channel();
        inbound.config().setAutoRead(false);
        ChannelFuture connect = new Bootstrap().group(inbound.eventLoop())
                .channelFactory(() -> sameKind(inbound))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MS)
                .handler(new Back())
                .connect(target);
        outbound = connect.channel();
        connect.addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                log.warn("Could not relay {} to {}: {}", inbound.remoteAddress(), target, String.valueOf(f.cause()));
                releaseEarly();
                ctx.close();
                return;
            }
            if (!inbound.isActive()) {
                // The client left while the relay connected: nothing to relay, and nothing to leave open.
                f.channel().close();
                return;
            }
            connected = true;
            ByteBuf buf;
            while ((buf = early.poll()) != null) {
                outbound.write(buf);
            }
            earlyBytes = 0;
            outbound.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(readMoreFromInbound());
            outbound.read();
        });
    }

    /** The first bytes, read before this handler took the connection over. */
    void forward(ByteBuf first) {
        channelRead(ctx, first);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        if (connected) {
            outbound.writeAndFlush(in).addListener(readMoreFromInbound());
            return;
        }
        earlyBytes += in.readableBytes();
        early.add(in);
        if (earlyBytes > MAX_EARLY_BYTES) {
            releaseEarly();
            ctx.close();
        }
    }

    private ChannelFutureListener readMoreFromInbound() {
        return f -> {
            if (f.isSuccess()) {
                ctx.read();
            } else {
                ctx.close();
            }
        };
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releaseEarly();
        closeAfterFlush(outbound);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }

    private void releaseEarly() {
        ByteBuf buf;
        while ((buf = early.poll()) != null) {
            buf.release();
        }
        earlyBytes = 0;
    }

    private static void closeAfterFlush(Channel ch) {
        if (ch != null && ch.isActive()) {
            ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private static Channel sameKind(Channel accepted) {
        try {
            return accepted.getClass().getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot open a " + accepted.getClass().getName() + " to relay", e);
        }
    }

    /** The target side: what it answers goes to the accepted connection, written through the relay's context. */
    private final class Back extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext back, Object msg) {
            ctx.writeAndFlush(msg).addListener((ChannelFutureListener) f -> {
                if (f.isSuccess()) {
                    back.read();
                } else {
                    back.close();
                }
            });
        }

        @Override
        public void channelInactive(ChannelHandlerContext back) {
            if (ctx.channel().isActive()) {
                ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext back, Throwable cause) {
            back.close();
        }
    }
}
