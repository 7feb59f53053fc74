package io.tideline.replication.metrics;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.replication.fetcher.FollowerStatusView;
import io.tideline.replication.follower.ReplicaStatus;
import io.tideline.replication.purgatory.DelayedOperations;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Replication metrics under Kafka's JMX-style names, so dashboards built for Kafka find them:
 * <ul>
 *   <li>{@code kafka.server:type=ReplicaManager,name=...}: UnderReplicatedPartitions, UnderMinIsrPartitionCount,
 *       AtMinIsrPartitionCount, OfflineReplicaCount, LeaderCount, PartitionCount, IsrShrinksPerSec,
 *       IsrExpandsPerSec, FailedIsrUpdatesPerSec;</li>
 *   <li>{@code kafka.server:type=ReplicaFetcherManager,name=MaxLag|FailedPartitionsCount,clientId=Replica};</li>
 *   <li>{@code kafka.server:type=DelayedOperationPurgatory,name=PurgatorySize|NumDelayedOperations,
 *       delayedOperation=Produce|Fetch|DeleteRecords}: watcher entries and operations waiting;</li>
 *   <li>per partition {@code kafka.cluster:type=Partition,name=UnderReplicated|UnderMinIsr|AtMinIsr|
 *       InSyncReplicasCount|ReplicasCount|OffsetOutOfRangeCount,topic=T,partition=P} (the first three 1 on the
 *       leader only, as in Kafka) (the last is ours: OFFSET_OUT_OF_RANGE answers this leader gave
 *       to followers).</li>
 * </ul>
 * Partition-level counts are taken over the partitions this broker leads, as in Kafka.
 * OfflineReplicaCount counts replicas hosted here whose partition has no leader.
 */
public final class ReplicationMetrics {
    public static final String REPLICA_MANAGER = "kafka.server:type=ReplicaManager,name=";
    public static final String UNDER_REPLICATED_PARTITIONS = REPLICA_MANAGER + "UnderReplicatedPartitions";
    public static final String UNDER_MIN_ISR_PARTITION_COUNT = REPLICA_MANAGER + "UnderMinIsrPartitionCount";
    public static final String AT_MIN_ISR_PARTITION_COUNT = REPLICA_MANAGER + "AtMinIsrPartitionCount";
    public static final String OFFLINE_REPLICA_COUNT = REPLICA_MANAGER + "OfflineReplicaCount";
    public static final String LEADER_COUNT = REPLICA_MANAGER + "LeaderCount";
    public static final String PARTITION_COUNT = REPLICA_MANAGER + "PartitionCount";
    public static final String ISR_SHRINKS_PER_SEC = REPLICA_MANAGER + "IsrShrinksPerSec";
    public static final String ISR_EXPANDS_PER_SEC = REPLICA_MANAGER + "IsrExpandsPerSec";
    public static final String FAILED_ISR_UPDATES_PER_SEC = REPLICA_MANAGER + "FailedIsrUpdatesPerSec";
    public static final String FETCHER_MAX_LAG = "kafka.server:type=ReplicaFetcherManager,name=MaxLag,clientId=Replica";
    public static final String FETCHER_FAILED_PARTITIONS =
            "kafka.server:type=ReplicaFetcherManager,name=FailedPartitionsCount,clientId=Replica";
    public static final String PURGATORY = "kafka.server:type=DelayedOperationPurgatory,name=";
    public static final List<String> PARTITION_GAUGES = List.of("UnderReplicated", "UnderMinIsr", "AtMinIsr",
            "InSyncReplicasCount", "ReplicasCount", "OffsetOutOfRangeCount");

    private ReplicationMetrics() {
    }

    /** {@code kafka.server:type=DelayedOperationPurgatory,name=<name>,delayedOperation=<operation>}. */
    public static String purgatoryMetric(String name, String operation) {
        return PURGATORY + name + ",delayedOperation=" + operation;
    }

    public static String partitionMetric(String name, TopicPartition tp) {
        return "kafka.cluster:type=Partition,name=" + name + ",topic=" + tp.topic() + ",partition=" + tp.partition();
    }

    /**
     * What the gauges read from one partition hosted here. The metrics take this view, not the replica manager's
     * partition, so that they sit beneath the replica manager.
     */
    public interface HostedPartition {
        TopicPartition topicPartition();

        boolean isLeader();

        /** The committed ISR, empty when not the leader. */
        List<Integer> isr();

        List<Integer> replicas();

        int minInsyncReplicas();

        /** Whether the controller's state of the partition names no leader (OfflineReplicaCount counts these). */
        boolean leaderless();

        /** OFFSET_OUT_OF_RANGE answers this leader gave. */
        long offsetOutOfRangeAnswers();
    }

