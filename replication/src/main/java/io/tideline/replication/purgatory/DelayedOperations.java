package io.tideline.replication.purgatory;

import io.tideline.common.time.Scheduler;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where {@link DelayedOperation}s wait (Kafka's purgatory): each is watched under the keys whose changes
 * can complete it (partitions), and expires through the injected {@link Scheduler}, so tests drive
 * timeouts with a mock clock.
 *
 * <p>Bounded by what is waiting, never by what went through: an operation leaves all of its watcher sets
 * the moment it completes, by whichever key, by force or by expiry, and a key's set is dropped once
 * empty. (Kafka's purgatory instead purges completed entries lazily once their count passes a bound;
 * removing them eagerly costs one map update per key at completion and keeps no completed answer
 * reachable at all.)
 *
 * <p>Thread-safe. Watcher sets are concurrent; a set is created, joined and dropped inside the map's
 * per-key compute, so an operation can never join a set that was just dropped.
 *
 * @param <K> the watch key
 */
public final class DelayedOperations<K> {
    private final String name;
    private final Scheduler scheduler;
    private final Map<K, Set<DelayedOperation>> watchers = new ConcurrentHashMap<>();
    private final AtomicLong expirations = new AtomicLong();
    /** Operations watched and not yet completed: NumDelayedOperations. */
    private final AtomicInteger waiting = new AtomicInteger();

    public DelayedOperations(String name, Scheduler scheduler) {
        this.name = Objects.requireNonNull(name, "name");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    }

    public String name() {
        return name;
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
        List<K> joined = List.copyOf(new LinkedHashSet<>(keys));
        waiting.incrementAndGet();
        op.setUnwatch(() -> {
            waiting.decrementAndGet();
            unwatch(op, joined);
        });
        for (K key : joined) {
            watchers.compute(key, (k, set) -> {
                Set<DelayedOperation> ops = set == null ? ConcurrentHashMap.newKeySet() : set;
                ops.add(op);
                return ops;
            });
        }
        if (op.isCompleted()) {
            // Completed by another thread while it was joining: its own unwatch ran before the last
            // joins, so leave those sets again.
            unwatch(op, joined);
            return true;
        }
        // A change between the first check and the watch would have found no watcher: check again.
        if (op.maybeTryComplete()) {
            return true;
        }
        op.setTimer(scheduler.scheduleOnce(name + "-expiry", () -> {
            if (op.expire()) {
                expirations.incrementAndGet();
            }
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
        // The set's iterator is weakly consistent: operations completing meanwhile remove themselves.
        for (DelayedOperation op : ops) {
            if (!op.isCompleted() && op.maybeTryComplete()) {
                done++;
            }
        }
        return done;
    }

    /** Completes every operation watching {@code key} now (leadership moved, replica stopped). */
    public int forceCompleteAll(K key) {
        Set<DelayedOperation> ops = watchers.get(key);
        if (ops == null) {
            return 0;
        }
        int done = 0;
        for (DelayedOperation op : List.copyOf(ops)) {
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

    /** Operations waiting (watched, not completed), each counted once: Kafka's NumDelayedOperations. */
    public int pending() {
        return waiting.get();
    }

    /**
     * Watcher entries over all keys, an operation counted once per key it watches: Kafka's PurgatorySize.
     * It stays within pending() times the keys per operation; completed operations are never counted.
     */
    public int watched() {
        int n = 0;
        for (Set<DelayedOperation> ops : watchers.values()) {
            n += ops.size();
        }
        return n;
    }

    /** Keys with at least one watcher. */
    public int watchedKeys() {
        return watchers.size();
    }

    public long expirations() {
        return expirations.get();
    }

    private void unwatch(DelayedOperation op, List<K> keys) {
        for (K key : keys) {
            watchers.computeIfPresent(key, (k, set) -> {
                set.remove(op);
                return set.isEmpty() ? null : set;
            });
        }
    }
}
