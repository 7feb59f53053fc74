package io.tideline.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The hook's start-up paths (the served-then-stopped path runs in {@link NodeProcessLifecycleTest}). */
class NodeShutdownHookTest {
    private final List<Integer> halts = new CopyOnWriteArrayList<>();

    @Test
    void aStopDuringStartUpInterruptsItAndLeavesTheExitStatusToTheJvm() throws Exception {
        CountDownLatch neverStarts = new CountDownLatch(1);
        NodeShutdownHook[] hook = new NodeShutdownHook[1];
        boolean[] interrupted = new boolean[1];
        // Stands in for the thread blocked in TidelineNode.start waiting for its quorum.
        Thread starting = new Thread(() -> {
            try {
                neverStarts.await();
            } catch (InterruptedException e) {
                interrupted[0] = true;
            }
            hook[0].startupFailed();
        });
        hook[0] = new NodeShutdownHook(starting, 1_000, halts::add);
        starting.start();

        Thread stop = new Thread(hook[0]::onStop);
        stop.start();
        stop.join(TimeUnit.SECONDS.toMillis(10));

        assertTrue(!stop.isAlive() && interrupted[0], "the hook interrupted start-up and returned");
        assertEquals(List.of(), halts, "no node served: the hook does not pick the exit status");
    }

    @Test
    void aStopAfterAFailedStartUpDoesNothing() {
        NodeShutdownHook hook = new NodeShutdownHook(Thread.currentThread(), 1_000, halts::add);
        hook.startupFailed();

        hook.onStop();

        assertEquals(List.of(), halts);
        assertFalse(Thread.interrupted(), "start-up was over: nothing to interrupt");
    }
}
