package io.tideline.client;

import io.tideline.client.ClusterSnapshot.Leader;
import io.tideline.client.internals.BrokerAddress;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
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
 * The producer's queues: per partition, batches in send order. A partition with a request in flight is
 * muted until that request is answered, and batches to retry go back to the head of their queue in
 * their order, so records of one partition reach the leader in the order they were sent even across
 * retries. A request carries every ready batch at the head of a partition's queue (up to
 * max.request.size): while one round trip is in flight the next one gathers what was sent meanwhile,
 * which is how one partition gets more than one batch per acks=all round trip with the order kept.
 *
 * <p>The records waiting or in flight hold at most buffer.memory bytes (their estimated serialized
 * size): {@link #reserve} blocks a sender up to max.block.ms until answered batches free room, as
 * Kafka's producer does.
 *
 * <p>With idempotence ({@link ProducerIdempotence}) a request carries one batch per partition, as the leader
 * dedupes one batch per partition and request, and a partition may have up to max.in.flight.requests.per.connection
 * batches in flight, each in a request of its own, in sequence order: a batch gets its sequence when first drained,
 * a failed one goes back into its queue in sequence order, and a batch being retried is sent only once nothing of
 * its partition is in flight, so the lowest sequence reaches the leader first. Until a partition's leader has
 * acknowledged a batch of the producer's current epoch, one batch of it is in flight at a time.
 *
 * <p>Thread-safe: one lock guards the queues; it is never held while calling the network or completing
 * a user's future. The sender thread waits on {@link #awaitWork} and every change that may make a
 * batch sendable signals it.
 */
final class RecordAccumulator {
    private final int batchSize;
    private final long lingerMs;
    private final long bufferMemory;
    private final Time time;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final Condition memoryFreed = lock.newCondition();
    /** Estimated bytes of the records queued or in flight; at most bufferMemory. Guarded by lock. */
    private long bufferUsed;
    private final Map<TopicPartition, Deque<ProducerBatch>> queues = new LinkedHashMap<>();
    private final Set<TopicPartition> muted = new java.util.HashSet<>();
    private final Set<ProducerBatch> incomplete = Collections.newSetFromMap(new IdentityHashMap<>());
    private int flushesInProgress;
    private boolean closing;
    private boolean signalled;
    /** Null without idempotence. */
    private final ProducerIdempotence idempotence;
    private final int maxInFlight;
    /** With idempotence: batches in flight per partition (instead of {@link #muted}). Guarded by lock. */
    private final Map<TopicPartition, Integer> inFlight = new java.util.HashMap<>();

    /**
     * Drained batches by leader, then by partition (each partition's in queue order), and when the
     * sender should look again.
     */
    record Drained(Map<BrokerAddress, Map<TopicPartition, List<ProducerBatch>>> byLeader, boolean leaderUnknown,
                   long nextCheckDelayMs) {
    }

    RecordAccumulator(int batchSize, long lingerMs, long bufferMemory, Time time) {
        this(batchSize, lingerMs, bufferMemory, time, null, 1);
    }

    /** @param idempotence null for a producer without idempotence, which keeps one request per partition in flight */
    RecordAccumulator(int batchSize, long lingerMs, long bufferMemory, Time time, ProducerIdempotence idempotence,
                      int maxInFlight) {
        this.idempotence = idempotence;
        this.maxInFlight = maxInFlight;
        this.batchSize = batchSize;
        this.lingerMs = lingerMs;
        this.bufferMemory = bufferMemory;
        this.time = time;
    }

    /**
     * Takes {@code bytes} of buffer.memory for a record about to be appended, waiting until answered
     * batches free enough or {@code deadlineMs} (on the producer's clock) passes.
     *
     * @throws TidelineClientException REQUEST_TIMED_OUT when the buffer stayed full until the deadline
     *                                 (Kafka's BufferExhaustedException), or the wait was interrupted
     */
    void reserve(int bytes, long deadlineMs) {
        lock.lock();
        try {
            while (bufferUsed + bytes > bufferMemory) {
                long remaining = deadlineMs - time.milliseconds();
                if (remaining <= 0) {
                    throw new TidelineClientException(Errors.REQUEST_TIMED_OUT, "Failed to allocate " + bytes
                            + " bytes within the configured max blocking time (max.block.ms). Total memory: "
                            + bufferMemory + " bytes (buffer.memory). Available memory: " + (bufferMemory - bufferUsed)
                            + " bytes.");
                }
                memoryFreed.await(remaining, TimeUnit.MILLISECONDS);
            }
            bufferUsed += bytes;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TidelineClientException(Errors.REQUEST_TIMED_OUT, "Interrupted while waiting for buffer memory");
        } finally {
            lock.unlock();
        }
    }

    /** Bytes of buffer.memory in use (records queued or in flight). */
    long bufferUsed() {
        lock.lock();
        try {
            return bufferUsed;
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock. */
    private void free(long bytes) {
        bufferUsed -= bytes;
        memoryFreed.signalAll();
    }

    /** A batch is answered for good (done, failed, expired or aborted): its records leave the buffer. Under the lock. */
    private void finish(ProducerBatch batch) {
        if (incomplete.remove(batch)) {
            free(batch.reservedBytes());
        }
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
     * Takes the ready batches at the head of every unmuted partition whose leader is known: a batch is
     * ready when it is full, followed by another batch, lingered long enough, a retry whose backoff
     * passed, or a flush or close is in progress. At most {@code maxRequestSize} estimated bytes per
     * leader (always at least one batch), so the partitions of a leader share its request.
     */
    Drained drain(long nowMs, ClusterSnapshot cluster, int maxRequestSize) {
        lock.lock();
        try {
            Map<BrokerAddress, Map<TopicPartition, List<ProducerBatch>>> byLeader = new LinkedHashMap<>();
            Map<BrokerAddress, Integer> sizes = new LinkedHashMap<>();
            boolean leaderUnknown = false;
            long next = Long.MAX_VALUE;
            boolean forceReady = flushesInProgress > 0 || closing;
            for (Map.Entry<TopicPartition, Deque<ProducerBatch>> e : queues.entrySet()) {
                Deque<ProducerBatch> queue = e.getValue();
                ProducerBatch head = queue.peekFirst();
                if (head == null || muted.contains(e.getKey())
                        || (idempotence != null && !mayDrainIdempotent(e.getKey(), head))) {
                    continue;
                }
                long readyAt = readyAt(head, queue, forceReady);
                if (readyAt > nowMs) {
                    next = Math.min(next, readyAt - nowMs);
                    continue;
                }
                Leader leader = cluster.leader(e.getKey()).orElse(null);
                if (leader == null) {
                    leaderUnknown = true;
                    continue;
                }
                if (idempotence != null) {
                    next = Math.min(next, drainIdempotent(e.getKey(), queue, leader, sizes, byLeader, maxRequestSize));
                    continue;
                }
                int used = sizes.getOrDefault(leader.address(), 0);
                List<ProducerBatch> taken = new ArrayList<>();
                while (head != null && readyAt(head, queue, forceReady) <= nowMs
                        && (used == 0 || used + head.estimatedSize() <= maxRequestSize)) {
                    queue.pollFirst();
                    head.close();
                    head.attempts++;
                    taken.add(head);
                    used += head.estimatedSize();
                    head = queue.peekFirst();
                }
                if (taken.isEmpty()) {
                    next = 0; // this leader's request is full: the partition goes in the next one
                    continue;
                }
                sizes.put(leader.address(), used);
                muted.add(e.getKey());
                byLeader.computeIfAbsent(leader.address(), a -> new LinkedHashMap<>()).put(e.getKey(), taken);
            }
            return new Drained(byLeader, leaderUnknown, next);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether the head of an idempotent partition may go now: in-flight room (one until the leader knows the
     * producer), a retry only once nothing of its partition is in flight, a new batch only while sequences may
     * be handed out. Under the lock.
     */
    private boolean mayDrainIdempotent(TopicPartition tp, ProducerBatch head) {
        int flying = inFlight.getOrDefault(tp, 0);
        if (flying >= (idempotence.acknowledged(tp) ? maxInFlight : 1)) {
            return false;
        }
        if (head.hasSequence()) {
            return flying == 0;
        }
        return idempotence.maySequence();
    }

    /** Takes the ready head of an idempotent partition alone; returns when to look again. Under the lock. */
    private long drainIdempotent(TopicPartition tp, Deque<ProducerBatch> queue, Leader leader,
                                 Map<BrokerAddress, Integer> sizes,
                                 Map<BrokerAddress, Map<TopicPartition, List<ProducerBatch>>> byLeader, int maxRequestSize) {
        ProducerBatch head = queue.peekFirst();
        int used = sizes.getOrDefault(leader.address(), 0);
        if (used > 0 && used + head.estimatedSize() > maxRequestSize) {
            return 0; // this leader's request is full: the partition goes in the next one
        }
        queue.pollFirst();
        head.close();
        head.attempts++;
        if (!head.hasSequence()) {
            idempotence.assign(head);
        }
        head.sentAsFirst = idempotence.isFirstUnresolved(head);
        inFlight.merge(tp, 1, Integer::sum);
        sizes.put(leader.address(), used + head.estimatedSize());
        byLeader.computeIfAbsent(leader.address(), a -> new LinkedHashMap<>()).put(tp, List.of(head));
        return queue.isEmpty() ? Long.MAX_VALUE : 0;
    }

    /** Under the lock. */
    private void landed(ProducerBatch batch) {
        if (idempotence == null) {
            muted.remove(batch.tp);
        } else {
            inFlight.computeIfPresent(batch.tp, (k, n) -> n > 1 ? n - 1 : null);
        }
    }

    /**
     * Removes those of {@code batches} that are queued (not in flight) and frees their memory; the caller fails
     * them. Returns them in the order given.
     */
    List<ProducerBatch> removeQueued(List<ProducerBatch> batches) {
        lock.lock();
        try {
            List<ProducerBatch> removed = new ArrayList<>();
            for (ProducerBatch batch : batches) {
                Deque<ProducerBatch> queue = queues.get(batch.tp);
                if (queue != null && queue.removeIf(b -> b == batch)) {
                    finish(batch);
                    removed.add(batch);
                }
            }
            signal();
            return removed;
        } finally {
            lock.unlock();
        }
    }

    /** When {@code batch}, the head of {@code queue}, may go. Under the lock. */
    private long readyAt(ProducerBatch batch, Deque<ProducerBatch> queue, boolean forceReady) {
        if (batch.attempts > 0) {
            return batch.retryAtMs;
        }
        return batch.isFull() || queue.size() > 1 || forceReady ? Long.MIN_VALUE : batch.createdMs + lingerMs;
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
                        finish(batch);
                        expired.add(batch);
                    }
                }
            }
            return expired;
        } finally {
            lock.unlock();
        }
    }

    /** The answer for an in-flight batch is final (success or failure): unmute its partition, free its memory. */
    void completed(ProducerBatch batch) {
        lock.lock();
        try {
            landed(batch);
            finish(batch);
            signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * In-flight batches of one partition failed with a retriable error: back to the head of its queue,
     * in their order, ahead of what was queued after them.
     */
    void reenqueue(List<ProducerBatch> batches, long retryAtMs) {
        lock.lock();
        try {
            for (int i = batches.size() - 1; i >= 0; i--) {
                ProducerBatch batch = batches.get(i);
                batch.retryAtMs = retryAtMs;
                Deque<ProducerBatch> queue = queues.computeIfAbsent(batch.tp, k -> new ArrayDeque<>());
                if (idempotence != null) {
                    insertInSequenceOrder(queue, batch);
                } else {
                    queue.addFirst(batch);
                }
                landed(batch);
            }
            signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Answers of pipelined batches come in any order: a retry goes after the queued batches sequenced before it and
     * ahead of the rest. Under the lock.
     */
    private static void insertInSequenceOrder(Deque<ProducerBatch> queue, ProducerBatch batch) {
        List<ProducerBatch> before = new ArrayList<>();
        while (!queue.isEmpty() && queue.peekFirst().hasSequence() && queue.peekFirst().sequenceOrder < batch.sequenceOrder) {
            before.add(queue.pollFirst());
        }
        queue.addFirst(batch);
        for (int i = before.size() - 1; i >= 0; i--) {
            queue.addFirst(before.get(i));
        }
    }

    /** Removes every batch not yet answered, queued or in flight, for a forced close. */
    List<ProducerBatch> abortIncomplete() {
        lock.lock();
        try {
            List<ProducerBatch> all = new ArrayList<>(incomplete);
            all.forEach(this::finish);
            queues.clear();
            muted.clear();
            inFlight.clear();
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
            memoryFreed.signalAll();
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
