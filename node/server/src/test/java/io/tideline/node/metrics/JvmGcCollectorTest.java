package io.tideline.node.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.prometheus.metrics.model.snapshots.SummarySnapshot.SummaryDataPointSnapshot;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class JvmGcCollectorTest {

    @Test
    void eachCollectorIsASummaryOfItsCollectionsAndTheirSeconds() {
        System.gc();
        SummarySnapshot snapshot = (SummarySnapshot) new JvmGcCollector().collect();
        assertEquals("jvm_gc_collection_seconds", snapshot.getMetadata().getName());
        Map<String, SummaryDataPointSnapshot> byGc = snapshot.getDataPoints().stream()
                .collect(Collectors.toMap(p -> p.getLabels().get("gc"), p -> p));
        assertFalse(byGc.isEmpty());
        long collectionsSeen = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            SummaryDataPointSnapshot point = byGc.get(gc.getName());
            assertTrue(point.getCount() <= gc.getCollectionCount(), gc.getName());
            assertTrue(point.getSum() <= gc.getCollectionTime() / 1000.0, gc.getName());
            assertTrue(point.getQuantiles().size() == 0, "no quantiles: the JVM keeps no distribution");
            collectionsSeen += point.getCount();
        }
        assertTrue(collectionsSeen > 0, "System.gc() ran a collection");
    }
}
