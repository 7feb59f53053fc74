package io.tideline.node.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.PrometheusNaming;
import io.tideline.common.TopicPartition;
import io.tideline.replication.metrics.ReplicationMetrics;
import io.tideline.store.manager.LogMetrics;
import org.junit.jupiter.api.Test;

class PrometheusNamesTest {

    @Test
    void perLogGaugeBecomesDomainTypeNameWithTopicAndPartitionLabels() {
        String name = LogMetrics.name("LogStartOffset", new TopicPartition("orders", 0));
        assertEquals("kafka_log_Log_LogStartOffset", PrometheusNames.metricName(name));
        assertEquals(Labels.of("topic", "orders", "partition", "0"), PrometheusNames.labels(name));
        assertEquals("JMX kafka.log:type=Log,name=LogStartOffset,topic=*,partition=*", PrometheusNames.help(name));
    }

    @Test
    void brokerWideMetricsHaveNoLabelsAndExtraKeysBecomeLabels() {
        assertEquals("kafka_server_ReplicaManager_UnderReplicatedPartitions",
                PrometheusNames.metricName(ReplicationMetrics.UNDER_REPLICATED_PARTITIONS));
        assertEquals(Labels.EMPTY, PrometheusNames.labels(ReplicationMetrics.UNDER_REPLICATED_PARTITIONS));

        assertEquals("kafka_server_ReplicaFetcherManager_MaxLag",
                PrometheusNames.metricName(ReplicationMetrics.FETCHER_MAX_LAG));
        assertEquals(Labels.of("clientId", "Replica"), PrometheusNames.labels(ReplicationMetrics.FETCHER_MAX_LAG));
    }

    @Test
    void topicWithDotsStaysOneLabelValue() {
        String name = ReplicationMetrics.partitionMetric("InSyncReplicasCount", new TopicPartition("eu.orders-v2", 7));
        assertEquals("kafka_cluster_Partition_InSyncReplicasCount", PrometheusNames.metricName(name));
        assertEquals(Labels.of("topic", "eu.orders-v2", "partition", "7"), PrometheusNames.labels(name));
    }

    @Test
    void charactersPrometheusDoesNotAllowAreReplacedInNamesAndLabelNames() {
        String name = "kafka.network:type=Request-Metrics,name=Total Time%,request.type=Fetch,9lives=x";
        String metric = PrometheusNames.metricName(name);
        assertEquals("kafka_network_Request_Metrics_Total_Time_", metric);
        assertTrue(PrometheusNaming.isValidLegacyMetricName(metric), metric);
        Labels labels = PrometheusNames.labels(name);
        assertEquals(Labels.of("request_type", "Fetch", "_9lives", "x"), labels);
        for (int i = 0; i < labels.size(); i++) {
            assertTrue(PrometheusNaming.isValidLegacyLabelName(labels.getName(i)), labels.getName(i));
        }
    }

    @Test
    void nameNotInObjectNameFormBecomesOneMetricWithoutLabels() {
        assertEquals("jvm_memory_heap_used", PrometheusNames.metricName("jvm.memory.heap-used"));
        assertEquals(Labels.EMPTY, PrometheusNames.labels("jvm.memory.heap-used"));
        assertEquals("_2xx_responses", PrometheusNames.metricName("2xx responses"));
    }

    @Test
    void labelValuesAreKeptVerbatim() {
        assertEquals(Labels.of("topic", "a\"b\\c"), PrometheusNames.labels("kafka.log:type=Log,name=Size,topic=a\"b\\c"));
    }

    @Test
    void keysThatSanitizeAlikeKeepTheFirst() {
        assertEquals(Labels.of("client_id", "one"),
                PrometheusNames.labels("kafka.server:type=X,name=Y,client.id=one,client-id=two"));
    }
}
