package io.tideline.node.kafka;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.tideline.node.server.RequestMemoryPool;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Kafka client connection: reads size-prefixed request frames, has them parsed, handed to their API and
 * answered, one at a time.
 *
 * <p>Order and memory, Kafka's own rule: the next request is read only once the previous one's response has been
 * written (reading is off meanwhile, so a client's pipelined requests wait in its socket, not in the heap). A
 * request's bytes are charged to the node's request memory pool ({@code queued.max.request.bytes}, shared with
 * the gRPC listener) as soon as its size field is read, before the body is read, and until its API's
 * {@code handle} returned; while the pool is full the connection stops reading.
 *
 * <p>Hostile input: a size field negative or above {@code socket.request.max.bytes}, a frame that does not parse
 * (see {@link RequestDecoder}), or a peer closing in the middle of a frame closes the connection with one WARN
 * line naming the peer and the reason; nothing of that frame reaches an API.
 *
 * <p>Thread-safety: every field is used on the channel's event loop only, except {@link #charged}, which the
 * request handler thread also releases.
 */
final class KafkaConnection extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(KafkaConnection.class);

    private enum State { SIZE, WAITING_FOR_MEMORY, BODY, IN_FLIGHT, CLOSED }

    private final KafkaApis apis;
    private final Executor handlers;
    private final RequestMemoryPool memory;
    private final int maxRequestBytes;
    private final KafkaListenerMetrics metrics;
    private final AtomicLong charged = new AtomicLong();
    private ChannelHandlerContext ctx;
    private ByteBuf pending;
    private State state = State.SIZE;
    private int frameSize;
    private byte[] frame;
    private int filled;
    private String peer = "?";
    /** The peer's address, null for a channel that has none (a test's embedded channel). */
    private InetSocketAddress peerAddress;

    KafkaConnection(KafkaApis apis, Executor handlers, RequestMemoryPool memory, int maxRequestBytes,
                    KafkaListenerMetrics metrics) {
        this.apis = apis;
        this.handlers = handlers;
        this.memory = memory;
        this.maxRequestBytes = maxRequestBytes;
        this.metrics = metrics;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.pending = ctx.alloc().buffer();
        if (ctx.channel().remoteAddress() instanceof InetSocketAddress a) {
            peerAddress = a;
            peer = a.getAddress().getHostAddress() + ":" + a.getPort();
        }
        metrics.connectionOpened();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            if (state != State.CLOSED) {
                pending.writeBytes(in);
            }
        } finally {
            in.release();
        }
        drain();
    }

    /** Consumes buffered bytes as far as the state allows; turns reading on only when it waits for bytes. */
    private void drain() {
        while (true) {
            switch (state) {
                case SIZE -> {
                    if (pending.readableBytes() < 4) {
                        waitForBytes();
                        return;
                    }
                    int size = pending.readInt();
                    if (size < 0 || size > maxRequestBytes) {
                        closeMalformed("size field " + size + " is outside 0-" + maxRequestBytes
                                + " (socket.request.max.bytes)");
                        return;
                    }
                    frameSize = size;
                    state = State.WAITING_FOR_MEMORY;
                    ctx.channel().config().setAutoRead(false);
                    memory.acquire(size, () -> onEventLoop(() -> admitted(size), () -> memory.release(size)));
                    return;
                }
                case BODY -> {
                    int n = Math.min(pending.readableBytes(), frameSize - filled);
                    pending.readBytes(frame, filled, n);
                    filled += n;
                    if (filled < frameSize) {
                        waitForBytes();
                        return;
                    }
                    state = State.IN_FLIGHT;
                    ctx.channel().config().setAutoRead(false);
                    onFrame();
                    return;
                }
                default -> {
                    return;
                }
            }
        }
    }

    private void waitForBytes() {
        pending.discardSomeReadBytes();
        ctx.channel().config().setAutoRead(true);
    }

    private void admitted(int size) {
        if (state != State.WAITING_FOR_MEMORY) {
            memory.release(size);
            return;
        }
        charged.set(size);
        frame = new byte[size];
        filled = 0;
        state = State.BODY;
        drain();
    }

    private void onFrame() {
        RequestDecoder.Decoded decoded = RequestDecoder.decode(ByteBuffer.wrap(frame), apis, peerAddress);
        frame = null;
        if (decoded instanceof RequestDecoder.Malformed m) {
            closeMalformed(m.reason());
        } else if (decoded instanceof RequestDecoder.Immediate i) {
            releaseCharge();
            metrics.request(i.header().apiKey());
            send(i.header(), i.version(), i.response());
        } else if (decoded instanceof RequestDecoder.Dispatch d) {
            metrics.request(d.request().header().apiKey());
            try {
                handlers.execute(() -> handle(d));
            } catch (RejectedExecutionException e) {
                // The node is stopping.
                close();
            }
        }
    }

    /** On a request handler thread. */
    private void handle(RequestDecoder.Dispatch d) {
        CompletableFuture<? extends ApiMessage> answer;
        try {
            answer = d.api().handle(d.request());
            if (answer == null) {
                answer = CompletableFuture.failedFuture(new IllegalStateException(d.api().key() + " returned no future"));
            }
        } catch (RuntimeException | Error e) {
            answer = CompletableFuture.failedFuture(e);
        } finally {
            // Handled: as on the gRPC listener, a request parked for later (a long-poll) holds no request bytes.
            releaseCharge();
        }
        answer.whenComplete((response, error) -> onEventLoop(() -> completed(d, response, error),
                () -> discard(response)));
    }

    private void completed(RequestDecoder.Dispatch d, ApiMessage response, Throwable error) {
        if (state == State.CLOSED) {
            discard(response);
            return;
        }
        ApiMessage out = response;
        if (error != null) {
            Throwable cause = unwrap(error);
            if (!(cause instanceof ApiException)) {
                log.error("{} v{} from {} failed; answered UNKNOWN_SERVER_ERROR", d.api().key().name,
                        d.request().version(), peer, cause);
            }
            out = d.parsed().getErrorResponse(0, cause).data();
        }
        if (out == null) {
            // Nothing to send (Produce with acks=0): read the next request.
            nextRequest();
            return;
        }
        send(d.request().header(), d.request().version(), out);
    }

    private void send(RequestHeader header, short version, ApiMessage body) {
        List<Object> parts;
        try {
            parts = ResponseEncoder.encode(ctx.alloc(), header.correlationId(),
                    header.apiKey().responseHeaderVersion(version), body, version);
        } catch (RuntimeException e) {
            log.error("Closing Kafka connection from {}: the {} v{} answer could not be written", peer,
                    header.apiKey().name, version, e);
            close();
            return;
        }
        ChannelFuture last = null;
        for (Object part : parts) {
            last = ctx.write(part);
        }
        ctx.flush();
        last.addListener(f -> {
            if (f.isSuccess()) {
                nextRequest();
            } else {
                close();
            }
        });
    }

    private void nextRequest() {
        if (state == State.CLOSED) {
            return;
        }
        state = State.SIZE;
        drain();
    }

    private void releaseCharge() {
        long bytes = charged.getAndSet(0);
        if (bytes > 0) {
            memory.release(bytes);
        }
    }

    /** Runs {@code task} on this channel's event loop, or {@code otherwise} when the loop has stopped. */
    private void onEventLoop(Runnable task, Runnable otherwise) {
        try {
            ctx.executor().execute(task);
        } catch (RejectedExecutionException e) {
            otherwise.run();
        }
    }

    private static void discard(ApiMessage response) {
        if (response != null) {
            ResponseEncoder.closeSlices(response);
        }
    }

    private static Throwable unwrap(Throwable e) {
        Throwable t = e;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private void closeMalformed(String reason) {
        if (state == State.CLOSED) {
            return;
        }
        log.warn("Closing Kafka connection from {}: {}", peer, reason);
        close();
    }

    private void close() {
        state = State.CLOSED;
        frame = null;
        releaseCharge();
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (state == State.BODY || (state == State.SIZE && pending.isReadable())) {
            log.warn("Kafka connection from {} closed by the peer in the middle of a request ({} bytes of {})", peer,
                    state == State.BODY ? filled : pending.readableBytes(), state == State.BODY ? frameSize : "a size field");
        }
        state = State.CLOSED;
        frame = null;
        releaseCharge();
        pending.release();
        metrics.connectionClosed();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            // A reset by the peer: nothing to tell anyone.
            log.debug("Kafka connection from {}: {}", peer, cause.toString());
        } else {
            log.warn("Closing Kafka connection from {}: {}", peer, cause.toString());
        }
        close();
    }
}
