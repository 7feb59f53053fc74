package io.tideline.cluster.proxy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy for one directed link: listens on 127.0.0.1 (on a port the kernel picks, so two proxies never
 * race for one) and forwards every accepted connection to one target, over real sockets, with faults that can
 * be switched at any time from any thread. The fault model (what each fault does to new and to existing
 * connections) is written down in docs/testing.md, "Fault-injecting proxy".
 *
 * <p>Threads: one accept loop plus four per connection (a reader and a writer each way, see {@link Pump}), all
 * daemon threads of this proxy's own pool, named {@code link-proxy[<name>]-<n>}. {@link #close()} stops them all
 * and frees the port.
 *
 * <p>Delays are real time, not an injected clock: the proxy holds back real bytes between real processes, which
 * no mock clock can do.
 */
public final class LinkProxy implements AutoCloseable {
    private static final long CLOSE_WAIT_SECONDS = 5;

    private final String name;
    private final InetSocketAddress target;
    private final ServerSocket listener;
    private final ExecutorService executor;
    private final LinkFaults faults = new LinkFaults();
    private final LinkCounters counters = new LinkCounters();
    private final Set<ProxiedConnection> connections = ConcurrentHashMap.newKeySet();
    /** Every thread the pool made, so close() can join them: a terminated pool's last workers may still be alive. */
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private LinkProxy(String name, InetSocketAddress target, ServerSocket listener) {
        this.name = name;
        this.target = target;
        this.listener = listener;
        this.executor = Executors.newCachedThreadPool(threadFactory(name, threads));
    }

    /** Starts a proxy named {@code name} (e.g. "1->2 raft") forwarding to {@code target}. */
    public static LinkProxy start(String name, InetSocketAddress target) throws IOException {
        ServerSocket listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        LinkProxy proxy = new LinkProxy(name, target, listener);
        proxy.executor.submit(proxy::acceptLoop);
        return proxy;
    }

    public String name() {
        return name;
    }

    public InetSocketAddress target() {
        return target;
    }

    /** The port this proxy listens on, on 127.0.0.1. */
    public int port() {
        return listener.getLocalPort();
    }

    /** "127.0.0.1:port", what a client of the link connects to. */
    public String address() {
        return listener.getInetAddress().getHostAddress() + ":" + port();
    }

    /**
     * A black hole: from now on no byte (nor FIN nor reset) is forwarded either way; the bytes are dropped, as
     * a partition loses packets. Connections stay open; new ones are accepted but never reach the target.
     */
    public void cut() {
        faults.cut(true);
    }

    /**
     * New connections are accepted and reset at once; existing ones keep working unless also cut. "New" is
     * decided when the proxy accepts: a connect still in the kernel's backlog when this is called is refused.
     */
    public void refuse() {
        faults.refusing(true);
    }

    /** Every chunk is forwarded no earlier than {@code delay} after it was read, order kept each way. */
    public void delay(Duration delay) {
        faults.delay(delay);
    }

    /**
     * Holds every byte, as TCP does towards a process stopped with SIGSTOP: nothing is forwarded either way and
     * nothing is lost; connections stay open and new ones are accepted (and connected to the target), and what
     * is sent waits in this proxy and then in the kernel's buffers, the sender blocking once they are full.
     * {@link #release()} (or {@link #heal()}) delivers it all, in order. A cut while held still drops.
     */
    public void hold() {
        faults.held(true);
    }

    /** Ends {@link #hold()}: the held bytes are forwarded, in order; other faults stay. */
    public void release() {
        faults.held(false);
    }

    /** Resets (RST) every connection in flight, on both sides; new connections work as before. */
    public void dropConnections() {
        List.copyOf(connections).forEach(ProxiedConnection::reset);
    }

    /**
     * Back to forwarding: cut, refuse, delay and hold removed. A connection that lost anything to a cut (bytes, an
     * end of stream, or its connect because it was accepted during the cut) is reset, since its byte stream has
     * a hole; a connection that sent nothing during the cut carries on.
     */
    public void heal() {
        faults.clear();
        List.copyOf(connections).stream().filter(ProxiedConnection::damaged).forEach(ProxiedConnection::reset);
    }

    public long connectionsAccepted() {
        return counters.accepted.sum();
    }

    public long connectionsRefused() {
        return counters.refused.sum();
    }

    public long connectionsReset() {
        return counters.reset.sum();
    }

    public long bytesForwarded(Direction direction) {
        return counters.forwarded(direction);
    }

    public long bytesDropped() {
        return counters.droppedBytes.sum();
    }

    /** Connections open now (accepted and neither closed nor reset). */
    public int openConnections() {
        return connections.size();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                // The listener is closed: close() is under way.
                return;
            }
            if (faults.refusing()) {
                // Accept-and-reset rather than closing the listener: the port stays ours, so nothing else can
                // bind it while the link is refusing, and the client still fails before any byte arrives.
                counters.refused.increment();
                ProxiedConnection.resetQuietly(client);
                continue;
            }
            counters.accepted.increment();
            try {
                client.setTcpNoDelay(true);
            } catch (IOException e) {
                ProxiedConnection.resetQuietly(client);
                continue;
            }
            ProxiedConnection connection = new ProxiedConnection(client, faults, counters, connections::remove);
            connections.add(connection);
            if (closed) {
                connection.reset();
                return;
            }
            connection.start(executor, target);
        }
    }

    /** Stops accepting, resets every connection, and waits (bounded) for every thread of this proxy to end. */
    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            // Closed either way.
        }
        List.copyOf(connections).forEach(ProxiedConnection::reset);
        executor.shutdownNow();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CLOSE_WAIT_SECONDS);
        try {
            executor.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
            for (Thread t : threads) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        threads.removeIf(t -> !t.isAlive());
        if (!threads.isEmpty()) {
            throw new IllegalStateException("link proxy " + name + ": threads still running "
                    + CLOSE_WAIT_SECONDS + " s after close: " + threads);
        }
    }

    @Override
    public String toString() {
        return "LinkProxy[" + name + " " + address() + " -> " + target.getHostString() + ":" + target.getPort()
                + " " + (closed ? "closed" : faults) + " open=" + connections.size() + " " + counters + "]";
    }

    private static ThreadFactory threadFactory(String name, Set<Thread> made) {
        AtomicInteger next = new AtomicInteger();
        return runnable -> {
            Thread t = new Thread(runnable, "link-proxy[" + name + "]-" + next.incrementAndGet());
            t.setDaemon(true);
            // Idle workers expire after a minute; forget them so a long-lived proxy does not collect dead threads.
            made.removeIf(old -> old.getState() == Thread.State.TERMINATED);
            made.add(t);
            return t;
        };
    }
}
