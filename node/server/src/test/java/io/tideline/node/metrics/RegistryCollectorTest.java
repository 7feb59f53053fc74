package io.tideline.node.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.tideline.common.TopicPartition;
import io.tideline.store.manager.LogMetrics;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RegistryCollectorTest {
    private final MetricRegistry registry = new MetricRegistry();
    private final RegistryCollector collector = new RegistryCollector(registry);

    private MetricSnapshot family(MetricSnapshots snapshots, String name) {
        return snapshots.stream().filter(s -> s.getMetadata().getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no family " + name + " in "
                        + snapshots.stream().map(s -> s.getMetadata().getName()).toList()));
    }

    @Test
    void manyPartitionsOfOneMetricAreOneFamilyWithADataPointEach() {
        for (int p = 0; p < 50; p++) {
            long value = p * 10L;
            registry.register(LogMetrics.name("LogEndOffset", new TopicPartition("orders", p)),
                    (Gauge<Long>) () -> value);
        }
        MetricSnapshots snapshots = collector.collect();

        assertEquals(1, snapshots.size());
        GaugeSnapshot family = assertInstanceOf(GaugeSnapshot.class, family(snapshots, "kafka_log_log_logendoffset"));
        assertEquals(50, family.getDataPoints().size());
        for (GaugeSnapshot.GaugeDataPointSnapshot point : family.getDataPoints()) {
            int partition = Integer.parseInt(point.getLabels().get("partition"));
            assertEquals(partition * 10.0, point.getValue());
        }
    }

    @Test
    void timerIsASummaryInSeconds() {
        Timer timer = registry.timer("kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce");
        timer.update(250, TimeUnit.MILLISECONDS);
        SummarySnapshot summary = assertInstanceOf(SummarySnapshot.class,
                family(collector.collect(), "kafka_network_requestmetrics_totaltimems"));
        SummarySnapshot.SummaryDataPointSnapshot point = summary.getDataPoints().get(0);
        assertEquals(Labels.of("request", "Produce"), point.getLabels());
        assertEquals(1, point.getCount());
        assertEquals(0.25, point.getQuantiles().get(0).getValue(), 1e-9);
    }

    @Test
    void namesThatCollideKeepTheFirstInsteadOfFailingTheScrape() {
        // Both become kafka_log_log_size{topic_x="a"}: a naming mistake must not cost the whole scrape.
        registry.register("kafka.log:type=Log,name=Size,topic_x=a", (Gauge<Long>) () -> 1L);
        registry.register("kafka.log:type=Log,name=Size,topic-x=a", (Gauge<Long>) () -> 2L);
        // Same family name as a gauge and as a meter's counter.
        registry.register("kafka.server:type=X,name=Y", (Gauge<Long>) () -> 3L);
        registry.meter("kafka.server:type=X,name=Y_total").mark();
        registry.register("kafka.server:type=Other,name=Fine", (Gauge<Long>) () -> 4L);

        MetricSnapshots snapshots = collector.collect();

        assertEquals(1, family(snapshots, "kafka_log_log_size").getDataPoints().size());
        assertEquals(1, family(snapshots, "kafka_server_x_y").getDataPoints().size());
        assertEquals(4.0, ((GaugeSnapshot) family(snapshots, "kafka_server_other_fine")).getDataPoints().get(0)
                .getValue());
    }
}
