package io.tideline.replication.metrics;

import static io.tideline.replication.metrics.BrokerTopicMetrics.metricName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BrokerTopicMetricsTest {
    private final MetricRegistry registry = new MetricRegistry();
    private final BrokerTopicMetrics metrics = new BrokerTopicMetrics(registry);

    private long count(String name) {
        Meter meter = registry.getMeters().get(name);
        if (meter == null) {
            throw new AssertionError("no meter " + name + " in " + registry.getNames());
        }
        return meter.getCount();
    }

    @Test
    void aTopicsMetersLiveFromItsFirstLedPartitionToItsLast() {
        String messagesInOfT = metricName(BrokerTopicMetrics.MESSAGES_IN, "t");
        assertFalse(registry.getNames().contains(messagesInOfT));
        metrics.leadershipChanged(new TopicPartition("t", 0), true);
        metrics.leadershipChanged(new TopicPartition("t", 1), true);
        metrics.leadershipChanged(new TopicPartition("t", 1), true);
        for (String meter : BrokerTopicMetrics.TOPIC_METERS) {
            assertTrue(registry.getNames().contains(metricName(meter, "t")), meter);
        }

        metrics.leadershipChanged(new TopicPartition("t", 0), false);
        assertEquals(Set.of("t"), metrics.topics());
        metrics.leadershipChanged(new TopicPartition("t", 1), false);
        assertEquals(Set.of(), metrics.topics());
        assertTrue(registry.getNames().stream().noneMatch(n -> n.endsWith(",topic=t")), registry.getNames().toString());
        // A partition that was never led here changes nothing.
        metrics.leadershipChanged(new TopicPartition("u", 0), false);
        assertEquals(BrokerTopicMetrics.TOPIC_METERS.size() + 2, registry.getNames().size());
    }

    @Test
    void appendsCountRecordsAndBytesAndOnlyUnexpectedErrorsCountAsFailed() {
        metrics.leadershipChanged(new TopicPartition("t", 0), true);
        metrics.recordProduce("t", Errors.NONE, 3, 300);
        metrics.recordProduce("t", Errors.NOT_LEADER_OR_FOLLOWER, 0, 0);
        metrics.recordProduce("t", Errors.NOT_ENOUGH_REPLICAS, 0, 0);
        metrics.recordProduce("other", Errors.NONE, 2, 50);

        assertEquals(5, count(metricName(BrokerTopicMetrics.MESSAGES_IN)));
        assertEquals(3, count(metricName(BrokerTopicMetrics.MESSAGES_IN, "t")));
        assertEquals(350, count(metricName(BrokerTopicMetrics.BYTES_IN)));
        assertEquals(300, count(metricName(BrokerTopicMetrics.BYTES_IN, "t")));
        assertEquals(4, count(metricName(BrokerTopicMetrics.TOTAL_PRODUCE_REQUESTS)));
        assertEquals(3, count(metricName(BrokerTopicMetrics.TOTAL_PRODUCE_REQUESTS, "t")));
        assertEquals(1, count(metricName(BrokerTopicMetrics.FAILED_PRODUCE_REQUESTS, "t")));
        assertFalse(registry.getNames().contains(metricName(BrokerTopicMetrics.MESSAGES_IN, "other")),
                "no meters for a topic not led here");
    }

    @Test
    void followerTrafficCountsAsReplicationNotAsClientBytes() {
        metrics.leadershipChanged(new TopicPartition("t", 0), true);
        metrics.recordConsumerFetch("t", Errors.NONE, 120);
        metrics.recordConsumerFetch("t", Errors.OFFSET_OUT_OF_RANGE, 0);
        metrics.recordConsumerFetch("t", Errors.UNKNOWN_SERVER_ERROR, 0);
        metrics.recordReplicaFetch("t", Errors.NONE, 500);
        metrics.recordFollowerAppend(70);

        assertEquals(120, count(metricName(BrokerTopicMetrics.BYTES_OUT)));
        assertEquals(120, count(metricName(BrokerTopicMetrics.BYTES_OUT, "t")));
        assertEquals(500, count(metricName(BrokerTopicMetrics.REPLICATION_BYTES_OUT)));
        assertEquals(70, count(metricName(BrokerTopicMetrics.REPLICATION_BYTES_IN)));
        assertEquals(4, count(metricName(BrokerTopicMetrics.TOTAL_FETCH_REQUESTS, "t")));
        assertEquals(1, count(metricName(BrokerTopicMetrics.FAILED_FETCH_REQUESTS)));
        assertEquals(0, count(metricName(BrokerTopicMetrics.BYTES_IN)));
    }

    @Test
    void closeRemovesEveryMeter() {
        metrics.leadershipChanged(new TopicPartition("t", 0), true);
        metrics.close();
        assertEquals(Set.of(), registry.getNames());
        metrics.leadershipChanged(new TopicPartition("t", 1), true);
        assertEquals(Set.of(), registry.getNames());
    }
}
