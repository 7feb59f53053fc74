package io.tideline.client;

import io.tideline.client.ClusterSnapshot.Leader;
import io.tideline.client.internals.BrokerAddress;
import io.tideline.common.TopicPartition;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The producer's queues: per partition, batches in send order. A partition with a batch in flight is
 * muted until that batch is answered, and a batch to retry goes back to the head of its queue, so
 * records of one partition reach the leader in the order they were sent even across retries.
 *
 * <p>Thread-safe: one lock guards the queues; it is never held while calling the network or completing
 * a user's future. The sender thread waits on {@link #awaitWork} and every change that may make a
 * batch sendable signals it.
 */
final class RecordAccumulator {
    private final int batchSize;
    private final long lingerMs;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final Map<TopicPartition, Deque<ProducerBatch>> queues = new LinkedHashMap<>();
    private final Set<TopicPartition> muted = new java.util.HashSet<>();
    private final Set<ProducerBatch> incomplete = Collections.newSetFromMap(new IdentityHashMap<>());
    private int flushesInProgress;
    private boolean closing;
    private boolean signalled;

    /** Drained batches grouped by leader, and when the sender should look again. */
    record Drained(Map<BrokerAddress, List<ProducerBatch>> byLeader, boolean leaderUnknown, long nextCheckDelayMs) {
    }

    RecordAccumulator(int batchSize, long lingerMs) {
        this.batchSize = batchSize;
        this.lingerMs = lingerMs;
    }

