package io.tideline.common.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class MockSchedulerTest {
    private final MockTime time = new MockTime(1_000_000L);
    private final MockScheduler scheduler = new MockScheduler(time);

    @Test
    void oneShotTaskRunsOnceWhenItsDelayHasPassedAndNotBefore() {
        AtomicInteger runs = new AtomicInteger();
        List<Long> seenAt = new ArrayList<>();
        scheduler.scheduleOnce("once", () -> {
            runs.incrementAndGet();
            seenAt.add(time.milliseconds());
        }, 100);

        time.advance(99);
        assertEquals(0, runs.get());
        time.advance(1);
        assertEquals(1, runs.get());
        assertEquals(List.of(1_000_100L), seenAt, "the clock is at the due time when the task runs");
        time.advance(10_000);
        assertEquals(1, runs.get());
        assertTrue(scheduler.pendingTaskNames().isEmpty());
    }

    @Test
    void periodicTaskRunsOncePerElapsedPeriodWhenTimeJumpsSeveralPeriods() {
        AtomicInteger runs = new AtomicInteger();
        scheduler.schedule("hourly", runs::incrementAndGet, 3_600_000L, 3_600_000L);

        time.advance(24 * 3_600_000L); // one jump of a day
        assertEquals(24, runs.get(), "an hourly task runs 24 times in a day, not once");

        time.advance(3_599_999L);
        assertEquals(24, runs.get());
        time.advance(1);
        assertEquals(25, runs.get());
    }

    @Test
    void periodicTaskKeepsItsScheduleFromItsDueTimeNotFromWhenItRan() {
        List<Long> seenAt = new ArrayList<>();
        scheduler.schedule("p", () -> seenAt.add(time.milliseconds()), 100, 100);
        time.advance(250); // due at 100 and 200: both run "late", at 250
        time.advance(50);  // due at 300
        assertEquals(List.of(1_000_250L, 1_000_250L, 1_000_300L), seenAt);
    }

    @Test
    void cancelledTaskNeverRuns() {
        AtomicInteger runs = new AtomicInteger();
        Scheduler.Cancellable handle = scheduler.scheduleOnce("once", runs::incrementAndGet, 100);
        handle.cancel();
        time.advance(1_000);
        assertEquals(0, runs.get());
        assertTrue(scheduler.pendingTaskNames().isEmpty());
    }

    @Test
    void cancellingAPeriodicTaskThatAlreadyRanStopsIt() {
        AtomicInteger runs = new AtomicInteger();
        Scheduler.Cancellable handle = scheduler.schedule("periodic", runs::incrementAndGet, 100, 100);
        time.advance(300);
        assertEquals(3, runs.get());

        handle.cancel();
        time.advance(1_000);
        assertEquals(3, runs.get(), "the rescheduled run must be cancelled too");
        assertTrue(scheduler.pendingTaskNames().isEmpty(), "pending: " + scheduler.pendingTaskNames());
    }

    @Test
    void periodicTaskCanCancelItselfWhileRunning() {
        AtomicInteger runs = new AtomicInteger();
        AtomicReference<Scheduler.Cancellable> handle = new AtomicReference<>();
        handle.set(scheduler.schedule("self-cancelling", () -> {
            if (runs.incrementAndGet() == 2) {
                handle.get().cancel();
            }
        }, 10, 10));
        time.advance(1_000);
        assertEquals(2, runs.get());
    }

    @Test
    void tasksDueAtTheSameTimeRunInSubmissionOrder() {
        List<String> order = new ArrayList<>();
        for (String name : List.of("c", "a", "d", "b")) {
            scheduler.scheduleOnce(name, () -> order.add(name), 500);
        }
        scheduler.scheduleOnce("early", () -> order.add("early"), 499);
        time.advance(500);
        assertEquals(List.of("early", "c", "a", "d", "b"), order);
    }

    @Test
    void tasksRunInDueTimeOrderAcrossOneJump() {
        List<String> order = new ArrayList<>();
        scheduler.scheduleOnce("third", () -> order.add("third"), 300);
        scheduler.scheduleOnce("first", () -> order.add("first"), 100);
        scheduler.schedule("periodic", () -> order.add("periodic@" + (time.milliseconds() - 1_000_000L)), 150, 100);
        time.advance(300);
        // The periodic task is due at 150 and 250; "third" at 300.
        assertEquals(List.of("first", "periodic@300", "periodic@300", "third"), order);
    }

    @Test
    void taskScheduledByARunningTaskRunsInTheSameAdvanceIfDue() {
        List<String> order = new ArrayList<>();
        scheduler.scheduleOnce("outer", () -> {
            order.add("outer");
            scheduler.scheduleOnce("inner", () -> order.add("inner"), 0);
        }, 100);
        time.advance(100);
        assertEquals(List.of("outer", "inner"), order);
    }
}
