package io.tideline.replication.fetcher;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.follower.FailureReason;
import io.tideline.replication.follower.FetchOutcome;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerPartition;
import io.tideline.replication.follower.ReplicaStatus;
import io.tideline.replication.server.FollowerFetch;
import io.tideline.store.log.Log;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * <p>Thread-safety: the partition map and every {@link FollowerPartition} are guarded by {@link #lock};
 * responses are processed under it, so add/remove/rebuild calls from other threads wait for an answer
 * being applied, never for one being awaited.
 */
final class ReplicaFetcherThread extends Thread {
    private static final Logger log = LoggerFactory.getLogger(ReplicaFetcherThread.class);
    /** Added to replica.fetch.wait.max.ms: a leader that does not answer in time is treated as unreachable. */
    private static final long REQUEST_TIMEOUT_SLACK_MS = 30_000L;

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
    private volatile java.util.concurrent.CompletableFuture<?> inFlight;

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
        java.util.concurrent.CompletableFuture<?> pending = inFlight;
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
        while (running) {
            try {
                List<FollowerFetch> request = buildRequest();
                if (request.isEmpty() || !running) {
                    continue;
                }
                Map<TopicPartition, FetchResponseData> answer = send(request);
                if (answer != null) {
                    process(request, answer);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (java.util.concurrent.CancellationException e) {
                // shutdown() abandoned the fetch in flight
            } catch (RuntimeException e) {
                log.error("Fetcher {} failed a round; retrying after the backoff", getName(), e);
                pauseAll(config.fetchBackoffMs());
            }
        }
        log.debug("Fetcher {} stopped", getName());
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
                Log localLog = f.log();
                request.add(new FollowerFetch(e.getKey(), f.leaderEpoch(), f.fetchOffset(),
                        localLog.latestEpoch().orElse(-1), localLog.logStartOffset(), localLog.highWatermark(),
                        config.fetchMaxBytes()));
            }
            if (request.isEmpty() && running) {
                changed.awaitNanos(waitNanos);
            }
            return request;
        } finally {
            lock.unlock();
        }
    }

    private Map<TopicPartition, FetchResponseData> send(List<FollowerFetch> request) throws InterruptedException {
        Optional<LeaderEndpoint> endpoint = endpoints.endpointFor(leaderId);
        if (endpoint.isEmpty()) {
            log.debug("No address known for leader {}; backing off", leaderId);
            pause(request, config.fetchBackoffMs());
            return null;
        }
        try {
            java.util.concurrent.CompletableFuture<Map<TopicPartition, FetchResponseData>> future = endpoint.get()
                    .fetch(localBrokerId, request, config.fetchMinBytes(), config.fetchResponseMaxBytes(),
                            config.fetchWaitMaxMs());
            inFlight = future;
            if (!running) {
                future.cancel(false);
            }
            return future.get(config.fetchWaitMaxMs() + REQUEST_TIMEOUT_SLACK_MS, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            log.info("Fetch from leader {} failed ({}); backing off {} ms", leaderId, cause.toString(),
                    config.fetchBackoffMs());
            pause(request, config.fetchBackoffMs());
            return null;
        }
    }

    private void process(List<FollowerFetch> request, Map<TopicPartition, FetchResponseData> answer) {
        lock.lock();
        try {
            for (FollowerFetch sent : request) {
                TopicPartition tp = sent.topicPartition();
                PartitionState state = partitions.get(tp);
                FetchResponseData data = answer.get(tp);
                // Moved, removed, or another epoch since the request left: its answer no longer applies.
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
        if (state.throttled && outcome.appendedBytes() > 0) {
            quota.record(outcome.appendedBytes());
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
                f.log().logEndOffset(), lag);
    }
}