    /**
     * Appends to the partition's open batch, or starts a new one unless {@code abortOnNewBatch} (the
     * sticky partitioner's cue to move on first).
     *
     * @return false only when a new batch was needed and {@code abortOnNewBatch} was set
     */
    boolean append(TopicPartition tp, long timestamp, byte[] key, byte[] value,
                   CompletableFuture<RecordMetadata> future, long nowMs, boolean abortOnNewBatch) {
        lock.lock();
        try {
            Deque<ProducerBatch> queue = queues.computeIfAbsent(tp, k -> new ArrayDeque<>());
            ProducerBatch last = queue.peekLast();
            if (last != null && last.tryAppend(timestamp, key, value, future, batchSize)) {
                if (last.isFull()) {
                    signal();
                }
                return true;
            }
            if (abortOnNewBatch) {
                return false;
            }
            ProducerBatch batch = new ProducerBatch(tp, nowMs);
            batch.tryAppend(timestamp, key, value, future, batchSize);
            queue.addLast(batch);
            incomplete.add(batch);
            signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes the head batch of every unmuted partition that is ready (full, followed by another batch,
     * lingered long enough, a retry whose backoff passed, or a flush or close in progress) and whose
     * leader is known, at most {@code maxRequestSize} estimated bytes per leader (always one batch).
     */
    Drained drain(long nowMs, ClusterSnapshot cluster, int maxRequestSize) {
        lock.lock();
        try {
            Map<BrokerAddress, List<ProducerBatch>> byLeader = new LinkedHashMap<>();
            Map<BrokerAddress, Integer> sizes = new LinkedHashMap<>();
            boolean leaderUnknown = false;
            long next = Long.MAX_VALUE;
            boolean forceReady = flushesInProgress > 0 || closing;
            for (Map.Entry<TopicPartition, Deque<ProducerBatch>> e : queues.entrySet()) {
                ProducerBatch head = e.getValue().peekFirst();
                if (head == null || muted.contains(e.getKey())) {
                    continue;
                }
                long readyAt = head.attempts > 0 ? head.retryAtMs
                        : head.isFull() || e.getValue().size() > 1 || forceReady ? nowMs : head.createdMs + lingerMs;
                if (readyAt > nowMs) {
                    next = Math.min(next, readyAt - nowMs);
                    continue;
                }
                Leader leader = cluster.leader(e.getKey()).orElse(null);
                if (leader == null) {
                    leaderUnknown = true;
                    continue;
                }
                int used = sizes.getOrDefault(leader.address(), 0);
                if (used > 0 && used + head.estimatedSize() > maxRequestSize) {
                    next = 0;
                    continue;
                }
                sizes.put(leader.address(), used + head.estimatedSize());
                e.getValue().pollFirst();
                head.close();
                head.attempts++;
                muted.add(e.getKey());
                byLeader.computeIfAbsent(leader.address(), a -> new ArrayList<>()).add(head);
            }
            return new Drained(byLeader, leaderUnknown, next);
        } finally {
            lock.unlock();
        }
    }

    /** Removes queued (not in-flight) batches older than {@code deliveryTimeoutMs}; the caller fails them. */
    List<ProducerBatch> expire(long nowMs, long deliveryTimeoutMs) {
        lock.lock();
        try {
            List<ProducerBatch> expired = new ArrayList<>();
            for (Deque<ProducerBatch> queue : queues.values()) {
                for (Iterator<ProducerBatch> it = queue.iterator(); it.hasNext(); ) {
                    ProducerBatch batch = it.next();
                    if (nowMs - batch.createdMs >= deliveryTimeoutMs) {
                        it.remove();
                        incomplete.remove(batch);
                        expired.add(batch);
                    }
                }
            }
            return expired;
        } finally {
            lock.unlock();
        }
    }

    /** The answer for an in-flight batch is final (success or failure): unmute its partition. */
    void completed(ProducerBatch batch) {
        lock.lock();
        try {
            muted.remove(batch.tp);
            incomplete.remove(batch);
            signal();
        } finally {
            lock.unlock();
        }
    }

    /** An in-flight batch failed with a retriable error: back to the head of its queue. */
    void reenqueue(ProducerBatch batch, long retryAtMs) {
        lock.lock();
        try {
            batch.retryAtMs = retryAtMs;
            queues.computeIfAbsent(batch.tp, k -> new ArrayDeque<>()).addFirst(batch);
            muted.remove(batch.tp);
            signal();
        } finally {
            lock.unlock();
        }
    }

    /** Removes every batch not yet answered, queued or in flight, for a forced close. */
    List<ProducerBatch> abortIncomplete() {
        lock.lock();
        try {
            List<ProducerBatch> all = new ArrayList<>(incomplete);
            incomplete.clear();
            queues.clear();
            muted.clear();
            return all;
        } finally {
            lock.unlock();
        }
    }

    boolean hasIncomplete() {
        lock.lock();
        try {
            return !incomplete.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** The futures of every record not yet answered, for flush(). */
    List<CompletableFuture<RecordMetadata>> incompleteFutures() {
        lock.lock();
        try {
            List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
            incomplete.forEach(b -> futures.addAll(b.futures()));
            return futures;
        } finally {
            lock.unlock();
        }
    }

    void beginFlush() {
        lock.lock();
        try {
            flushesInProgress++;
            signal();
        } finally {
            lock.unlock();
        }
    }

    void endFlush() {
        lock.lock();
        try {
            flushesInProgress--;
        } finally {
            lock.unlock();
        }
    }

    /** From now on every batch is ready at once: close() sends what is queued without lingering. */
    void beginClose() {
        lock.lock();
        try {
            closing = true;
            signal();
        } finally {
            lock.unlock();
        }
    }

    void wakeup() {
        lock.lock();
        try {
            signal();
        } finally {
            lock.unlock();
        }
    }

    /** Waits up to {@code maxWaitMs} unless a change was signalled since the last wait. */
    void awaitWork(long maxWaitMs) throws InterruptedException {
        lock.lock();
        try {
            if (!signalled && maxWaitMs > 0) {
                work.await(maxWaitMs, TimeUnit.MILLISECONDS);
            }
            signalled = false;
        } finally {
            lock.unlock();
        }
    }

    private void signal() {
        signalled = true;
        work.signalAll();
    }
}