    /**
     * Broker-wide gauges and meters.
     *
     * @param partitions      the partitions hosted here, read at each sample
     * @param fetcherStatuses the follower replicas' statuses, read at each sample
     * @param purgatories     the purgatories by Kafka's delayedOperation tag
     */
    public static void register(MetricRegistry registry,
                                Supplier<? extends Collection<? extends HostedPartition>> partitions,
                                ReplicationStats stats,
                                Supplier<? extends Collection<FollowerStatusView>> fetcherStatuses,
                                Map<String, ? extends DelayedOperations<?>> purgatories) {
        registry.register(UNDER_REPLICATED_PARTITIONS, (Gauge<Integer>) () -> countLeaders(partitions,
                p -> p.isr().size() < p.replicas().size()));
        registry.register(UNDER_MIN_ISR_PARTITION_COUNT, (Gauge<Integer>) () -> countLeaders(partitions,
                p -> p.isr().size() < p.minInsyncReplicas()));
        registry.register(AT_MIN_ISR_PARTITION_COUNT, (Gauge<Integer>) () -> countLeaders(partitions,
                p -> p.isr().size() == p.minInsyncReplicas()));
        registry.register(OFFLINE_REPLICA_COUNT, (Gauge<Integer>) () -> (int) partitions.get().stream()
                .filter(HostedPartition::leaderless).count());
        registry.register(LEADER_COUNT, (Gauge<Integer>) () -> countLeaders(partitions, p -> true));
        registry.register(PARTITION_COUNT, (Gauge<Integer>) () -> partitions.get().size());
        registry.register(ISR_SHRINKS_PER_SEC, stats.isrShrinks());
        registry.register(ISR_EXPANDS_PER_SEC, stats.isrExpands());
        registry.register(FAILED_ISR_UPDATES_PER_SEC, stats.failedIsrUpdates());
        registry.register(FETCHER_MAX_LAG, (Gauge<Long>) () -> fetcherStatuses.get().stream()
                .mapToLong(FollowerStatusView::lag).max().orElse(0L));
        registry.register(FETCHER_FAILED_PARTITIONS, (Gauge<Integer>) () -> (int) fetcherStatuses.get()
                .stream().filter(s -> s.status() == ReplicaStatus.FAILED).count());
        purgatories.forEach((operation, purgatory) -> {
            registry.register(purgatoryMetric("PurgatorySize", operation), (Gauge<Integer>) purgatory::watched);
            registry.register(purgatoryMetric("NumDelayedOperations", operation), (Gauge<Integer>) purgatory::pending);
        });
    }

    /** Removes what {@link #register} added (the broker's replica manager closes). */
    public static void unregister(MetricRegistry registry) {
        for (String name : List.of(UNDER_REPLICATED_PARTITIONS, UNDER_MIN_ISR_PARTITION_COUNT, AT_MIN_ISR_PARTITION_COUNT,
                OFFLINE_REPLICA_COUNT, LEADER_COUNT, PARTITION_COUNT, ISR_SHRINKS_PER_SEC, ISR_EXPANDS_PER_SEC,
                FAILED_ISR_UPDATES_PER_SEC, FETCHER_MAX_LAG, FETCHER_FAILED_PARTITIONS)) {
            registry.remove(name);
        }
        for (String operation : List.of("Produce", "Fetch", "DeleteRecords")) {
            registry.remove(purgatoryMetric("PurgatorySize", operation));
            registry.remove(purgatoryMetric("NumDelayedOperations", operation));
        }
    }

    /** Gauges of one hosted partition; registered when it is created here, removed when it goes. */
    public static void registerPartition(MetricRegistry registry, HostedPartition partition) {
        TopicPartition tp = partition.topicPartition();
        registry.register(partitionMetric("UnderReplicated", tp), (Gauge<Integer>) () ->
                partition.isLeader() && partition.isr().size() < partition.replicas().size() ? 1 : 0);
        registry.register(partitionMetric("UnderMinIsr", tp), (Gauge<Integer>) () ->
                partition.isLeader() && partition.isr().size() < partition.minInsyncReplicas() ? 1 : 0);
        registry.register(partitionMetric("AtMinIsr", tp), (Gauge<Integer>) () ->
                partition.isLeader() && partition.isr().size() == partition.minInsyncReplicas() ? 1 : 0);
        registry.register(partitionMetric("InSyncReplicasCount", tp), (Gauge<Integer>) () -> partition.isr().size());
        registry.register(partitionMetric("ReplicasCount", tp), (Gauge<Integer>) () ->
                partition.isLeader() ? partition.replicas().size() : 0);
        registry.register(partitionMetric("OffsetOutOfRangeCount", tp),
                (Gauge<Long>) partition::offsetOutOfRangeAnswers);
    }

    public static void removePartition(MetricRegistry registry, TopicPartition tp) {
        for (String name : PARTITION_GAUGES) {
            registry.remove(partitionMetric(name, tp));
        }
    }

    private static int countLeaders(Supplier<? extends Collection<? extends HostedPartition>> partitions,
                                    Predicate<HostedPartition> predicate) {
        int n = 0;
        for (HostedPartition p : partitions.get()) {
            if (p.isLeader() && predicate.test(p)) {
                n++;
            }
        }
        return n;
    }
}
