package io.tideline.replication.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DelayedOperationsTest {
    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final DelayedOperations<String> purgatory = new DelayedOperations<>("test", scheduler);

    /** Waits for {@link #ready}; records every completion. */
    private static final class Waiter extends DelayedOperation {
        final AtomicBoolean ready = new AtomicBoolean();
        final AtomicInteger completions = new AtomicInteger();
        final List<Boolean> expiredFlags = new ArrayList<>();

        Waiter(long timeoutMs) {
            super(timeoutMs);
        }

        @Override
        protected boolean tryComplete() {
            return ready.get() && forceComplete();
        }

        @Override
        protected synchronized void onComplete(boolean expired) {
            completions.incrementAndGet();
            expiredFlags.add(expired);
        }
    }

    @AfterEach
    void noTaskFailed() {
        assertEquals(List.of(), scheduler.failures());
    }

    @Test
    void anOperationReadyAtOnceCompletesWithoutWatchOrTimer() {
        Waiter op = new Waiter(1000);
        op.ready.set(true);
        assertTrue(purgatory.tryCompleteElseWatch(op, List.of("a")));
        assertEquals(List.of(false), op.expiredFlags);
        assertEquals(0, purgatory.pending());
        assertEquals(List.of(), scheduler.pendingTaskNames());
    }

    @Test
    void completesOnceWhenCheckedUnderEachOfItsKeys() {
        Waiter op = new Waiter(1000);
        assertFalse(purgatory.tryCompleteElseWatch(op, List.of("a", "b")));
        assertEquals(1, purgatory.pending());
        assertEquals(0, purgatory.checkAndComplete("a"), "not ready yet");

        op.ready.set(true);
        assertEquals(1, purgatory.checkAndComplete("a"));
        assertEquals(0, purgatory.checkAndComplete("b"));
        assertEquals(0, purgatory.checkAndComplete("a"));
        assertEquals(1, op.completions.get());
        assertEquals(List.of(false), op.expiredFlags);
        assertEquals(0, purgatory.pending());
        assertEquals(List.of(), scheduler.pendingTaskNames(), "completion cancels the timeout");
        time.advance(5000);
        assertEquals(1, op.completions.get());
        assertEquals(0, purgatory.expirations());
    }

    @Test
    void anOperationLeavesEveryWatcherSetHoweverItCompletes() {
        Waiter byKey = new Waiter(1000);
        Waiter byForce = new Waiter(1000);
        Waiter byExpiry = new Waiter(500);
        purgatory.tryCompleteElseWatch(byKey, List.of("busy", "idle-1", "idle-2"));
        purgatory.tryCompleteElseWatch(byForce, List.of("busy", "idle-1", "idle-2"));
        purgatory.tryCompleteElseWatch(byExpiry, List.of("busy", "idle-1", "idle-2"));
        assertEquals(9, purgatory.watched());
        assertEquals(3, purgatory.watchedKeys());

        byKey.ready.set(true);
        assertEquals(1, purgatory.checkAndComplete("busy"));
        assertEquals(6, purgatory.watched(), "completed through one key, gone from the keys nobody checks");
        assertTrue(byForce.forceComplete());
        assertEquals(3, purgatory.watched());
        time.advance(500);
        assertEquals(List.of(true), byExpiry.expiredFlags);
        assertEquals(0, purgatory.watched());
        assertEquals(0, purgatory.watchedKeys(), "empty sets are dropped");
        assertEquals(List.of(), scheduler.pendingTaskNames(), "every timer cancelled and removed");
    }

    @Test
    void repeatedKeysAreWatchedOnce() {
        Waiter op = new Waiter(1000);
        purgatory.tryCompleteElseWatch(op, List.of("a", "a", "b"));
        assertEquals(2, purgatory.watched());
        op.forceComplete();
        assertEquals(0, purgatory.watched());
    }

    @Test
    void checkingAnotherKeyLeavesTheOperationWaiting() {
        Waiter op = new Waiter(1000);
        purgatory.tryCompleteElseWatch(op, List.of("a"));
        op.ready.set(true);
        assertEquals(0, purgatory.checkAndComplete("b"));
        assertEquals(0, op.completions.get());
        assertEquals(1, purgatory.checkAndComplete("a"));
    }

    @Test
    void expiresExactlyAtItsTimeoutOnTheInjectedScheduler() {
        Waiter op = new Waiter(1000);
        purgatory.tryCompleteElseWatch(op, List.of("a", "b"));
        time.advance(999);
        assertFalse(op.isCompleted());
        time.advance(1);
        assertTrue(op.isCompleted());
        assertEquals(List.of(true), op.expiredFlags);
        assertEquals(1, purgatory.expirations());
        assertEquals(0, purgatory.pending());

        // Ready after it expired: no second answer.
        op.ready.set(true);
        assertEquals(0, purgatory.checkAndComplete("a"));
        assertEquals(0, purgatory.checkAndComplete("b"));
        assertFalse(op.forceComplete());
        assertEquals(1, op.completions.get());
    }

    @Test
    void forceCompleteAllAnswersEveryWaiterOfTheKeyAndCancelsTheirTimers() {
        Waiter first = new Waiter(1000);
        Waiter second = new Waiter(2000);
        Waiter elsewhere = new Waiter(1000);
        purgatory.tryCompleteElseWatch(first, List.of("a"));
        purgatory.tryCompleteElseWatch(second, List.of("a", "b"));
        purgatory.tryCompleteElseWatch(elsewhere, List.of("c"));

        assertEquals(2, purgatory.forceCompleteAll("a"));
        assertEquals(List.of(false), first.expiredFlags);
        assertEquals(List.of(false), second.expiredFlags);
        assertEquals(0, purgatory.forceCompleteAll("a"));
        assertEquals(0, purgatory.forceCompleteAll("b"), "already answered through its other key");
        assertEquals(1, purgatory.pending());

        time.advance(5000);
        assertEquals(1, first.completions.get());
        assertEquals(1, second.completions.get());
        assertEquals(List.of(true), elsewhere.expiredFlags);
        assertEquals(1, purgatory.expirations());
    }

    @Test
    void shutdownAnswersEverything() {
        Waiter a = new Waiter(1000);
        Waiter b = new Waiter(1000);
        purgatory.tryCompleteElseWatch(a, List.of("a"));
        purgatory.tryCompleteElseWatch(b, List.of("b"));
        purgatory.shutdown();
        assertEquals(List.of(false), a.expiredFlags);
        assertEquals(List.of(false), b.expiredFlags);
        assertEquals(0, purgatory.pending());
        assertEquals(List.of(), scheduler.pendingTaskNames());
    }

    @Test
    void concurrentChecksExpiryAndForceCompleteAnswerOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 200; round++) {
                Waiter op = new Waiter(10);
                purgatory.tryCompleteElseWatch(op, List.of("a", "b"));
                op.ready.set(true);
                CountDownLatch go = new CountDownLatch(1);
                List<Future<?>> racers = new ArrayList<>();
                racers.add(pool.submit(() -> awaitThen(go, () -> purgatory.checkAndComplete("a"))));
                racers.add(pool.submit(() -> awaitThen(go, () -> purgatory.checkAndComplete("b"))));
                racers.add(pool.submit(() -> awaitThen(go, op::forceComplete)));
                racers.add(pool.submit(() -> awaitThen(go, () -> time.advance(10))));
                go.countDown();
                for (Future<?> f : racers) {
                    f.get(10, TimeUnit.SECONDS);
                }
                assertEquals(1, op.completions.get(), "round " + round);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, purgatory.pending());
        assertEquals(0, purgatory.watched());
    }

    private static void awaitThen(CountDownLatch go, Runnable action) {
        try {
            go.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        action.run();
    }
}
