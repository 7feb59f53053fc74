package io.tideline.cluster.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One direction of a proxied connection: a reader thread stamps each chunk with the time it was read and queues
 * it, a writer thread forwards it once the link's delay has passed since that stamp. Two threads, so a delay
 * adds latency without cutting throughput to one chunk per delay, and one queue, so the order is kept. The
 * queue is bounded: a slow destination pushes back on the source as TCP would, and so does a held link.
 *
 * <p>End of stream and a read error travel through the queue as markers, behind the bytes read before them,
 * so they obey the same faults: a FIN or a reset does not cross a cut link either.
 */
final class Pump {
    private static final int CHUNK_BYTES = 16 * 1024;
    private static final int QUEUE_CHUNKS = 64;
    /** A writer waiting for a chunk to fall due looks at the delay again this often, so heal() takes effect. */
    private static final long MAX_SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private enum Kind { DATA, END_OF_STREAM, RESET }

    private record Chunk(Kind kind, byte[] bytes, long readNanos) {
    }

    private final Direction direction;
    private final Socket from;
    /** Null for a connection accepted while the link was cut: it never reached the target. */
    private final Socket to;
    private final ProxiedConnection connection;
    private final LinkFaults faults;
    private final LinkCounters counters;
    private final BlockingQueue<Chunk> queue = new ArrayBlockingQueue<>(QUEUE_CHUNKS);

    Pump(Direction direction, Socket from, Socket to, ProxiedConnection connection, LinkFaults faults,
            LinkCounters counters) {
        this.direction = direction;
        this.from = from;
        this.to = to;
        this.connection = connection;
        this.faults = faults;
        this.counters = counters;
    }

    void readLoop() {
        try {
            InputStream in = from.getInputStream();
            byte[] buffer = new byte[CHUNK_BYTES];
            while (true) {
                int n;
                try {
                    n = in.read(buffer);
                } catch (IOException e) {
                    queue.put(new Chunk(Kind.RESET, null, System.nanoTime()));
                    return;
                }
                if (n < 0) {
                    queue.put(new Chunk(Kind.END_OF_STREAM, null, System.nanoTime()));
                    return;
                }
                queue.put(new Chunk(Kind.DATA, Arrays.copyOf(buffer, n), System.nanoTime()));
            }
        } catch (IOException e) {
            connection.reset();
        } catch (InterruptedException e) {
            // The connection is closing and cancelled this task.
            Thread.currentThread().interrupt();
        }
    }

    void writeLoop() {
        try {
            OutputStream out = to == null ? null : to.getOutputStream();
            while (true) {
                Chunk chunk = queue.take();
                awaitDue(chunk.readNanos);
                awaitReleased();
                if (faults.cut() || out == null) {
                    // A black hole: the chunk is lost, so this connection's byte stream now has a hole and
                    // must never carry another byte; heal() resets it (see docs/testing.md).
                    connection.markDamaged();
                    counters.droppedBytes.add(chunk.bytes == null ? 0 : chunk.bytes.length);
                    continue;
                }
                if (connection.damaged()) {
                    connection.reset();
                    return;
                }
                switch (chunk.kind) {
                    case DATA -> {
                        out.write(chunk.bytes);
                        out.flush();
                        counters.forwarded(direction, chunk.bytes.length);
                    }
                    case END_OF_STREAM -> {
                        to.shutdownOutput();
                        connection.endOfStream(direction);
                        return;
                    }
                    case RESET -> {
                        connection.reset();
                        return;
                    }
                }
            }
        } catch (IOException e) {
            connection.reset();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * While the link is held the chunk waits here, and the reader fills the bounded queue behind it and then
     * stops reading, so the kernel's buffers fill and the sender blocks: TCP towards a stopped process.
     */
    private void awaitReleased() throws InterruptedException {
        while (faults.held()) {
            TimeUnit.NANOSECONDS.sleep(MAX_SLEEP_NANOS);
        }
    }

    private void awaitDue(long readNanos) throws InterruptedException {
        while (true) {
            long wait = readNanos + faults.delayNanos() - System.nanoTime();
            if (wait <= 0) {
                return;
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(wait, MAX_SLEEP_NANOS));
        }
    }
}
