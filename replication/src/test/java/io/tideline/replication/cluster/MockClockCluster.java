package io.tideline.replication.cluster;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import io.tideline.common.TopicPartition;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.replication.leader.FollowerState;
import io.tideline.replication.leader.LeaderState;
import io.tideline.replication.server.ProduceResult;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A three-broker {@link ReplicationTestCluster} on a {@link MockTime} and {@link MockScheduler}, for the
 * leader's time rules (replica.lag.time.max.ms, produce timeouts): the clock moves only when a test calls
 * {@link #advance}, so "a follower stopped fetching for exactly lag ms" is a statement, not a race.
 * Replication itself still runs on real fetcher threads; parked fetches are answered early on news, so
 * data flows without ticks.
 */
final class MockClockCluster implements AutoCloseable {
    static final long LAG_TIME_MAX_MS = 10_000L;
    static final TopicPartition TP = new TopicPartition("orders", 0);

    final MockTime time = new MockTime();
    final MockScheduler scheduler = new MockScheduler(time);
    final ReplicationTestCluster cluster;

    MockClockCluster(Path dir, Map<String, ?> extraReplicationProps) throws IOException {
        Map<String, Object> props = new HashMap<>();
        props.put("replica.lag.time.max.ms", LAG_TIME_MAX_MS);
        props.put("replica.fetch.wait.max.ms", 500);
        // Backoff after a cut link runs on the real clock: keep it short so a healed link resumes quickly.
        props.put("replica.fetch.backoff.ms", 20);
        props.putAll(extraReplicationProps);
        this.cluster = new ReplicationTestCluster(3, dir, time, scheduler, Map.of(), props);
    }

    TestBroker broker(int id) {
        return cluster.broker(id);
    }

    TestController controller() {
        return cluster.controller;
    }

    void advance(long ms) {
        time.advance(ms);
    }

    static MemoryRecords records(String value, long timestampMs) {
        return MemoryRecords.of(new RecordBatchBuilder(0L).append(timestampMs, "k", value).build());
    }

    /** Produces one record straight to broker {@code brokerId} (leader or not). */
    CompletableFuture<Map<TopicPartition, ProduceResult>> produceTo(int brokerId, int acks, long timeoutMs,
                                                                    String value) {
        return broker(brokerId).replicaManager.appendRecords(Map.of(TP, records(value, time.milliseconds())), acks,
                timeoutMs);
    }

    /** Produces one record to the current leader and returns its partition result (the future must be done). */
    ProduceResult produceNow(int acks, String value) {
        CompletableFuture<Map<TopicPartition, ProduceResult>> f = cluster.produce(TP, acks, 30_000, value);
        if (!f.isDone()) {
            throw new AssertionError("acks=" + acks + " must be answered right after the local append");
        }
        return f.join().get(TP);
    }

    /** Reads the leader state of broker {@code leaderId} under its partition lock. */
    <T> T leaderView(int leaderId, Function<LeaderState, T> reader) {
        return broker(leaderId).replicaManager.partition(TP).flatMap(p -> p.withLeaderState(reader))
                .orElseThrow(() -> new AssertionError("broker " + leaderId + " does not lead " + TP));
    }

    /** The log end offset broker {@code leaderId} (as leader) believes follower {@code replicaId} has. */
    long followerEndAtLeader(int leaderId, int replicaId) {
        return leaderView(leaderId, ls -> ls.follower(replicaId).map(FollowerState::logEndOffset).orElse(-2L));
    }

    long lastCaughtUpAtLeader(int leaderId, int replicaId) {
        return leaderView(leaderId, ls -> ls.follower(replicaId).orElseThrow().lastCaughtUpTimeMs());
    }

    /** Value of a gauge in broker {@code id}'s registry. */
    Object gauge(int id, String name) {
        Gauge<?> g = broker(id).metrics.getGauges().get(name);
        if (g == null) {
            throw new AssertionError("broker " + id + " has no gauge " + name);
        }
        return g.getValue();
    }

    long meterCount(int id, String name) {
        Meter m = broker(id).metrics.getMeters().get(name);
        if (m == null) {
            throw new AssertionError("broker " + id + " has no meter " + name);
        }
        return m.getCount();
    }

    /**
     * Waits (bounded) for replication, which runs on real threads even though the rules' clock is mocked.
     * On timeout the failure carries every broker's view of the partition.
     */
    void await(Callable<Boolean> condition) {
        try {
            Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5)).until(condition);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "\n" + describe(), e);
        }
    }

    /** Each broker's log bounds, leader state or fetcher status for {@link #TP}, and the controller's state. */
    String describe() {
        StringBuilder out = new StringBuilder("controller: ").append(controller().state(TP))
                .append(" history ").append(controller().isrHistory());
        for (TestBroker b : cluster.brokers()) {
            out.append("\nbroker ").append(b.id).append(": ");
            b.replicaManager.partition(TP).ifPresentOrElse(p -> out.append("log [").append(p.log().logStartOffset())
                    .append(", ").append(p.log().logEndOffset()).append(") hw ").append(p.log().highWatermark())
                    .append(' ').append(p.withLeaderState(Object::toString)
                            .or(() -> b.replicaManager.followerStatus(TP).map(Object::toString)).orElse("-")),
                    () -> out.append("does not host it"));
        }
        return out.toString();
    }

    /** Every broker has {@code end} records and a high watermark at it. */
    void awaitAllAt(long end) {
        await(() -> cluster.brokers().stream()
                .allMatch(b -> b.log(TP).logEndOffset() == end && b.log(TP).highWatermark() == end));
    }

    @Override
    public void close() throws IOException {
        cluster.close();
    }
}
