package io.tideline.replication.purgatory;

import io.tideline.common.time.Scheduler;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where {@link DelayedOperation}s wait (Kafka's purgatory): each is watched under the keys whose changes
 * can complete it (partitions), and expires through the injected {@link Scheduler}, so tests drive
 * timeouts with a mock clock.
 *
 * <p>Thread-safe. Watcher sets are concurrent; an operation completed elsewhere is dropped lazily on
 * the next check of its keys.
 *
 * @param <K> the watch key
 */
public final class DelayedOperations<K> {
    private final String name;
    private final Scheduler scheduler;
    private final Map<K, Set<DelayedOperation>> watchers = new ConcurrentHashMap<>();
    private final AtomicLong expirations = new AtomicLong();

    public DelayedOperations(String name, Scheduler scheduler) {
        this.name = Objects.requireNonNull(name, "name");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    }

    /**
     * Completes {@code op} now if it can; otherwise watches it under {@code keys} and arms its timeout.
     *
     * @return whether it completed here
     */
    public boolean tryCompleteElseWatch(DelayedOperation op, Collection<K> keys) {
        if (op.maybeTryComplete()) {
            return true;
        }
        for (K key : keys) {
            // Added inside compute: checkAndComplete drops a key's set when it finds it empty, and an add
            // outside the map's per-key lock could land in a set just dropped, leaving the operation
            // unreachable (a parked fetch that no append ever answers).
            watchers.compute(key, (k, set) -> {
                Set<DelayedOperation> ops = set == null ? ConcurrentHashMap.newKeySet() : set;
                ops.add(op);
                return ops;
            });
        }
        // A change between the first check and the watch would have found no watcher: check again.
        if (op.maybeTryComplete()) {
            removeFrom(op, keys);
            return true;
        }
        op.setTimer(scheduler.scheduleOnce(name + "-expiry", () -> {
            if (!op.isCompleted()) {
                expirations.incrementAndGet();
                op.expire();
            }
            removeFrom(op, keys);
        }, op.timeoutMs()));
        return false;
    }

    /**
     * Something {@code key}'s operations wait for changed: try each of them.
     *
     * @return how many completed
     */
    public int checkAndComplete(K key) {
        Set<DelayedOperation> ops = watchers.get(key);
        if (ops == null) {
            return 0;
        }
        int done = 0;
        for (DelayedOperation op : List.copyOf(ops)) {
            boolean wasCompleted = op.isCompleted();
            if (op.maybeTryComplete()) {
                ops.remove(op);
                if (!wasCompleted) {
                    done++;
                }
            }
        }
        watchers.computeIfPresent(key, (k, set) -> set.isEmpty() ? null : set);
        return done;
    }

    /** Completes every operation watching {@code key} now (leadership moved, replica stopped). */
    public int forceCompleteAll(K key) {
        Set<DelayedOperation> ops = watchers.remove(key);
        if (ops == null) {
            return 0;
        }
        int done = 0;
        for (DelayedOperation op : ops) {
            if (op.forceComplete()) {
                done++;
            }
        }
        return done;
    }

    /** Completes everything (shutdown). */
    public void shutdown() {
        for (K key : new ArrayList<>(watchers.keySet())) {
            forceCompleteAll(key);
        }
    }

    /** Operations still waiting (each counted once). */
    public int pending() {
        Set<DelayedOperation> distinct = ConcurrentHashMap.newKeySet();
        for (Set<DelayedOperation> ops : watchers.values()) {
            for (DelayedOperation op : ops) {
                if (!op.isCompleted()) {
                    distinct.add(op);
                }
            }
        }
        return distinct.size();
    }

    public long expirations() {
        return expirations.get();
    }

    private void removeFrom(DelayedOperation op, Collection<K> keys) {
        for (K key : keys) {
            Set<DelayedOperation> ops = watchers.get(key);
            if (ops != null) {
                ops.remove(op);
            }
        }
    }
}
