package io.tideline.common.time;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * A clock that only moves when told to. {@link #sleep(long)} advances it, and listeners (a
 * {@link MockScheduler}) run whatever became due, so "seven days later" is one call.
 * Thread-safe: the clock is an atomic; listeners run on the thread that advanced it.
 */
public final class MockTime implements Time {
    private final AtomicLong nowMs;
    private final AtomicLong nowNs;
    private final List<LongConsumer> listeners = new CopyOnWriteArrayList<>();

    public MockTime() {
        this(1_700_000_000_000L);
    }

    public MockTime(long startMs) {
        this.nowMs = new AtomicLong(startMs);
        this.nowNs = new AtomicLong(startMs * 1_000_000L);
    }

    @Override
    public long milliseconds() {
        return nowMs.get();
    }

    @Override
    public long nanoseconds() {
        return nowNs.get();
    }

    @Override
    public void sleep(long ms) {
        advance(ms);
    }

    public void advance(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("time does not go backwards: " + ms);
        }
        long now = nowMs.addAndGet(ms);
        nowNs.addAndGet(ms * 1_000_000L);
        for (LongConsumer listener : listeners) {
            listener.accept(now);
        }
    }

    /** Called with the new time after every advance. */
    public void addListener(LongConsumer listener) {
        listeners.add(listener);
    }
}
