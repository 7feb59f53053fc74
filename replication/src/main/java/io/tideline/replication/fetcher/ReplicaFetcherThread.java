package io.tideline.replication.fetcher;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.follower.FailureReason;
import io.tideline.replication.follower.FetchOutcome;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerFetch;
import io.tideline.replication.follower.FollowerPartition;
import io.tideline.replication.follower.ReplicaStatus;
import io.tideline.store.log.Log;
import io.tideline.store.record.RecordBatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One fetcher thread: pulls many partitions from one leader broker with batched replica fetches, hands
 * each answer to the partition's {@link FollowerPartition}, and publishes a {@link FollowerStatusView}.
 *
 * <p>Partitions in error are paused for replica.fetch.backoff.ms; throttled partitions are left out of
 * the request while the follower quota is exceeded. These pauses run on the real clock (they are waits,
 * not rules); the rules' timestamps (a failure's "since") come from the injected {@link Time}.
 *
 * <p>Pipelining: while the partitions of an answer are appended, the next fetch is already on its way
 * for those that are catching up (see {@link #sendAhead}), so the leader reads and sends the next piece
 * while this thread writes the last one. At most one fetch is outstanding at a time: the next is sent
 * only once the answer to the previous one has arrived.
 *
 * <p>Thread-safety: the partition map and every {@link FollowerPartition} are guarded by {@link #lock};
 * responses are processed under it, so add/remove/rebuild calls from other threads wait for an answer
 * being applied, never for one being awaited.
 */
final class ReplicaFetcherThread extends Thread {
    private static final Logger log = LoggerFactory.getLogger(ReplicaFetcherThread.class);
    /** Added to replica.fetch.wait.max.ms: a leader that does not answer in time is treated as unreachable. */
    private static final long REQUEST_TIMEOUT_SLACK_MS = 30_000L;

    /** A fetch sent to the leader whose answer has not been applied yet. */
    private record Pending(List<FollowerFetch> request, CompletableFuture<Map<TopicPartition, FetchResponseData>> answer) {
    }

    /** A partition served by this thread. */
    static final class PartitionState {
        final FollowerPartition follower;
        final boolean throttled;
        long pausedUntilNanos;
        volatile FollowerStatusView view;

        PartitionState(FollowerPartition follower, boolean throttled) {
            this.follower = follower;
            this.throttled = throttled;
        }
    }

    private final int localBrokerId;
    private final int leaderId;
    private final LeaderEndpoints endpoints;
    private final ReplicationConfig config;
    private final Time time;
    private final ReplicationQuota quota;
    private final FetcherListener listener;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<TopicPartition, PartitionState> partitions = new LinkedHashMap<>();
    private volatile boolean running = true;
    private volatile CompletableFuture<?> inFlight;

    ReplicaFetcherThread(String name, int localBrokerId, int leaderId, LeaderEndpoints endpoints,
                         ReplicationConfig config, Time time, ReplicationQuota quota, FetcherListener listener) {
        super(name);
        setDaemon(true);
        this.localBrokerId = localBrokerId;
        this.leaderId = leaderId;
        this.endpoints = endpoints;
        this.config = config;
        this.time = time;
        this.quota = quota;
        this.listener = listener;
    }

    int leaderId() {
        return leaderId;
    }

    void addPartition(TopicPartition tp, FollowerPartition follower, boolean throttled) {
        lock.lock();
        try {
            PartitionState state = new PartitionState(follower, throttled);
            state.view = view(follower, 0L);
            partitions.put(tp, state);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Metadata repeated or moved the leader epoch on while the leader stays: update in place, keeping the
     * fetch in flight. False when the partition is not here or its log or policy changed (rebuild it).
     */
    boolean updatePartition(TopicPartition tp, Log localLog, int leaderEpoch,
                            io.tideline.replication.follower.OutOfRangePolicy policy, boolean throttled) {
        lock.lock();
        try {
            PartitionState state = partitions.get(tp);
            if (state == null || state.follower.log() != localLog || state.follower.policy() != policy) {
                return false;
            }
            if (leaderEpoch > state.follower.leaderEpoch()) {
                state.follower.updateLeader(leaderId, leaderEpoch);
                state.pausedUntilNanos = 0;
            }
            if (throttled != state.throttled) {
                PartitionState replaced = new PartitionState(state.follower, throttled);
                replaced.view = state.view;
                partitions.put(tp, replaced);
            }
            changed.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Removes the partition; returns its follower logic (kept by the caller if it moves to another leader). */
    Optional<FollowerPartition> removePartition(TopicPartition tp) {
        lock.lock();
        try {
            PartitionState state = partitions.remove(tp);
            return state == null ? Optional.empty() : Optional.of(state.follower);
        } finally {
            lock.unlock();
        }
    }

    int partitionCount() {
        lock.lock();
        try {
            return partitions.size();
        } finally {
            lock.unlock();
        }
    }

    Optional<FollowerStatusView> status(TopicPartition tp) {
        lock.lock();
        try {
            PartitionState state = partitions.get(tp);
            return state == null ? Optional.empty() : Optional.of(state.view);
        } finally {
            lock.unlock();
        }
    }

    List<FollowerStatusView> statuses() {
        lock.lock();
        try {
            return partitions.values().stream().map(s -> s.view).toList();
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code action} on a partition's follower logic under the lock; false if not served here. */
    boolean withPartition(TopicPartition tp, Consumer<FollowerPartition> action) {
        lock.lock();
        try {
            PartitionState state = partitions.get(tp);
            if (state == null) {
                return false;
            }
            action.accept(state.follower);
            state.pausedUntilNanos = 0;
            state.view = view(state.follower, state.view.lag());
            changed.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops the loop without interrupting it: an interrupt during file I/O would close the log's
     * channel. The fetch in flight is abandoned; an answer being applied finishes first.
     */
    void shutdown() {
        running = false;
        CompletableFuture<?> pending = inFlight;
        if (pending != null) {
            pending.cancel(false);
        }
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void run() {
        Pending pending = null;
        while (running) {
            try {
                if (pending == null) {
                    List<FollowerFetch> request = buildRequest();
                    if (request.isEmpty() || !running) {
                        continue;
                    }
                    pending = send(request, config.fetchWaitMaxMs());
                    if (pending == null) {
                        continue;
                    }
                }
                Pending current = pending;
                pending = null;
                Map<TopicPartition, FetchResponseData> answer = await(current);
                if (answer != null) {
                    pending = sendAhead(current.request(), answer);
                    process(current.request(), answer);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (java.util.concurrent.CancellationException e) {
                // shutdown() abandoned the fetch in flight
            } catch (RuntimeException e) {
                log.error("Fetcher {} failed a round; retrying after the backoff", getName(), e);
                pending = abandon(pending);
                pauseAll(config.fetchBackoffMs());
            }
        }
        abandon(pending);
        log.debug("Fetcher {} stopped", getName());
    }

    private static Pending abandon(Pending pending) {
        if (pending != null) {
            pending.answer().cancel(false);
        }
        return null;
    }

    /** The partitions to fetch now; waits (up to the backoff) while none is ready. */
    private List<FollowerFetch> buildRequest() throws InterruptedException {
        lock.lock();
        try {
            long now = System.nanoTime();
            List<FollowerFetch> request = new ArrayList<>();
            long waitNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, config.fetchBackoffMs()));
            boolean quotaExceeded = quota.isExceeded();
            for (Map.Entry<TopicPartition, PartitionState> e : partitions.entrySet()) {
                PartitionState state = e.getValue();
                FollowerPartition f = state.follower;
                if (!f.shouldFetch()) {
                    continue;
                }
                if (state.pausedUntilNanos > now) {
                    waitNanos = Math.min(waitNanos, state.pausedUntilNanos - now);
                    continue;
                }
                if (state.throttled && quotaExceeded) {
                    waitNanos = Math.min(waitNanos, TimeUnit.MILLISECONDS.toNanos(Math.max(1, quota.throttleTimeMs())));
                    continue;
                }
                request.add(fetchAtLogEnd(e.getKey(), f));
            }
            if (request.isEmpty() && running) {
                changed.awaitNanos(waitNanos);
            }
            return request;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sends {@code request}, long-polling up to {@code maxWaitMs}; null (and the partitions paused) when
     * the leader's address is unknown.
     */
    private Pending send(List<FollowerFetch> request, int maxWaitMs) {
        Optional<LeaderEndpoint> endpoint = endpoints.endpointFor(leaderId);
        if (endpoint.isEmpty()) {
            log.debug("No address known for leader {}; backing off", leaderId);
            pause(request, config.fetchBackoffMs());
            return null;
        }
        CompletableFuture<Map<TopicPartition, FetchResponseData>> future = endpoint.get()
                .fetch(localBrokerId, request, config.fetchMinBytes(), config.fetchResponseMaxBytes(), maxWaitMs);
        inFlight = future;
        if (!running) {
            future.cancel(false);
        }
        return new Pending(request, future);
    }

    /** The answer to {@code pending}; null (and its partitions paused) when the leader could not be reached. */
    private Map<TopicPartition, FetchResponseData> await(Pending pending) throws InterruptedException {
        try {
            return pending.answer().get(config.fetchWaitMaxMs() + REQUEST_TIMEOUT_SLACK_MS, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            log.info("Fetch from leader {} failed ({}); backing off {} ms", leaderId, cause.toString(),
                    config.fetchBackoffMs());
            pending.answer().cancel(false);
            pause(pending.request(), config.fetchBackoffMs());
            return null;
        }
    }

    /**
     * Pipelining: sends the next fetch before {@code answer} is applied, when a partition of it is
     * catching up: its answer is a clean run of batches (no error, no diverging epoch, not throttled) and
     * the leader holds at least as much again past them. Such a partition is asked for the piece after
     * those batches, with {@code lastFetchedEpoch} of the last of them, and {@code logEndOffset} as the
     * log is now, before the append: the leader records that as its position, so the high watermark does
     * not count records still being appended (a follower that dies mid-append has not got them). The
     * other partitions of the answer wait for the round after, since applying the answer changes what to
     * ask for them; partitions not in it are asked as usual. A follower close to the leader's end does not
     * fetch ahead, so acks=all waits on a fetch that reports everything appended.
     *
     * <p>A fetch sent ahead does not long-poll (max wait 0): parked at the leader (by its throttle, or
     * min.bytes) it would leave the leader counting one answer less than the follower has until it
     * expired; answered at once, even empty, it is followed by a normal fetch reporting the append.
     *
     * <p>The answer to a fetch sent ahead is applied only where the log end is then at its fetch offset
     * with the same leader epoch ({@link #process}): a failed append, a truncation, a rebuild, a removal
     * or a new leader epoch in between discards it for that partition. Throttled partitions are left out
     * of it while the answer holds throttled bytes, which the quota has not been told about yet.
     *
     * @return the fetch sent ahead, or null when no partition is catching up (the next fetch is built once
     *         the answer is applied, and may long-poll)
     */
    private Pending sendAhead(List<FollowerFetch> answered, Map<TopicPartition, FetchResponseData> answer) {
        List<FollowerFetch> request = new ArrayList<>();
        lock.lock();
        try {
            Map<TopicPartition, FollowerFetch> ahead = new HashMap<>();
            Set<TopicPartition> inAnswer = new HashSet<>();
            boolean throttledBytes = false;
            for (FollowerFetch sent : answered) {
                TopicPartition tp = sent.topicPartition();
                inAnswer.add(tp);
                PartitionState state = partitions.get(tp);
                FetchResponseData data = answer.get(tp);
                if (state == null || data == null) {
                    continue;
                }
                throttledBytes |= state.throttled && data.records().sizeInBytes() > 0;
                FollowerFetch next = fetchAhead(state, sent, data);
                if (next != null) {
                    ahead.put(tp, next);
                }
            }
            if (ahead.isEmpty() || !running) {
                return null;
            }
            long now = System.nanoTime();
            boolean quotaExceeded = throttledBytes || quota.isExceeded();
            for (Map.Entry<TopicPartition, PartitionState> e : partitions.entrySet()) {
                FollowerFetch next = ahead.get(e.getKey());
                if (next != null) {
                    request.add(next);
                } else if (!inAnswer.contains(e.getKey()) && ready(e.getValue(), now, quotaExceeded)) {
                    request.add(fetchAtLogEnd(e.getKey(), e.getValue().follower));
                }
            }
        } finally {
            lock.unlock();
        }
        return send(request, 0);
    }

    /** The fetch after {@code data}'s batches if the partition is catching up and they can be appended; else null. */
    private FollowerFetch fetchAhead(PartitionState state, FollowerFetch sent, FetchResponseData data) {
        FollowerPartition f = state.follower;
        if (state.throttled || !f.shouldFetch() || f.leaderEpoch() != sent.currentLeaderEpoch()
                || f.fetchOffset() != sent.fetchOffset() || data.error() != Errors.NONE
                || data.divergingEpoch().isPresent() || data.records().sizeInBytes() == 0) {
            return null;
        }
        List<RecordBatch> batches;
        try {
            batches = data.records().batches();
        } catch (RuntimeException e) {
            return null; // malformed: the append refuses it and reports why
        }
        if (batches.isEmpty()) {
            return null;
        }
        RecordBatch last = batches.get(batches.size() - 1);
        long next = last.nextOffset();
        long answeredOffsets = next - sent.fetchOffset();
        if (answeredOffsets <= 0 || data.leaderLogEndOffset() - next < answeredOffsets) {
            return null;
        }
        Log localLog = f.log();
        int lastEpoch = Math.max(localLog.latestEpoch().orElse(-1), last.partitionLeaderEpoch());
        return new FollowerFetch(sent.topicPartition(), sent.currentLeaderEpoch(), next, lastEpoch,
                localLog.logStartOffset(), localLog.highWatermark(), config.fetchMaxBytes(), sent.fetchOffset());
    }

    /** Whether the partition is fetched in the next request: not FAILED, not paused, not held by the quota. */
    private static boolean ready(PartitionState state, long nowNanos, boolean quotaExceeded) {
        return state.follower.shouldFetch() && state.pausedUntilNanos <= nowNanos && !(state.throttled && quotaExceeded);
    }

    private FollowerFetch fetchAtLogEnd(TopicPartition tp, FollowerPartition f) {
        Log localLog = f.log();
        return new FollowerFetch(tp, f.leaderEpoch(), f.fetchOffset(), localLog.latestEpoch().orElse(-1),
                localLog.logStartOffset(), localLog.highWatermark(), config.fetchMaxBytes());
    }

    private void process(List<FollowerFetch> request, Map<TopicPartition, FetchResponseData> answer) {
        lock.lock();
        try {
            for (FollowerFetch sent : request) {
                TopicPartition tp = sent.topicPartition();
                PartitionState state = partitions.get(tp);
                FetchResponseData data = answer.get(tp);
                // Moved, removed, another epoch, or (a fetch sent ahead) the append it followed did not leave
                // the log end at its fetch offset since the request left: its answer no longer applies.
                if (state == null || data == null || state.follower.leaderEpoch() != sent.currentLeaderEpoch()
                        || state.follower.fetchOffset() != sent.fetchOffset()) {
                    continue;
                }
                apply(tp, state, data);
            }
        } finally {
            lock.unlock();
        }
    }

    private void apply(TopicPartition tp, PartitionState state, FetchResponseData data) {
        ReplicaStatus before = state.follower.status();
        FetchOutcome outcome;
        try {
            outcome = state.follower.onFetchResponse(data, time.milliseconds());
        } catch (RuntimeException e) {
            log.error("Applying the fetch answer for {} failed; backing off", tp, e);
            state.pausedUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.fetchBackoffMs());
            if (io.tideline.common.errors.TidelineException.errorOf(e) == Errors.KAFKA_STORAGE_ERROR) {
                listener.onStorageError(tp, e);
            }
            return;
        }
        if (outcome.appendedBytes() > 0) {
            listener.onAppended(tp, outcome.appendedBytes());
            if (state.throttled) {
                quota.record(outcome.appendedBytes());
            }
        }
        if (outcome.kind() == FetchOutcome.Kind.BACKOFF) {
            state.pausedUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.fetchBackoffMs());
            if (outcome.error() != Errors.NONE) {
                log.debug("Fetch of {} from {}: {}", tp, leaderId, outcome.detail());
            }
        }
        long lag = data.leaderHighWatermark() < 0 ? state.view.lag()
                : Math.max(0, data.leaderHighWatermark() - state.follower.fetchOffset());
        state.view = view(state.follower, lag);
        ReplicaStatus after = state.follower.status();
        if (after == ReplicaStatus.FAILED && before != ReplicaStatus.FAILED) {
            listener.onFailureChanged(tp, state.follower.failureReason());
        }
        if (outcome.kind() != FetchOutcome.Kind.BACKOFF && outcome.kind() != FetchOutcome.Kind.FAILED) {
            listener.onLogChanged(tp);
        }
    }

    private void pause(List<FollowerFetch> request, long ms) {
        lock.lock();
        try {
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
            for (FollowerFetch f : request) {
                PartitionState state = partitions.get(f.topicPartition());
                if (state != null) {
                    state.pausedUntilNanos = until;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private void pauseAll(long ms) {
        lock.lock();
        try {
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
            partitions.values().forEach(s -> s.pausedUntilNanos = until);
        } finally {
            lock.unlock();
        }
    }

    private static FollowerStatusView view(FollowerPartition f, long lag) {
        Optional<FailureReason> failure = f.failureReason();
        return new FollowerStatusView(f.leaderId(), f.leaderEpoch(), f.status(), failure, f.rebuildProgress(),
                f.log().logEndOffset(), lag, f.statusSinceMs());
    }
}
