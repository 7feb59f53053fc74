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
        assertEquals("kafka_log_log_logstartoffset", PrometheusNames.metricName(name));
        assertEquals(Labels.of("topic", "orders", "partition", "0"), PrometheusNames.labels(name));
        assertEquals("JMX kafka.log:type=Log,name=LogStartOffset,topic=*,partition=*", PrometheusNames.help(name));
    }

    @Test
    void brokerWideMetricsHaveNoLabelsAndExtraKeysBecomeLabels() {
        assertEquals("kafka_server_replicamanager_underreplicatedpartitions",
                PrometheusNames.metricName(ReplicationMetrics.UNDER_REPLICATED_PARTITIONS));
        assertEquals(Labels.EMPTY, PrometheusNames.labels(ReplicationMetrics.UNDER_REPLICATED_PARTITIONS));

        assertEquals("kafka_server_replicafetchermanager_maxlag",
                PrometheusNames.metricName(ReplicationMetrics.FETCHER_MAX_LAG));
        assertEquals(Labels.of("clientId", "Replica"), PrometheusNames.labels(ReplicationMetrics.FETCHER_MAX_LAG));
    }

    @Test
    void metersLosePerSecAsTheExporterRulesWriteThem() {
        assertEquals("kafka_server_brokertopicmetrics_bytesin",
                PrometheusNames.metricName("kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=orders"));
        assertEquals("kafka_controller_controllerstats_uncleanleaderelections",
                PrometheusNames.metricName("kafka.controller:type=ControllerStats,name=UncleanLeaderElectionsPerSec"));
        assertEquals("kafka_server_replicamanager_isrshrinks",
                PrometheusNames.metricName(ReplicationMetrics.ISR_SHRINKS_PER_SEC));
    }

    @Test
    void percentNamesEndInUnderscorePercent() {
        assertEquals("kafka_network_socketserver_networkprocessoravgidle_percent",
                PrometheusNames.metricName("kafka.network:type=SocketServer,name=NetworkProcessorAvgIdlePercent"));
        assertEquals("kafka_server_kafkarequesthandlerpool_requesthandleravgidle_percent",
                PrometheusNames.metricName("kafka.server:type=KafkaRequestHandlerPool,name=RequestHandlerAvgIdlePercent"));
        // Kafka's hyphenated names are not the exporter's Percent rule: only sanitized.
        assertEquals("kafka_log_logcleanermanager_max_dirty_percent",
                PrometheusNames.metricName("kafka.log:type=LogCleanerManager,name=max-dirty-percent"));
        assertEquals("kafka_server_kafkaserver_linux_disk_read_bytes",
                PrometheusNames.metricName("kafka.server:type=KafkaServer,name=linux-disk-read-bytes"));
    }

    @Test
    void labelNamesKeepTheirCase() {
        assertEquals(Labels.of("clientId", "Replica"), PrometheusNames.labels(ReplicationMetrics.FETCHER_MAX_LAG));
    }

    @Test
    void topicWithDotsStaysOneLabelValue() {
        String name = ReplicationMetrics.partitionMetric("InSyncReplicasCount", new TopicPartition("eu.orders-v2", 7));
        assertEquals("kafka_cluster_partition_insyncreplicascount", PrometheusNames.metricName(name));
        assertEquals(Labels.of("topic", "eu.orders-v2", "partition", "7"), PrometheusNames.labels(name));
    }

    @Test
    void charactersPrometheusDoesNotAllowAreReplacedInNamesAndLabelNames() {
        String name = "kafka.network:type=Request-Metrics,name=Total Time%,request.type=Fetch,9lives=x";
        String metric = PrometheusNames.metricName(name);
        assertEquals("kafka_network_request_metrics_total_time_", metric);
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
