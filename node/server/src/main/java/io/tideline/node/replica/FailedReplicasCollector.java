package io.tideline.node.replica;

import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.FailedReplicaRecord;
import java.util.function.Supplier;

/**
 * The replicas hosted on this broker that are FAILED (docs/behaviours.md B42, B133), as the metadata image records
 * them with their reasons: {@code tideline_replica_failed{topic,partition,broker,reason}} is 1 for each, and the
 * family is empty when none is. Each broker reports its own, so a cluster-wide {@code sum} counts each replica
 * once. The reason is the text the broker reported (what {@code tideline admin replicas --describe} prints); a
 * replica has one at a time, so the series are bounded by the replicas this broker hosts.
 *
 * <p>A Prometheus collector rather than registry gauges: a registry name cannot carry a free-text reason (its
 * values may not hold {@code ,} or {@code =}), and the series come and go with the image. Not on JMX. Reads the
 * image at each scrape; thread-safe.
 */
public final class FailedReplicasCollector implements Collector {
    public static final String NAME = "tideline_replica_failed";

    private final int brokerId;
    private final Supplier<MetadataImage> image;

    public FailedReplicasCollector(int brokerId, Supplier<MetadataImage> image) {
        this.brokerId = brokerId;
        this.image = image;
    }

    @Override
    public MetricSnapshot collect() {
        GaugeSnapshot.Builder gauge = GaugeSnapshot.builder().name(NAME)
                .help("1 for each replica on this broker that is FAILED, labelled with the reason it reported");
        MetadataImage current = image.get();
        for (FailedReplicaRecord failed : current.failedReplicas().values()) {
            if (failed.getBrokerId() != brokerId || failed.getCleared()) {
                continue;
            }
            // A topic deleted since keeps no series: its replicas are gone with it.
            current.topicById(failed.getTopicId()).map(TopicImage::name).ifPresent(topic ->
                    gauge.dataPoint(GaugeDataPointSnapshot.builder()
                            .labels(Labels.of("topic", topic, "partition", Integer.toString(failed.getPartition()),
                                    "broker", Integer.toString(brokerId), "reason", failed.getReason()))
                            .value(1)
                            .build()));
        }
        return gauge.build();
    }

    @Override
    public String getPrometheusName() {
        return NAME;
    }
}
