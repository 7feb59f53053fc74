package io.tideline.cluster.proxy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * One accepted connection and, unless it was accepted while the link was cut, its connection to the target,
 * with a {@link Pump} each way. Thread-safe: the pumps, the accept loop and the fault calls all touch it; the
 * task list and the closing are guarded by this object's monitor, the flags are volatile.
 */
final class ProxiedConnection {
    private static final int CONNECT_TIMEOUT_MS = 5_000;

    private final Socket client;
    private final LinkFaults faults;
    private final LinkCounters counters;
    private final Consumer<ProxiedConnection> onClosed;
    private final List<Future<?>> tasks = new ArrayList<>();
    private volatile Socket target;
    private volatile boolean damaged;
    private boolean closed;
    private int endedDirections;

    ProxiedConnection(Socket client, LinkFaults faults, LinkCounters counters, Consumer<ProxiedConnection> onClosed) {
        this.client = client;
        this.faults = faults;
        this.counters = counters;
        this.onClosed = onClosed;
    }

    /**
     * Starts forwarding. A connection accepted during a cut does not reach the target (a connect would not
     * cross a partition): it is held open, everything it sends is dropped, and it is damaged from the start.
     */
    void start(ExecutorService executor, InetSocketAddress targetAddress) {
        if (faults.cut()) {
            damaged = true;
            Pump in = new Pump(Direction.TO_TARGET, client, null, this, faults, counters);
            submit(executor, in::readLoop);
            submit(executor, in::writeLoop);
            return;
        }
        submit(executor, () -> connectAndPump(executor, targetAddress));
    }

    private void connectAndPump(ExecutorService executor, InetSocketAddress targetAddress) {
        Socket t = new Socket();
        try {
            t.setTcpNoDelay(true);
            t.connect(targetAddress, CONNECT_TIMEOUT_MS);
        } catch (IOException e) {
            closeQuietly(t);
            reset();
            return;
        }
        synchronized (this) {
            if (closed) {
                resetQuietly(t);
                return;
            }
            target = t;
        }
        Pump up = new Pump(Direction.TO_TARGET, client, t, this, faults, counters);
        Pump down = new Pump(Direction.FROM_TARGET, t, client, this, faults, counters);
        submit(executor, up::readLoop);
        submit(executor, up::writeLoop);
        submit(executor, down::readLoop);
        submit(executor, down::writeLoop);
    }

    private synchronized void submit(ExecutorService executor, Runnable task) {
        if (closed) {
            return;
        }
        tasks.add(executor.submit(task));
    }

    void markDamaged() {
        damaged = true;
    }

    boolean damaged() {
        return damaged;
    }

    /** A FIN was forwarded one way; once both ways have ended the connection closes normally. */
    void endOfStream(Direction direction) {
        boolean both;
        synchronized (this) {
            both = ++endedDirections == Direction.values().length;
        }
        if (both) {
            close(false);
        }
    }

    /** Resets both sockets (RST, via SO_LINGER 0) and stops the pumps. Idempotent. */
    void reset() {
        close(true);
    }

    private void close(boolean reset) {
        List<Future<?>> toCancel;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toCancel = List.copyOf(tasks);
        }
        if (reset) {
            counters.reset.increment();
            resetQuietly(client);
            Socket t = target;
            if (t != null) {
                resetQuietly(t);
            }
        } else {
            closeQuietly(client);
            closeQuietly(target);
        }
        // Closing the sockets wakes the readers; cancelling interrupts the writers waiting on their queues.
        toCancel.forEach(f -> f.cancel(true));
        onClosed.accept(this);
    }

    static void resetQuietly(Socket socket) {
        try {
            socket.setSoLinger(true, 0);
        } catch (IOException e) {
            // Already closed: nothing to reset.
        }
        closeQuietly(socket);
    }

    private static void closeQuietly(Socket socket) {
        if (socket == null) {
            return;
        }
        try {
            socket.close();
        } catch (IOException e) {
            // Closing is best effort; the socket is gone either way.
        }
    }
}
