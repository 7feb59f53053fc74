package io.tideline.node.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.common.time.MockTime;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class IdleRatioGaugeTest {
    private static final long WINDOW_MS = 10_000;
    private final MockTime time = new MockTime();
    private final AtomicLong busyNanos = new AtomicLong();

    private IdleRatioGauge gauge(int threads) {
        return new IdleRatioGauge(busyNanos::get, () -> threads, time, WINDOW_MS * 1_000_000L);
    }

    @Test
    void idleIsOneMinusBusyTimeOverElapsedTimeTimesThreads() {
        IdleRatioGauge gauge = gauge(4);
        assertEquals(1.0, gauge.getValue(), "no time passed yet");
        time.advance(1000);
        busyNanos.addAndGet(1_000_000_000L); // one of four threads busy the whole second
        assertEquals(0.75, gauge.getValue(), 1e-9);
        time.advance(1000);
        busyNanos.addAndGet(4_000_000_000L); // all four busy the next second
        assertEquals(1 - 5.0 / 8, gauge.getValue(), 1e-9);
    }

    @Test
    void readingsCoverTheLastOneToTwoWindowsSoOldBusyTimeAgesOut() {
        IdleRatioGauge gauge = gauge(1);
        time.advance(WINDOW_MS);
        busyNanos.addAndGet(WINDOW_MS * 1_000_000L); // busy the whole first window
        assertEquals(0.0, gauge.getValue(), 1e-9);
        time.advance(WINDOW_MS / 2); // then idle for half a window
        assertEquals(1.0 / 3, gauge.getValue(), 1e-9, "the reading still starts where the busy window did");
        time.advance(WINDOW_MS / 2); // and another half: the busy window has aged out
        assertEquals(1.0, gauge.getValue(), 1e-9);
    }

    @Test
    void repeatedReadsDoNotResetTheInterval() {
        IdleRatioGauge gauge = gauge(2);
        time.advance(2000);
        busyNanos.addAndGet(2_000_000_000L);
        assertEquals(0.5, gauge.getValue(), 1e-9);
        assertEquals(0.5, gauge.getValue(), 1e-9, "a second scraper reading at once sees the same figure");
    }

    @Test
    void busyBeyondCapacityReadsAsZeroNotNegative() {
        IdleRatioGauge gauge = gauge(1);
        time.advance(1000);
        busyNanos.addAndGet(3_000_000_000L);
        assertEquals(0.0, gauge.getValue());
    }

    @Test
    void busyTimeExecutorAddsTheTimeEachTaskRan() {
        Executor direct = Runnable::run;
        BusyTimeExecutor executor = new BusyTimeExecutor(direct, time);
        executor.execute(() -> time.advance(30));
        executor.execute(() -> time.advance(12));
        try {
            executor.execute(() -> {
                time.advance(8);
                throw new IllegalStateException("a failing request still took time");
            });
        } catch (IllegalStateException expected) {
            // The direct executor hands the task's exception back; the pool's threads would log it.
        }
        assertEquals(50_000_000L, executor.busyNanos());
    }
}
