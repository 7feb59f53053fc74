package io.tideline.replication.metrics;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kafka's {@code kafka.server:type=BrokerTopicMetrics} meters, for all topics ({@code name=X}) and per topic
 * ({@code name=X,topic=T}):
 * <ul>
 *   <li>{@code MessagesInPerSec}, {@code BytesInPerSec}: records and batch bytes appended as leader for producers;</li>
 *   <li>{@code BytesOutPerSec}: record bytes sent to consumers (not to followers, as in Kafka since KIP-153);</li>
 *   <li>{@code TotalProduceRequestsPerSec}, {@code FailedProduceRequestsPerSec}, {@code TotalFetchRequestsPerSec},
 *       {@code FailedFetchRequestsPerSec}: partitions of produce and fetch requests (consumer and follower), and
 *       those that failed;</li>
 *   <li>all topics only, as in Kafka: {@code ReplicationBytesInPerSec} (appended here as follower) and
 *       {@code ReplicationBytesOutPerSec} (sent to followers).</li>
 * </ul>
 * "Failed" leaves out the errors Kafka does not count either, those that say where a partition lives or what a
 * client sent rather than that the broker failed: see {@link #EXPECTED_PRODUCE_ERRORS} and
 * {@link #EXPECTED_FETCH_ERRORS}.
 *
 * <p>A topic's meters exist while this broker leads at least one of its partitions ({@link #leadershipChanged}),
 * so their number is bounded by the topics led here and they go with the topic's deletion. Traffic to a topic not
 * led here counts in the all-topics meters only.
 *
 * <p>Thread-safe. The {@code record} methods run on request threads: a map lookup and a few {@link Meter#mark}s per
 * partition, no lock. Leadership changes are serialised by this object's monitor; a request that raced with one
 * may mark a topic meter just removed, which is harmless.
 */
public final class BrokerTopicMetrics implements AutoCloseable {
    public static final String PREFIX = "kafka.server:type=BrokerTopicMetrics,name=";
    public static final String MESSAGES_IN = "MessagesInPerSec";
    public static final String BYTES_IN = "BytesInPerSec";
    public static final String BYTES_OUT = "BytesOutPerSec";
    public static final String TOTAL_PRODUCE_REQUESTS = "TotalProduceRequestsPerSec";
    public static final String FAILED_PRODUCE_REQUESTS = "FailedProduceRequestsPerSec";
    public static final String TOTAL_FETCH_REQUESTS = "TotalFetchRequestsPerSec";
    public static final String FAILED_FETCH_REQUESTS = "FailedFetchRequestsPerSec";
    public static final String REPLICATION_BYTES_IN = "ReplicationBytesInPerSec";
    public static final String REPLICATION_BYTES_OUT = "ReplicationBytesOutPerSec";
    /** The meters kept for all topics and for each topic led here. */
    public static final List<String> TOPIC_METERS = List.of(MESSAGES_IN, BYTES_IN, BYTES_OUT, TOTAL_PRODUCE_REQUESTS,
            FAILED_PRODUCE_REQUESTS, TOTAL_FETCH_REQUESTS, FAILED_FETCH_REQUESTS);

    /** Kafka's ReplicaManager.appendToLocalLog answers these without marking FailedProduceRequestsPerSec. */
    public static final Set<Errors> EXPECTED_PRODUCE_ERRORS = EnumSet.of(Errors.UNKNOWN_TOPIC_OR_PARTITION,
            Errors.NOT_LEADER_OR_FOLLOWER, Errors.MESSAGE_TOO_LARGE, Errors.CORRUPT_MESSAGE, Errors.KAFKA_STORAGE_ERROR);
    /** Kafka's ReplicaManager.readFromLog answers these without marking FailedFetchRequestsPerSec. */
    public static final Set<Errors> EXPECTED_FETCH_ERRORS = EnumSet.of(Errors.UNKNOWN_TOPIC_OR_PARTITION,
            Errors.NOT_LEADER_OR_FOLLOWER, Errors.UNKNOWN_LEADER_EPOCH, Errors.FENCED_LEADER_EPOCH,
            Errors.KAFKA_STORAGE_ERROR, Errors.UNKNOWN_TOPIC_ID, Errors.OFFSET_OUT_OF_RANGE);

    private final MetricRegistry registry;
    private final Meters allTopics;
    private final Meter replicationBytesIn = new Meter();
    private final Meter replicationBytesOut = new Meter();
    /** Read lock-free on the request path; written under this object's monitor. */
    private final Map<String, Meters> topics = new ConcurrentHashMap<>();
    /** The partitions led here, by topic; guarded by this object's monitor. */
    private final Map<String, Set<Integer>> ledPartitions = new HashMap<>();
    private boolean closed;

    /** Registers the all-topics meters in {@code registry}. */
    public BrokerTopicMetrics(MetricRegistry registry) {
        this.registry = registry;
        this.allTopics = new Meters(registry, null);
        registry.register(metricName(REPLICATION_BYTES_IN), replicationBytesIn);
        registry.register(metricName(REPLICATION_BYTES_OUT), replicationBytesOut);
    }

    /** {@code kafka.server:type=BrokerTopicMetrics,name=<meter>}: all topics. */
    public static String metricName(String meter) {
        return PREFIX + meter;
    }

    /** {@code kafka.server:type=BrokerTopicMetrics,name=<meter>,topic=<topic>}. */
    public static String metricName(String meter, String topic) {
        return PREFIX + meter + ",topic=" + topic;
    }

    /**
     * This broker now leads {@code tp} ({@code leads}) or no longer does (follower, replica removed, topic deleted).
     * The topic's meters are registered with its first led partition and removed with its last; call it before a
     * partition starts taking writes as leader and after it stopped, so no append of a led partition goes uncounted.
     */
    public synchronized void leadershipChanged(TopicPartition tp, boolean leads) {
        if (closed) {
            return;
        }
        String topic = tp.topic();
        if (leads) {
            if (ledPartitions.computeIfAbsent(topic, k -> new HashSet<>()).add(tp.partition()) && !topics.containsKey(topic)) {
                topics.put(topic, new Meters(registry, topic));
            }
            return;
        }
        Set<Integer> led = ledPartitions.get(topic);
        if (led != null && led.remove(tp.partition()) && led.isEmpty()) {
            ledPartitions.remove(topic);
            Meters removed = topics.remove(topic);
            if (removed != null) {
                removed.unregister();
            }
        }
    }

    /** One partition of a produce request was answered {@code error} after appending {@code records}/{@code bytes}. */
    public void recordProduce(String topic, Errors error, int records, int bytes) {
        Meters topicMeters = topics.get(topic);
        allTopics.recordProduce(error, records, bytes);
        if (topicMeters != null) {
            topicMeters.recordProduce(error, records, bytes);
        }
    }

    /** One partition of a consumer fetch was answered {@code error} with {@code bytes} of records. */
    public void recordConsumerFetch(String topic, Errors error, int bytes) {
        Meters topicMeters = topics.get(topic);
        allTopics.recordFetch(error, bytes);
        if (topicMeters != null) {
            topicMeters.recordFetch(error, bytes);
        }
    }

    /** One partition of a follower's fetch was answered {@code error} with {@code bytes} of records. */
    public void recordReplicaFetch(String topic, Errors error, int bytes) {
        Meters topicMeters = topics.get(topic);
        allTopics.recordFetch(error, 0);
        if (topicMeters != null) {
            topicMeters.recordFetch(error, 0);
        }
        if (bytes > 0) {
            replicationBytesOut.mark(bytes);
        }
    }

    /** A follower here appended {@code bytes} fetched from its leader. */
    public void recordFollowerAppend(int bytes) {
        replicationBytesIn.mark(bytes);
    }

    /** The topics that have meters now (those led here). */
    public Set<String> topics() {
        return Set.copyOf(topics.keySet());
    }

    /** Removes every meter this object registered. */
    @Override
    public synchronized void close() {
        closed = true;
        topics.values().forEach(Meters::unregister);
        topics.clear();
        ledPartitions.clear();
        allTopics.unregister();
        registry.remove(metricName(REPLICATION_BYTES_IN));
        registry.remove(metricName(REPLICATION_BYTES_OUT));
    }

    /** The {@link #TOPIC_METERS} of all topics ({@code topic} null) or of one. */
    private static final class Meters {
        private final MetricRegistry registry;
        private final String topic;
        private final Meter messagesIn = new Meter();
        private final Meter bytesIn = new Meter();
        private final Meter bytesOut = new Meter();
        private final Meter totalProduce = new Meter();
        private final Meter failedProduce = new Meter();
        private final Meter totalFetch = new Meter();
        private final Meter failedFetch = new Meter();

        Meters(MetricRegistry registry, String topic) {
            this.registry = registry;
            this.topic = topic;
            List<Meter> meters = List.of(messagesIn, bytesIn, bytesOut, totalProduce, failedProduce, totalFetch,
                    failedFetch);
            for (int i = 0; i < TOPIC_METERS.size(); i++) {
                registry.register(name(TOPIC_METERS.get(i)), meters.get(i));
            }
        }

        private String name(String meter) {
            return topic == null ? metricName(meter) : metricName(meter, topic);
        }

        void recordProduce(Errors error, int records, int bytes) {
            totalProduce.mark();
            if (error == Errors.NONE) {
                messagesIn.mark(records);
                bytesIn.mark(bytes);
            } else if (!EXPECTED_PRODUCE_ERRORS.contains(error)) {
                failedProduce.mark();
            }
        }

        void recordFetch(Errors error, int bytes) {
            totalFetch.mark();
            if (bytes > 0) {
                bytesOut.mark(bytes);
            }
            if (error != Errors.NONE && !EXPECTED_FETCH_ERRORS.contains(error)) {
                failedFetch.mark();
            }
        }

        void unregister() {
            for (String meter : TOPIC_METERS) {
                registry.remove(name(meter));
            }
        }
    }
}
