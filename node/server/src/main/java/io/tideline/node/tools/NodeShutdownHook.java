package io.tideline.node.tools;

import io.tideline.node.server.TidelineNode;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What SIGTERM (and SIGINT) does to a node process: the JVM runs this hook, which stops the node the orderly
 * way ({@link TidelineNode#close()}: controlled shutdown, then logs closed with their checkpoints and the
 * clean-shutdown marker) and then ends the process with exit code 0, or 1 when the stop failed or overran
 * its bound.
 *
 * <p>Why the hook ends the process itself: a JVM stopped by a signal exits with 128 + the signal number
 * (143) once its hooks are done, which scripts and supervisors read as a failure although the stop was
 * clean. Halting from the hook, after the node is closed, reports what really happened.
 *
 * <p>A signal during start-up (a node waiting for the rest of its quorum) interrupts the starting thread;
 * {@link TidelineNode#start} then closes what it had opened (logs included), and the JVM exits with its
 * usual signal status since no node ever served.
 *
 * <p>Thread-safety: {@link #started} and {@link #startupFailed} are called once by the starting thread;
 * the hook runs on the JVM's shutdown thread.
 */
final class NodeShutdownHook {
    private static final Logger log = LoggerFactory.getLogger(NodeShutdownHook.class);
    /** Beyond the controlled-shutdown bound: closing fetchers, the listener, the logs and the quorum member. */
    static final long CLOSE_GRACE_MS = 30_000L;
    /** How long the hook waits for an interrupted start-up to unwind (it closes the logs on its way out). */
    static final long STARTUP_UNWIND_MS = 30_000L;

    private final Thread startingThread;
    private final long stopBoundMs;
    private final IntConsumer halt;
    private final CountDownLatch startupOver = new CountDownLatch(1);
    private volatile TidelineNode node;

    /**
     * @param startingThread the thread that calls {@link TidelineNode#start}, interrupted by a stop during start-up
     * @param stopBoundMs    how long the orderly stop may take before the process gives up on it
     * @param halt           ends the process with a status ({@code Runtime.getRuntime()::halt} in production)
     */
    NodeShutdownHook(Thread startingThread, long stopBoundMs, IntConsumer halt) {
        this.startingThread = startingThread;
        this.stopBoundMs = stopBoundMs;
        this.halt = halt;
    }

    /** Registers the hook with the JVM. */
    void install() {
        Runtime.getRuntime().addShutdownHook(new Thread(this::onStop, "tideline-shutdown"));
    }

    void started(TidelineNode started) {
        this.node = started;
        startupOver.countDown();
    }

    void startupFailed() {
        startupOver.countDown();
    }

    /** The hook body; package-private so that a test can run it without a signal. */
    void onStop() {
        try {
            if (startupOver.getCount() > 0) {
                log.info("Stop requested during start-up; interrupting it");
                startingThread.interrupt();
                if (!startupOver.await(STARTUP_UNWIND_MS, TimeUnit.MILLISECONDS)) {
                    log.error("Start-up did not unwind within {} ms", STARTUP_UNWIND_MS);
                    halt.accept(1);
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        TidelineNode n = node;
        if (n == null) {
            // Start-up failed or was interrupted: nothing serves, the JVM's own exit status stands.
            return;
        }
        halt.accept(stop(n) ? 0 : 1);
    }

    private boolean stop(TidelineNode n) {
        log.info("Stopping node {} (controlled shutdown for up to {} ms)", n.nodeId(),
                n.config().controlledShutdownTimeoutMs());
        long startNs = System.nanoTime();
        boolean[] closed = new boolean[1];
        // close() runs on its own thread so that a stop stuck in I/O cannot hold the process forever.
        Thread closer = new Thread(() -> {
            try {
                n.close();
                closed[0] = true;
            } catch (RuntimeException e) {
                log.error("Stopping node {} failed", n.nodeId(), e);
            }
        }, "tideline-close");
        closer.start();
        try {
            closer.join(stopBoundMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        if (closer.isAlive()) {
            log.error("Node {} did not stop within {} ms; exiting without a clean shutdown", n.nodeId(), stopBoundMs);
            return false;
        }
        // join() orders the closer's write before this read.
        if (closed[0]) {
            log.info("Node {} shut down cleanly in {} ms", n.nodeId(), tookMs);
        }
        return closed[0];
    }
}
