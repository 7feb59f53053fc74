package io.tideline.replication.fetcher;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.follower.FollowerPartition;
import io.tideline.replication.follower.OutOfRangePolicy;
import io.tideline.replication.follower.ReplicaStatus;
import io.tideline.store.log.Log;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import io.tideline.replication.follower.RebuildProgress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The follower partitions of this broker, spread over fetcher threads: {@code num.replica.fetchers}
 * threads per leader broker, a partition always on thread {@code hash(partition) % num.replica.fetchers}
 * of its leader. A partition whose leader changes moves threads with its {@link FollowerPartition}, so a
 * FAILED replica stays FAILED (with its reason) until an operator rebuilds or reassigns it.
 *
 * <p>Thread-safe: membership changes are serialized by this object's monitor.
 */
public final class ReplicaFetcherManager implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReplicaFetcherManager.class);

    private record FetcherKey(int leaderId, int fetcherId) {
    }

    private final int localBrokerId;
    private final LeaderEndpoints endpoints;
    private final ReplicationConfig config;
    private final Time time;
    private final ReplicationQuota quota;
    private final FetcherListener listener;
    private final Map<FetcherKey, ReplicaFetcherThread> fetchers = new HashMap<>();
    private final Map<TopicPartition, FetcherKey> assignment = new HashMap<>();
    private boolean closed;

    public ReplicaFetcherManager(int localBrokerId, LeaderEndpoints endpoints, ReplicationConfig config, Time time,
                                 ReplicationQuota followerQuota, FetcherListener listener) {
        this.localBrokerId = localBrokerId;
        this.endpoints = Objects.requireNonNull(endpoints, "endpoints");
        this.config = Objects.requireNonNull(config, "config");
        this.time = Objects.requireNonNull(time, "time");
        this.quota = Objects.requireNonNull(followerQuota, "followerQuota");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Follows {@code leaderId} at {@code leaderEpoch} for {@code tp}: starts fetching, or moves the
     * partition to the new leader's fetcher keeping its state.
     */
    public synchronized void follow(TopicPartition tp, Log localLog, int leaderId, int leaderEpoch,
                                    OutOfRangePolicy policy, boolean throttled) {
        if (closed) {
            throw new IllegalStateException("The fetcher manager is closed");
        }
        FetcherKey key = new FetcherKey(leaderId, Math.floorMod(tp.hashCode(), config.numReplicaFetchers()));
        // Same leader: update in place, so a repeated state does not abandon the fetch parked at the leader.
        if (key.equals(assignment.get(tp))
                && fetchers.get(key).updatePartition(tp, localLog, leaderEpoch, policy, throttled)) {
            return;
        }
        FollowerPartition follower = detach(tp).orElse(null);
        if (follower == null || follower.log() != localLog || follower.policy() != policy) {
            follower = keepFailure(follower, new FollowerPartition(localLog, leaderId, leaderEpoch, policy));
        } else if (leaderEpoch >= follower.leaderEpoch()) {
            follower.updateLeader(leaderId, leaderEpoch);
        }
        ReplicaFetcherThread thread = fetchers.computeIfAbsent(key, k -> {
            ReplicaFetcherThread t = new ReplicaFetcherThread("ReplicaFetcherThread-" + k.fetcherId() + "-" + k.leaderId()
                    + "@" + localBrokerId, localBrokerId, k.leaderId(), endpoints, config, time, quota, listener);
            t.start();
            return t;
        });
        thread.addPartition(tp, follower, throttled);
        assignment.put(tp, key);
    }

    /** A policy change builds new follower logic; a FAILED replica must not be revived by it. */
    private static FollowerPartition keepFailure(FollowerPartition old, FollowerPartition fresh) {
        if (old != null && old.status() == ReplicaStatus.FAILED) {
            return old;
        }
        return fresh;
    }

    /** Stops fetching {@code tp} (this broker leads it now, or no longer hosts it). */
    public synchronized void stopFollowing(TopicPartition tp) {
        detach(tp);
    }

    private Optional<FollowerPartition> detach(TopicPartition tp) {
        FetcherKey key = assignment.remove(tp);
        if (key == null) {
            return Optional.empty();
        }
        ReplicaFetcherThread thread = fetchers.get(key);
        Optional<FollowerPartition> follower = thread.removePartition(tp);
        if (thread.partitionCount() == 0) {
            fetchers.remove(key);
            thread.shutdown();
        }
        return follower;
    }

    public synchronized boolean isFollowing(TopicPartition tp) {
        return assignment.containsKey(tp);
    }

    public synchronized Optional<FollowerStatusView> status(TopicPartition tp) {
        FetcherKey key = assignment.get(tp);
        return key == null ? Optional.empty() : fetchers.get(key).status(tp);
    }

    public synchronized List<FollowerStatusView> statuses() {
        List<FollowerStatusView> all = new ArrayList<>();
        for (ReplicaFetcherThread t : fetchers.values()) {
            all.addAll(t.statuses());
        }
        return all;
    }

    /** Fetcher threads running. */
    public synchronized int fetcherCount() {
        return fetchers.size();
    }

    /**
     * An operator's rebuild of a FAILED replica: truncate fully and catch up from the leader's log start
     * offset. NONE when it began; NOT_LEADER_OR_FOLLOWER when this broker does not follow the partition;
     * INVALID_REQUEST when the replica is not FAILED.
     */
    public synchronized Errors requestRebuild(TopicPartition tp) {
        return requestRebuild(tp, started -> { });
    }

    /** As {@link #requestRebuild(TopicPartition)}; {@code started} is told where the rebuild starts and ends. */
    public synchronized Errors requestRebuild(TopicPartition tp, Consumer<RebuildProgress> started) {
        FetcherKey key = assignment.get(tp);
        if (key == null) {
            return Errors.NOT_LEADER_OR_FOLLOWER;
        }
        Errors[] result = {Errors.NONE};
        fetchers.get(key).withPartition(tp, follower -> {
            if (follower.status() != ReplicaStatus.FAILED) {
                result[0] = Errors.INVALID_REQUEST;
                return;
            }
            started.accept(follower.requestRebuild(time.milliseconds()));
        });
        if (result[0] == Errors.NONE) {
            listener.onFailureChanged(tp, Optional.empty());
            listener.onLogChanged(tp);
        }
        return result[0];
    }

    @Override
    public void close() {
        List<ReplicaFetcherThread> threads;
        synchronized (this) {
            closed = true;
            threads = new ArrayList<>(fetchers.values());
            fetchers.clear();
            assignment.clear();
        }
        for (ReplicaFetcherThread t : threads) {
            t.shutdown();
        }
        for (ReplicaFetcherThread t : threads) {
            try {
                t.join(10_000);
                if (t.isAlive()) {
                    log.warn("Fetcher {} did not stop within 10 s", t.getName());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
