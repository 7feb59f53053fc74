package io.tideline.node.quorum;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.tideline.node.metadata.MetadataImage;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The controller metrics under Kafka's JMX names, so Kafka dashboards and alerts work unchanged.
 * Gauges read the current image when sampled; nothing is updated on the apply path. Every voter
 * reports the image counts (their images are the same); ActiveControllerCount is 1 on the leader only,
 * so the sum over the quorum is 1 when it is healthy.
 */
public final class QuorumMetrics implements AutoCloseable {
    public static final String ACTIVE_CONTROLLER_COUNT = "kafka.controller:type=KafkaController,name=ActiveControllerCount";
    public static final String OFFLINE_PARTITIONS_COUNT = "kafka.controller:type=KafkaController,name=OfflinePartitionsCount";
    public static final String FENCED_BROKER_COUNT = "kafka.controller:type=KafkaController,name=FencedBrokerCount";
    public static final String GLOBAL_PARTITION_COUNT = "kafka.controller:type=KafkaController,name=GlobalPartitionCount";
    public static final String LAST_APPLIED_RECORD_OFFSET = "kafka.server:type=MetadataLoader,name=LastAppliedRecordOffset";

    private static final List<String> NAMES = List.of(ACTIVE_CONTROLLER_COUNT, OFFLINE_PARTITIONS_COUNT,
            FENCED_BROKER_COUNT, GLOBAL_PARTITION_COUNT, LAST_APPLIED_RECORD_OFFSET);

    private final MetricRegistry registry;

    public QuorumMetrics(MetricRegistry registry, Supplier<MetadataImage> image, BooleanSupplier isLeader) {
        this.registry = registry;
        registry.register(ACTIVE_CONTROLLER_COUNT, (Gauge<Integer>) () -> isLeader.getAsBoolean() ? 1 : 0);
        registry.register(OFFLINE_PARTITIONS_COUNT, (Gauge<Integer>) () -> image.get().offlinePartitionCount());
        registry.register(FENCED_BROKER_COUNT, (Gauge<Integer>) () -> image.get().fencedBrokerCount());
        registry.register(GLOBAL_PARTITION_COUNT, (Gauge<Integer>) () -> image.get().partitionCount());
        registry.register(LAST_APPLIED_RECORD_OFFSET, (Gauge<Long>) () -> image.get().offset());
    }

    @Override
    public void close() {
        NAMES.forEach(registry::remove);
    }
}
