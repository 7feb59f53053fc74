package io.tideline.node.kafka;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.tideline.common.time.Time;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Kafka client connection: reads size-prefixed request frames, has them parsed, handed to their API and
 * answered in the order they came.
 *
 * <p>Order (docs/kafka-protocol.md, "Pipelined requests"): requests are handed to their APIs one at a time, the
 * next only once the previous one's {@code handle} has returned, so a Produce is appended before the one behind
 * it is looked at. Its answer need not be known by then: up to {@code kafka.max.in.flight.requests.per.connection}
 * requests may be unanswered at once (a pipelining producer's acks=all batches then wait for the followers
 * together, not one round trip each), and answers are written strictly in request order, an answer known early
 * waiting for the ones before it. At 1 this is Kafka's own rule: nothing is read until the last answer is
 * written. With that many unanswered, reading is off, so further pipelined requests wait in the client's socket,
 * not in the heap; a request counts until its answer has been written to the socket, so a client that does not
 * read its answers stops being read.
 *
 * <p>Memory (docs/behaviours.md B110): a request's bytes are charged to the listener's request memory pool
 * ({@code queued.max.request.bytes}) as they arrive, never as its size field declares them: the frame's array
 * grows in steps as bytes come that do not fit ({@link IncomingFrame}), each step charged before it is allocated,
 * and the charge is held until its API's {@code handle} returned. While a step waits for room the connection
 * stops reading. One request at a time is charged.
 *
 * <p>Deadline (docs/behaviours.md B111): a request must arrive whole within {@code kafka.request.receive.timeout.ms}
 * of its first byte, not counting the time its connection waited for room in the pool; else the connection is
 * closed with one WARN line, as a malformed frame is. A peer that trickles its bytes is closed as surely as one
 * that sends none. The injected {@link Time} decides; the event loop's timer only wakes the check.
 *
 * <p>Hostile input: a size field negative or above {@code socket.request.max.bytes}, a frame that does not parse
 * (see {@link RequestDecoder}), or a peer closing in the middle of a frame closes the connection with one WARN
 * line naming the peer and the reason; nothing of that frame reaches an API.
 *
 * <p>Thread-safety: every field is used on the channel's event loop only, except {@link #charged}, which the
 * request handler thread also releases.
 *
 * <p>Re-entrance: a write's listener can run inside {@code flush()} and an answer can be known inside a read, so
 * {@link #drain} and {@link #writeAnswers} each note a call made while they run and go round again instead of
 * nesting.
 */
final class KafkaConnection extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(KafkaConnection.class);

    /**
     * SIZE and BODY read; HANDLING: the last request read is with its API's {@code handle}, nothing more is read;
     * WAITING_FOR_ROOM: it has been handled, and reading goes on once fewer than the allowed number of requests
     * are unanswered; CLOSING: a frame was refused while earlier requests were unanswered, nothing more is read and
     * the connection closes once their answers are written (see {@link #closeMalformed}).
     */
    private enum State { SIZE, WAITING_FOR_MEMORY, BODY, HANDLING, WAITING_FOR_ROOM, CLOSING, CLOSED }

    /**
     * A request read and not yet answered; {@code known} once its answer is (null: none is sent). The instants
     * ({@link Time#nanoseconds}) are its phases for {@link KafkaRequestTimes}; {@code handling} and {@code handled}
     * are written on the handler thread and read on the event loop after the hop back to it.
     */
    private static final class Answer {
        private final RequestHeader header;
        private final short version;
        private final long read;
        private long handling;
        private long handled;
        private long knownAt;
        private long writing;
        private boolean known;
        private ApiMessage body;

        private Answer(RequestHeader header, short version, long read) {
            this.header = header;
            this.version = version;
            this.read = read;
        }
    }

    private final KafkaApis apis;
    private final Executor handlers;
    private final KafkaRequestMemory memory;
    private final int maxRequestBytes;
    private final int maxInFlight;
    private final KafkaListenerMetrics metrics;
    private final Time time;
    private final long receiveTimeoutMs;
    private final AtomicLong charged = new AtomicLong();
    private final IncomingFrame incoming = new IncomingFrame();
    private ScheduledFuture<?> deadlineCheck;
    private ChannelHandlerContext ctx;
    private ByteBuf pending;
    private State state = State.SIZE;
    /** When the last frame was read whole. */
    private long frameRead;
    /** Requests read and not answered yet, oldest first; the head is the next to be written. */
    private final ArrayDeque<Answer> answers = new ArrayDeque<>();
    /** Requests read whose answer is not yet written to the socket: those in {@link #answers} and those being written. */
    private int unanswered;
    private boolean draining;
    private boolean writing;
    private boolean writeAgain;
    private String peer = "?";
    /** The peer's address, null for a channel that has none (a test's embedded channel). */
    private InetSocketAddress peerAddress;

    KafkaConnection(KafkaApis apis, Executor handlers, KafkaRequestMemory memory, int maxRequestBytes,
                    int maxInFlight, long receiveTimeoutMs, KafkaListenerMetrics metrics, Time time) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1: " + maxInFlight);
        }
        this.apis = apis;
        this.handlers = handlers;
        this.memory = memory;
        this.maxRequestBytes = maxRequestBytes;
        this.maxInFlight = maxInFlight;
        this.receiveTimeoutMs = receiveTimeoutMs;
        this.metrics = metrics;
        this.time = time;
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
            if (state != State.CLOSED && state != State.CLOSING) {
                pending.writeBytes(in);
            }
        } finally {
            in.release();
        }
        drain();
    }

    /** Consumes buffered bytes as far as the state allows; turns reading on only when it waits for bytes. */
    private void drain() {
        if (draining) {
            // Called from inside onFrame below (an answer written, room made): the loop sees the new state.
            return;
        }
        draining = true;
        try {
            drainLoop();
        } finally {
            draining = false;
        }
    }

    private void drainLoop() {
        while (true) {
            switch (state) {
                case SIZE -> {
                    if (pending.isReadable()) {
                        incoming.start(time.milliseconds());
                    }
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
                    incoming.sized(size);
                    state = State.BODY;
                }
                case BODY -> {
                    if (incoming.hasRoom() && pending.isReadable()) {
                        incoming.copyFrom(pending);
                    } else if (incoming.whole()) {
                        frameRead = time.nanoseconds();
                        memory.frameEnded(this);
                        state = State.HANDLING;
                        ctx.channel().config().setAutoRead(false);
                        onFrame();
                    } else if (!pending.isReadable()) {
                        waitForBytes();
                        return;
                    } else {
                        grow();
                        return;
                    }
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
        if (incoming.started()) {
            checkDeadlineIn(incoming.msLeft(time.milliseconds(), receiveTimeoutMs));
        }
    }

    /** The frame's array is full and more of its bytes are here: charges the next step, then grows the array. */
    private void grow() {
        int to = incoming.nextLength(pending.readableBytes());
        long step = to - incoming.length();
        state = State.WAITING_FOR_MEMORY;
        incoming.waitingForMemory(time.milliseconds());
        ctx.channel().config().setAutoRead(false);
        memory.acquire(this, step, () -> onEventLoop(() -> grown(to, step), () -> {
            memory.frameEnded(this);
            memory.release(step);
        }));
    }

    private void grown(int to, long step) {
        if (state != State.WAITING_FOR_MEMORY) {
            memory.frameEnded(this);
            memory.release(step);
            return;
        }
        charged.addAndGet(step);
        incoming.grown(to, time.milliseconds());
        state = State.BODY;
        drain();
    }

    private void checkDeadlineIn(long ms) {
        if (deadlineCheck == null) {
            deadlineCheck = ctx.executor().schedule(this::checkDeadline, Math.max(1, ms), TimeUnit.MILLISECONDS);
        }
    }

    /** On the event loop: closes a connection whose frame in progress is past its deadline, else looks again later. */
    private void checkDeadline() {
        deadlineCheck = null;
        if (!incoming.started() || state == State.CLOSED || state == State.CLOSING) {
            return;
        }
        long left = incoming.msLeft(time.milliseconds(), receiveTimeoutMs);
        if (left > 0 || incoming.waitingForMemory()) {
            checkDeadlineIn(left > 0 ? left : receiveTimeoutMs);
            return;
        }
        closeMalformed("sent " + incoming.progress(pending.readableBytes()) + " in kafka.request.receive.timeout.ms ("
                + receiveTimeoutMs + " ms)");
    }

    private void onFrame() {
        RequestDecoder.Decoded decoded = RequestDecoder.decode(ByteBuffer.wrap(incoming.take()), apis, peerAddress);
        if (decoded instanceof RequestDecoder.Malformed m) {
            closeMalformed(m.reason());
        } else if (decoded instanceof RequestDecoder.Immediate i) {
            releaseCharge();
            metrics.request(i.header().apiKey());
            Answer answer = expect(i.header(), i.version());
            answer.handling = answer.handled = time.nanoseconds();
            state = State.WAITING_FOR_ROOM;
            answered(answer, i.response(), answer.handled);
            readNextIfRoom();
        } else if (decoded instanceof RequestDecoder.Dispatch d) {
            metrics.request(d.request().header().apiKey());
            Answer answer = expect(d.request().header(), d.request().version());
            try {
                handlers.execute(() -> handle(d, answer));
            } catch (RejectedExecutionException e) {
                // The node is stopping.
                close();
            }
        }
    }

    private Answer expect(RequestHeader header, short version) {
        Answer answer = new Answer(header, version, frameRead);
        answers.addLast(answer);
        unanswered++;
        return answer;
    }

    /** On a request handler thread. */
    private void handle(RequestDecoder.Dispatch d, Answer slot) {
        slot.handling = time.nanoseconds();
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
            slot.handled = time.nanoseconds();
        }
        // Handled, so the next request may be read, though this one's answer may come much later.
        onEventLoop(this::handled, () -> { });
        answer.whenComplete((response, error) -> {
            long known = Math.max(time.nanoseconds(), slot.handled);
            onEventLoop(() -> completed(d, slot, response, error, known), () -> discard(response));
        });
    }

    private void handled() {
        if (state == State.HANDLING) {
            state = State.WAITING_FOR_ROOM;
            readNextIfRoom();
        }
    }

    /** After a request was handled or an answer written: reads on unless as many as allowed are unanswered. */
    private void readNextIfRoom() {
        if (state == State.WAITING_FOR_ROOM && unanswered < maxInFlight) {
            state = State.SIZE;
            drain();
        }
    }

    private void completed(RequestDecoder.Dispatch d, Answer slot, ApiMessage response, Throwable error, long known) {
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
        answered(slot, out, known);
    }

    /** {@code body} null: nothing is sent (Produce with acks=0). */
    private void answered(Answer answer, ApiMessage body, long knownAt) {
        answer.body = body;
        answer.knownAt = knownAt;
        answer.known = true;
        writeAnswers();
    }

    /** Writes the answers at the head of the queue that are known, in order, and flushes them together. */
    private void writeAnswers() {
        if (writing) {
            writeAgain = true;
            return;
        }
        writing = true;
        try {
            do {
                writeAgain = false;
                boolean wrote = false;
                while (state != State.CLOSED && !answers.isEmpty() && answers.peekFirst().known) {
                    Answer a = answers.pollFirst();
                    if (a.body == null) {
                        unanswered--;
                        a.writing = time.nanoseconds();
                        timed(a, a.writing);
                    } else if (write(a)) {
                        wrote = true;
                    } else {
                        return;
                    }
                }
                if (wrote) {
                    ctx.flush();
                }
            } while (writeAgain && state != State.CLOSED);
        } finally {
            writing = false;
        }
        afterAnswer();
    }

    private boolean write(Answer a) {
        a.writing = time.nanoseconds();
        List<Object> parts;
        try {
            parts = ResponseEncoder.encode(ctx.alloc(), a.header.correlationId(),
                    a.header.apiKey().responseHeaderVersion(a.version), a.body, a.version);
        } catch (RuntimeException e) {
            if (String.valueOf(e.getMessage()).endsWith("is too long to be serialized")) {
                // A Produce or Fetch echoes a name it found nothing under; bytes that are not UTF-8 read as
                // replacement characters, longer written back than a string may be (B79, B165): the peer's doing.
                log.warn("Closing Kafka connection from {}: the {} v{} answer would echo a string longer than "
                        + "Kafka's protocol carries ({})", peer, a.header.apiKey().name, a.version, e.getMessage());
            } else {
                log.error("Closing Kafka connection from {}: the {} v{} answer could not be written", peer,
                        a.header.apiKey().name, a.version, e);
            }
            close();
            return false;
        }
        ChannelFuture last = null;
        for (Object part : parts) {
            last = ctx.write(part);
        }
        last.addListener(f -> {
            if (f.isSuccess()) {
                timed(a, time.nanoseconds());
                unanswered--;
                afterAnswer();
            } else {
                close();
            }
        });
        return true;
    }

    private void timed(Answer a, long written) {
        metrics.times().record(a.header.apiKey(), a.version, a.header.correlationId(), peer,
                new KafkaRequestTimes.Instants(a.read, a.handling, a.handled, a.knownAt, a.writing, written));
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

    /**
     * Refuses the peer's bytes: one WARN line now, and the connection closes at once or, with requests read before
     * the bad frame still unanswered, once their answers are written. Kafka reads a connection's next request only
     * after answering the last, so a request it read is always answered before the bad frame behind it is seen;
     * pipelining here must not lose those answers.
     */
    private void closeMalformed(String reason) {
        if (state == State.CLOSED || state == State.CLOSING) {
            return;
        }
        log.warn("Closing Kafka connection from {}: {}", peer, reason);
        if (unanswered == 0) {
            close();
            return;
        }
        state = State.CLOSING;
        incoming.clear();
        memory.frameEnded(this);
        releaseCharge();
        pending.clear();
        ctx.channel().config().setAutoRead(false);
    }

    /** After answers were written: room for the next request, or the last owed answer of a CLOSING connection. */
    private void afterAnswer() {
        readNextIfRoom();
        if (state == State.CLOSING && unanswered == 0) {
            close();
        }
    }

    private void close() {
        state = State.CLOSED;
        incoming.clear();
        memory.frameEnded(this);
        releaseCharge();
        discardAnswers();
        ctx.close();
    }

    /** Answers known but not written hold stored slices (Fetch): give them back. */
    private void discardAnswers() {
        Answer a;
        while ((a = answers.pollFirst()) != null) {
            if (a.known) {
                discard(a.body);
            }
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (state == State.BODY || (state == State.SIZE && pending.isReadable())) {
            log.warn("Kafka connection from {} closed by the peer in the middle of a request ({})", peer,
                    incoming.progress(pending.readableBytes()));
        }
        state = State.CLOSED;
        incoming.clear();
        memory.frameEnded(this);
        releaseCharge();
        discardAnswers();
        pending.release();
        if (deadlineCheck != null) {
            deadlineCheck.cancel(false);
        }
        metrics.connectionClosed();
        ctx.fireChannelInactive();
    }

    /**
     * {@code connections.max.idle.ms} without a read or a write: between requests the connection is closed
     * quietly, as Kafka closes idle connections; in the middle of a request it is a peer holding request memory
     * without sending, closed with a WARN line. A connection with a request unanswered (the node's to answer) or
     * waiting for memory (the node's to admit) is never idle.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (!(event instanceof IdleStateEvent)) {
            ctx.fireUserEventTriggered(event);
        } else if (state == State.BODY || (state == State.SIZE && pending.isReadable())) {
            closeMalformed("sent nothing for connections.max.idle.ms in the middle of a request");
        } else if (state == State.SIZE && unanswered == 0) {
            log.debug("Closing idle Kafka connection from {}", peer);
            close();
        }
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
