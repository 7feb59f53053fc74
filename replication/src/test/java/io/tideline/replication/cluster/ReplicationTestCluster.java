package io.tideline.replication.cluster;

import io.tideline.common.TopicPartition;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.replication.server.LeaderAndIsr;
import io.tideline.replication.server.PartitionSettings;
import io.tideline.replication.server.ProduceResult;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.testsupport.link.RequestLinks;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * N brokers in one JVM replicating over in-process gRPC, with a {@link TestController} as the metadata
 * quorum. Time and scheduler are injected: a test passes MockTime + MockScheduler to drive time rules
 * (lag, timeouts), or the system clock for throughput.
 */
final class ReplicationTestCluster implements AutoCloseable {
    final Time time;
    final Scheduler scheduler;
    final TestController controller;
    /** The brokers' fetch links, {@code follower->leader}: cut one to partition a follower from a leader. */
    final RequestLinks links = new RequestLinks();
    private final Map<Integer, TestBroker> brokers = new ConcurrentHashMap<>();
    private final Map<Integer, Boolean> stopped = new ConcurrentHashMap<>();

    ReplicationTestCluster(int size, Path root, Time time, Scheduler scheduler, Map<String, ?> storeProps,
                           Map<String, ?> replicationProps) throws IOException {
        this.time = time;
        this.scheduler = scheduler;
        this.controller = new TestController(this::publish);
        String tag = UUID.randomUUID().toString();
        for (int id = 1; id <= size; id++) {
            brokers.put(id, new TestBroker(id, tag, root.resolve("broker-" + id), storeProps, replicationProps, time,
                    scheduler, controller, links));
        }
    }

    private void publish(int brokerId, LeaderAndIsr state) {
        TestBroker broker = brokers.get(brokerId);
        if (broker != null && !stopped.getOrDefault(brokerId, false)) {
            broker.replicaManager.applyPartitionState(state, Objects.requireNonNull(
                    controllerSettings(state.topicPartition())));
        }
    }

    private final Map<TopicPartition, PartitionSettings> settingsCache = new ConcurrentHashMap<>();

    private PartitionSettings controllerSettings(TopicPartition tp) {
        return settingsCache.get(tp);
    }

    TestBroker broker(int id) {
        return brokers.get(id);
    }

    List<TestBroker> brokers() {
        return new ArrayList<>(brokers.values());
    }

    /** Creates {@code tp} on {@code replicas} (first = leader, all in the ISR). */
    LeaderAndIsr createPartition(TopicPartition tp, List<Integer> replicas, PartitionSettings settings) {
        settingsCache.put(tp, settings);
        return controller.createPartition(tp, replicas, settings);
    }

    TestBroker leader(TopicPartition tp) {
        return brokers.get(controller.state(tp).leaderId());
    }

    /** Produces {@code count} one-record batches of {@code valueSize} bytes to the leader, acks as given. */
    CompletableFuture<Map<TopicPartition, ProduceResult>> produce(TopicPartition tp, int acks, long timeoutMs,
                                                                  String value) {
        MemoryRecords records = MemoryRecords.of(new RecordBatchBuilder(0L).append(time.milliseconds(), "k", value).build());
        return leader(tp).replicaManager.appendRecords(Map.of(tp, records), acks, timeoutMs);
    }

    /** Metadata stops reaching {@code id} (it is "down" for the controller's publications). */
    void stopPublishingTo(int id) {
        stopped.put(id, true);
    }

    void resumePublishingTo(int id, TopicPartition tp) {
        stopped.put(id, false);
        controller.republish(tp, id);
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (TestBroker broker : brokers.values()) {
            try {
                broker.close();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        controller.close();
        if (first != null) {
            throw first;
        }
    }
}
