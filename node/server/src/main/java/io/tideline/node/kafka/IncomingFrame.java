package io.tideline.node.kafka;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * The request frame a Kafka connection is receiving: its bytes so far, in an array that grows in steps, each one
 * charged to the request memory pool before it is allocated (docs/behaviours.md B110), and its clock for the
 * receive deadline, which leaves out the time spent waiting for the pool (B111).
 *
 * <p>Not thread-safe: its connection's event loop only.
 */
final class IncomingFrame {
    /** The first step of a frame's array: a small request is one step; a peer's first byte costs at most this. */
    static final int FIRST_STEP = 4096;
    private static final byte[] EMPTY = new byte[0];

    /** When its first byte came; -1 before it did. */
    private long startMs = -1;
    /** How long it waited for the pool, not counting a wait in progress. */
    private long waitedMs;
    /** When the wait in progress began; -1 when it does not wait. */
    private long waitStartMs = -1;
    /** The size its size field declares; -1 before that is read. */
    private int size = -1;
    private byte[] bytes = EMPTY;
    private int filled;

    /** Its first byte is here (a no-op once started). */
    void start(long nowMs) {
        if (startMs < 0) {
            startMs = nowMs;
        }
    }

    boolean started() {
        return startMs >= 0;
    }

    void sized(int size) {
        this.size = size;
    }

    /** Whether its size field has been read. */
    boolean sized() {
        return size >= 0;
    }

    boolean whole() {
        return size >= 0 && filled == size;
    }

    /** Whether the array has room for more of its bytes. */
    boolean hasRoom() {
        return filled < bytes.length;
    }

    void copyFrom(ByteBuf in) {
        int n = Math.min(in.readableBytes(), bytes.length - filled);
        in.readBytes(bytes, filled, n);
        filled += n;
    }

    /**
     * The array length of the next step, with {@code buffered} more bytes here: at least double, and every buffered
     * byte, so a frame that arrives at once is one step and one array and a large one costs a few copies of itself;
     * never past the declared size.
     */
    int nextLength(int buffered) {
        return (int) Math.min(size, Math.max(Math.max(FIRST_STEP, 2L * bytes.length), (long) filled + buffered));
    }

    int length() {
        return bytes.length;
    }

    void waitingForMemory(long nowMs) {
        waitStartMs = nowMs;
    }

    boolean waitingForMemory() {
        return waitStartMs >= 0;
    }

    /** The pool admitted the step: the array grows to {@code length}. */
    void grown(int length, long nowMs) {
        waitedMs += nowMs - waitStartMs;
        waitStartMs = -1;
        bytes = Arrays.copyOf(bytes, length);
    }

    /** Milliseconds left before its deadline; a wait for the pool in progress stops the clock. */
    long msLeft(long nowMs, long timeoutMs) {
        long waited = waitedMs + (waitStartMs >= 0 ? nowMs - waitStartMs : 0);
        return startMs + waited + timeoutMs - nowMs;
    }

    /** For a log line: what has come of it, {@code buffered} bytes of a size field not read yet included. */
    String progress(int buffered) {
        return size < 0 ? buffered + " bytes of a size field" : filled + " bytes of a " + size + "-byte request";
    }

    /** The whole frame; this is then ready for the next one. */
    byte[] take() {
        byte[] whole = bytes;
        clear();
        return whole;
    }

    void clear() {
        startMs = -1;
        waitedMs = 0;
        waitStartMs = -1;
        size = -1;
        bytes = EMPTY;
        filled = 0;
    }
}
