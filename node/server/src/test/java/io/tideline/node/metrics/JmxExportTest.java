package io.tideline.node.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.node.quorum.QuorumMetrics;
import io.tideline.replication.metrics.ReplicationMetrics;
import io.tideline.store.manager.LogMetrics;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Kafka's object names, read back from a fresh MBean server as a JMX console or exporter would. */
class JmxExportTest {
    private final MetricRegistry registry = new MetricRegistry();
    private final MBeanServer server = MBeanServerFactory.newMBeanServer();
    private JmxExport export;

    @AfterEach
    void tearDown() {
        if (export != null) {
            export.close();
        }
    }

    @Test
    void gaugesAreMBeansOfExactlyTheirKafkaNames() throws Exception {
        AtomicLong logStart = new AtomicLong(42);
        registry.register(LogMetrics.name("LogStartOffset", new TopicPartition("orders", 0)),
                (Gauge<Long>) logStart::get);
        registry.register(ReplicationMetrics.UNDER_REPLICATED_PARTITIONS, (Gauge<Integer>) () -> 3);
        registry.register(QuorumMetrics.ACTIVE_CONTROLLER_COUNT, (Gauge<Integer>) () -> 1);
        export = JmxExport.start(registry, server);

        ObjectName logStartName = new ObjectName("kafka.log:type=Log,name=LogStartOffset,topic=orders,partition=0");
        assertEquals(42L, server.getAttribute(logStartName, "Value"));
        logStart.set(50);
        assertEquals(50L, server.getAttribute(logStartName, "Value"), "read when asked, not copied at start");
        assertEquals(3, server.getAttribute(
                new ObjectName("kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions"), "Value"));
        assertEquals(1, server.getAttribute(
                new ObjectName("kafka.controller:type=KafkaController,name=ActiveControllerCount"), "Value"));
        assertEquals("type=Log,name=LogStartOffset,topic=orders,partition=0",
                server.queryNames(new ObjectName("kafka.log:*"), null).iterator().next().getKeyPropertyListString(),
                "keys keep Kafka's order");
    }

    @Test
    void meterShowsCountAndRatesLikeKafkasMeters() throws Exception {
        Meter shrinks = registry.meter(ReplicationMetrics.ISR_SHRINKS_PER_SEC);
        shrinks.mark(4);
        export = JmxExport.start(registry, server);

        ObjectName name = new ObjectName("kafka.server:type=ReplicaManager,name=IsrShrinksPerSec");
        assertEquals(4L, server.getAttribute(name, "Count"));
        assertTrue(server.getAttribute(name, "OneMinuteRate") instanceof Double);
        assertEquals("events/second", server.getAttribute(name, "RateUnit"));
    }

    @Test
    void metricsFollowTheRegistryAfterStart() throws Exception {
        export = JmxExport.start(registry, server);
        String metric = ReplicationMetrics.partitionMetric("InSyncReplicasCount", new TopicPartition("orders", 2));
        ObjectName name = new ObjectName(metric);
        assertFalse(server.isRegistered(name));

        registry.register(metric, (Gauge<Integer>) () -> 2);
        assertEquals(2, server.getAttribute(name, "Value"));

        registry.remove(metric);
        assertFalse(server.isRegistered(name), "a removed metric's MBean goes too");
    }

    @Test
    void closeUnregistersEverything() throws Exception {
        registry.register(ReplicationMetrics.LEADER_COUNT, (Gauge<Integer>) () -> 1);
        export = JmxExport.start(registry, server);
        assertTrue(server.isRegistered(new ObjectName(ReplicationMetrics.LEADER_COUNT)));
        export.close();
        assertFalse(server.isRegistered(new ObjectName(ReplicationMetrics.LEADER_COUNT)));
        export = null;
    }

    @Test
    void valueJmxRefusesBareIsQuoted() throws Exception {
        registry.register("kafka.log:type=Log,name=Size,topic=a:b*,partition=0", (Gauge<Long>) () -> 7L);
        export = JmxExport.start(registry, server);
        ObjectName quoted = new ObjectName("kafka.log:type=Log,name=Size,topic=" + ObjectName.quote("a:b*")
                + ",partition=0");
        assertEquals(7L, server.getAttribute(quoted, "Value"));
        assertEquals("a:b*", ObjectName.unquote(quoted.getKeyProperty("topic")));
    }

    @Test
    void nameNotInKafkaFormFallsBackToTheTidelineDomain() throws Exception {
        registry.register("jvm.threads.count", (Gauge<Integer>) () -> 9);
        registry.register("odd:no-equals-sign", (Gauge<Integer>) () -> 10);
        export = JmxExport.start(registry, server);
        assertEquals(9, server.getAttribute(new ObjectName("tideline:type=gauges,name=jvm.threads.count"), "Value"));
        assertEquals(10, server.getAttribute(
                new ObjectName("tideline:type=gauges,name=" + ObjectName.quote("odd:no-equals-sign")), "Value"));
    }
}
