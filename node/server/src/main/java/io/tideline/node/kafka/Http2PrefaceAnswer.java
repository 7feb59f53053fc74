package io.tideline.node.kafka;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First in each Kafka listener connection's pipeline: tells a gRPC client (the tideline CLI, grpcurl) that reached
 * this port where the gRPC API is, instead of reading its HTTP/2 preface as a Kafka size field and closing without
 * a word (docs/kafka-protocol.md "Ports", docs/behaviours.md B230).
 *
 * <p>It compares the connection's first bytes with the 24-byte HTTP/2 client preface and holds at most those 24.
 * On the first byte that differs it hands everything held and read to the Kafka connection behind it and leaves
 * the pipeline: a Kafka request's size field starts with a zero byte (a size under 16 MiB), the preface with 'P',
 * so a Kafka client costs one comparison. On the whole preface it answers as an HTTP/2 server that refuses the
 * connection: an empty SETTINGS frame; then, once the client opens its first stream (or after
 * {@link #AWAIT_STREAM_MS} without one), GOAWAY with PROTOCOL_ERROR whose debug data names the gRPC address, so
 * that gRPC clients show the text in their error (grpc-java puts it in the Status description). What it reads
 * after the preface is frame headers only, payloads skipped, at most {@link #MAX_FRAME_BYTES}. It then closes its
 * output and discards what the client still sends until the client closes, at most {@link #LINGER_MS}: closing
 * with the client's bytes unread would reset the connection, and a reset may drop the GOAWAY before the client
 * reads it.
 *
 * <p>Not thread-safe; one instance per connection, used on its event loop.
 */
final class Http2PrefaceAnswer extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(Http2PrefaceAnswer.class);
    static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    static final long LINGER_MS = 2_000;
    static final long AWAIT_STREAM_MS = 1_000;
    static final int MAX_FRAME_BYTES = 64 * 1024;
    private static final int FRAME_HEADER_BYTES = 9;
    private static final byte TYPE_HEADERS = 0x1;
    private static final byte TYPE_SETTINGS = 0x4;
    private static final byte TYPE_GOAWAY = 0x7;
    private static final int PROTOCOL_ERROR = 0x1;

    private enum State { PREFACE, AWAIT_STREAM, ANSWERED, PASSED }

    private final byte[] debugData;
    private final OncePerAddress warned;
    private final ByteBuf header = Unpooled.buffer(FRAME_HEADER_BYTES, FRAME_HEADER_BYTES);
    private State state = State.PREFACE;
    private ByteBuf held;
    private long skip;
    private long seen;
    private ScheduledFuture<?> noStream;

    /** {@code grpcAddress}: the node's advertised gRPC listener, host:port; {@code warned}: the listener's. */
    Http2PrefaceAnswer(String grpcAddress, OncePerAddress warned) {
        this.debugData = message(grpcAddress).getBytes(StandardCharsets.UTF_8);
        this.warned = warned;
    }

    /** The text a gRPC client receives, in the GOAWAY frame's debug data. */
    static String message(String grpcAddress) {
        return "this is Tideline's Kafka listener (Apache Kafka's protocol); the gRPC API (tideline CLI, Tideline "
                + "clients) is on " + grpcAddress;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            if (state == State.PREFACE) {
                readPreface(ctx, in);
            } else if (state == State.AWAIT_STREAM) {
                readFrames(ctx, in);
            }
        } finally {
            if (in.refCnt() > 0 && state != State.PASSED) {
                in.release();
            }
        }
    }

    private void readPreface(ChannelHandlerContext ctx, ByteBuf in) {
        int matched = held == null ? 0 : held.readableBytes();
        int compare = Math.min(in.readableBytes(), PREFACE.length - matched);
        for (int i = 0; i < compare; i++) {
            if (in.getByte(in.readerIndex() + i) != PREFACE[matched + i]) {
                handOver(ctx, in);
                return;
            }
        }
        if (matched + compare < PREFACE.length) {
            // A preface split over reads: hold the part (at most 24 bytes) until it matches or differs.
            if (held == null) {
                held = ctx.alloc().buffer(PREFACE.length, PREFACE.length);
            }
            held.writeBytes(in);
            return;
        }
        in.skipBytes(compare);
        releaseHeld();
        state = State.AWAIT_STREAM;
        ByteBuf settings = ctx.alloc().buffer(FRAME_HEADER_BYTES);
        frameHeader(settings, 0, TYPE_SETTINGS, 0);
        ctx.writeAndFlush(settings);
        // A client that opens no stream (one that only checks the connection) is told as well, a moment later.
        noStream = ctx.executor().schedule(() -> goAway(ctx, 0), AWAIT_STREAM_MS, TimeUnit.MILLISECONDS);
        readFrames(ctx, in);
    }

    /**
     * Reads frame headers and skips their payloads until the client's first HEADERS frame (its first call),
     * at most {@link #MAX_FRAME_BYTES}. GOAWAY then names that stream as the last one processed: gRPC fails the
     * call with GOAWAY's status and debug data when the connection closes, where a lower last stream would
     * make it retry the call on a new connection.
     */
    private void readFrames(ChannelHandlerContext ctx, ByteBuf in) {
        while (in.isReadable() && state == State.AWAIT_STREAM) {
            if (skip > 0) {
                int n = (int) Math.min(skip, in.readableBytes());
                in.skipBytes(n);
                skip -= n;
                continue;
            }
            int n = Math.min(FRAME_HEADER_BYTES - header.readableBytes(), in.readableBytes());
            header.writeBytes(in, n);
            seen += n;
            if (header.readableBytes() < FRAME_HEADER_BYTES) {
                return;
            }
            int length = header.readUnsignedMedium();
            byte type = header.readByte();
            header.readByte();
            int streamId = header.readInt() & Integer.MAX_VALUE;
            header.clear();
            if (type == TYPE_HEADERS && streamId != 0) {
                goAway(ctx, streamId);
                return;
            }
            skip = length;
            seen += length;
            if (seen > MAX_FRAME_BYTES) {
                goAway(ctx, 0);
                return;
            }
        }
    }

    private void handOver(ChannelHandlerContext ctx, ByteBuf in) {
        ByteBuf before = held;
        held = null;
        state = State.PASSED;
        ctx.pipeline().remove(this);
        if (before != null) {
            ctx.fireChannelRead(before);
        }
        ctx.fireChannelRead(in);
    }

    private void goAway(ChannelHandlerContext ctx, int lastStreamId) {
        if (state != State.AWAIT_STREAM) {
            return;
        }
        state = State.ANSWERED;
        if (noStream != null) {
            noStream.cancel(false);
        }
        if (warned.first(ctx.channel().remoteAddress())) {
            log.warn("{} sent HTTP/2's preface (a gRPC client) to the Kafka listener; answered with GOAWAY: {} "
                    + "(logged once per host)", ctx.channel().remoteAddress(), new String(debugData, StandardCharsets.UTF_8));
        }
        ByteBuf out = ctx.alloc().buffer(FRAME_HEADER_BYTES + 8 + debugData.length);
        frameHeader(out, 8 + debugData.length, TYPE_GOAWAY, 0);
        out.writeInt(lastStreamId);
        out.writeInt(PROTOCOL_ERROR);
        out.writeBytes(debugData);
        ctx.writeAndFlush(out).addListener((ChannelFutureListener) f -> {
            if (f.channel() instanceof DuplexChannel duplex) {
                duplex.shutdownOutput();
            }
        });
        ctx.executor().schedule(() -> ctx.close(), LINGER_MS, TimeUnit.MILLISECONDS);
    }

    private static void frameHeader(ByteBuf out, int length, byte type, int streamId) {
        out.writeMedium(length);
        out.writeByte(type);
        out.writeByte(0);
        out.writeInt(streamId);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseHeld();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releaseHeld();
        if (noStream != null) {
            noStream.cancel(false);
        }
        ctx.fireChannelInactive();
    }

    private void releaseHeld() {
        if (held != null) {
            held.release();
            held = null;
        }
    }
}
