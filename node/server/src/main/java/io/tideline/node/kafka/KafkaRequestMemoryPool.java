package io.tideline.node.kafka;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Kafka listener's request memory ({@code queued.max.request.bytes}, Kafka's key; the gRPC listener has a pool
 * of its own): connections charge a request's bytes as they arrive, in growing steps, never what a size field only
 * declares (docs/behaviours.md B110).
 *
 * <p>A charge is admitted while it fits under the capacity and nobody waits before it; otherwise it waits, in
 * arrival order. Charging as bytes arrive could leave the pool full of unfinished frames that each wait for more
 * room, none able to finish, with nothing being handled that would free any: then the oldest waiting frame is let
 * past the capacity until its frame is whole (the overdraft, one frame at a time). So the pool holds at most its
 * capacity plus one request ({@code socket.request.max.bytes}), and some connection always makes progress while
 * its peer sends; a peer that stops is closed by its connection's receive deadline, which frees what it held.
 *
 * <p>Thread-safe: the accounting is under this object's monitor; {@code proceed} actions run outside it, on the
 * thread whose call made room.
 */
public final class KafkaRequestMemoryPool implements KafkaRequestMemory {
    private final long capacity;
    /** Bytes charged and not released. Guarded by this. */
    private long used;
    /** The part of {@link #used} held by frames not yet received whole. Guarded by this. */
    private long unfinished;
    /** Each owner's charge for its frame in progress. Guarded by this. */
    private final Map<Object, Long> unfinishedOf = new IdentityHashMap<>();
    /** The owner let past the capacity until its frame is whole; null when none is. Guarded by this. */
    private Object overdraft;
    /** Charges waiting for room, in arrival order. Guarded by this. */
    private final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
    private final AtomicLong heldBack = new AtomicLong();
    private final AtomicLong overdrafts = new AtomicLong();

    private record Waiter(Object owner, long bytes, Runnable proceed) {
    }

    public KafkaRequestMemoryPool(long capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
    }

    public long capacity() {
        return capacity;
    }

    /** Bytes of requests received and not yet handled (Kafka's MemoryPoolUsed). */
    public synchronized long used() {
        return used;
    }

    /** What is left before charges wait (Kafka's MemoryPoolAvailable); negative during an overdraft. */
    public synchronized long available() {
        return capacity - used;
    }

    /** Charges that had to wait for room, since start. */
    public long heldBackCount() {
        return heldBack.get();
    }

    /** Charges waiting for room now. */
    public synchronized int waitingCount() {
        return waiting.size();
    }

    /** Frames let past the capacity to break a standstill of unfinished frames, since start. */
    public long overdraftCount() {
        return overdrafts.get();
    }

    @Override
    public void acquire(Object owner, long bytes, Runnable proceed) {
        List<Runnable> run;
        synchronized (this) {
            if (owner == overdraft || (waiting.isEmpty() && fits(bytes))) {
                charge(owner, bytes);
                run = List.of(proceed);
            } else {
                waiting.add(new Waiter(owner, bytes, proceed));
                heldBack.incrementAndGet();
                run = admitWaiting();
            }
        }
        run.forEach(Runnable::run);
    }

    @Override
    public void frameEnded(Object owner) {
        List<Runnable> run;
        synchronized (this) {
            Long held = unfinishedOf.remove(owner);
            if (held != null) {
                unfinished -= held;
            }
            if (overdraft == owner) {
                overdraft = null;
            }
            waiting.removeIf(w -> w.owner == owner);
            run = admitWaiting();
        }
        run.forEach(Runnable::run);
    }

    @Override
    public void release(long bytes) {
        List<Runnable> run;
        synchronized (this) {
            used -= bytes;
            run = admitWaiting();
        }
        run.forEach(Runnable::run);
    }

    /** Under the monitor. Nothing held: anything fits, so a request larger than the pool still passes alone. */
    private boolean fits(long bytes) {
        return used == 0 || used + bytes <= capacity;
    }

    /** Under the monitor. */
    private void charge(Object owner, long bytes) {
        used += bytes;
        unfinished += bytes;
        unfinishedOf.merge(owner, bytes, Long::sum);
    }

    /** Under the monitor: admits waiting charges in order while they fit; returns what to run outside it. */
    private List<Runnable> admitWaiting() {
        List<Runnable> run = new ArrayList<>();
        while (!waiting.isEmpty()) {
            Waiter next = waiting.peek();
            boolean admit = next.owner == overdraft || fits(next.bytes);
            if (!admit && overdraft == null && used == unfinished) {
                // Everything held belongs to frames still arriving: nothing handled will free room.
                overdraft = next.owner;
                overdrafts.incrementAndGet();
                admit = true;
            }
            if (!admit) {
                break;
            }
            waiting.poll();
            charge(next.owner, next.bytes);
            run.add(next.proceed);
        }
        return run;
    }
}
