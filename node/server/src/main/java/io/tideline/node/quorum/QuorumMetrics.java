package io.tideline.node.quorum;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.MetadataRecord;
import io.tideline.proto.metadata.PartitionRecord;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The controller metrics under Kafka's JMX names, so Kafka dashboards and alerts work unchanged.
 * Gauges read the current image when sampled; nothing is updated on the apply path. Every voter
 * reports the image counts (their images are the same); ActiveControllerCount is 1 on the leader only,
 * so the sum over the quorum is 1 when it is healthy.
 *
 * <p>{@code kafka.controller:type=ControllerStats,name=UncleanLeaderElectionsPerSec} is a meter of the partitions
 * that got a leader from outside their ISR (docs/metadata.md, "Unclean election"), counted by
 * {@link #uncleanElectionCounter()} as records are applied, on the active controller only, as Kafka's active
 * controller counts them: the quorum's sum counts each election once.
 */
public final class QuorumMetrics implements AutoCloseable {
    public static final String ACTIVE_CONTROLLER_COUNT = "kafka.controller:type=KafkaController,name=ActiveControllerCount";
    public static final String OFFLINE_PARTITIONS_COUNT = "kafka.controller:type=KafkaController,name=OfflinePartitionsCount";
    public static final String FENCED_BROKER_COUNT = "kafka.controller:type=KafkaController,name=FencedBrokerCount";
    public static final String GLOBAL_PARTITION_COUNT = "kafka.controller:type=KafkaController,name=GlobalPartitionCount";
    public static final String LAST_APPLIED_RECORD_OFFSET = "kafka.server:type=MetadataLoader,name=LastAppliedRecordOffset";

    public static final String UNCLEAN_LEADER_ELECTIONS_PER_SEC =
            "kafka.controller:type=ControllerStats,name=UncleanLeaderElectionsPerSec";

    private static final List<String> NAMES = List.of(ACTIVE_CONTROLLER_COUNT, OFFLINE_PARTITIONS_COUNT,
            FENCED_BROKER_COUNT, GLOBAL_PARTITION_COUNT, LAST_APPLIED_RECORD_OFFSET, UNCLEAN_LEADER_ELECTIONS_PER_SEC);

    private final MetricRegistry registry;
    private final BooleanSupplier isLeader;
    private final Meter uncleanElections;

    public QuorumMetrics(MetricRegistry registry, Supplier<MetadataImage> image, BooleanSupplier isLeader) {
        this.registry = registry;
        this.isLeader = isLeader;
        this.uncleanElections = registry.meter(UNCLEAN_LEADER_ELECTIONS_PER_SEC);
        registry.register(ACTIVE_CONTROLLER_COUNT, (Gauge<Integer>) () -> isLeader.getAsBoolean() ? 1 : 0);
        registry.register(OFFLINE_PARTITIONS_COUNT, (Gauge<Integer>) () -> image.get().offlinePartitionCount());
        registry.register(FENCED_BROKER_COUNT, (Gauge<Integer>) () -> image.get().fencedBrokerCount());
        registry.register(GLOBAL_PARTITION_COUNT, (Gauge<Integer>) () -> image.get().partitionCount());
        registry.register(LAST_APPLIED_RECORD_OFFSET, (Gauge<Long>) () -> image.get().offset());
    }

    /** Marks the unclean elections among the applied records while this voter leads; for the state machine. */
    public MetadataListener uncleanElectionCounter() {
        return (previous, current, records) -> {
            if (!records.isEmpty() && isLeader.getAsBoolean()) {
                int n = uncleanElections(previous, records);
                if (n > 0) {
                    uncleanElections.mark(n);
                }
            }
        };
    }

    /**
     * The partition changes among {@code records} whose new leader was not in the ISR {@code previous} held for
     * the partition: a clean election only ever picks from the ISR.
     */
    static int uncleanElections(MetadataImage previous, List<MetadataRecord> records) {
        int n = 0;
        for (MetadataRecord record : records) {
            if (!record.hasPartitionChange()) {
                continue;
            }
            PartitionRecord changed = record.getPartitionChange().getPartition();
            if (changed.getLeader() < 0) {
                continue;
            }
            PartitionRecord before = previous.topicById(changed.getTopicId())
                    .map(t -> t.partition(changed.getPartition())).orElse(null);
            if (before != null && before.getLeader() != changed.getLeader()
                    && !before.getIsrList().contains(changed.getLeader())) {
                n++;
            }
        }
        return n;
    }

    @Override
    public void close() {
        NAMES.forEach(registry::remove);
    }
}
