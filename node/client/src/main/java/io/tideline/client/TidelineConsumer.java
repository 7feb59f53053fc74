package io.tideline.client;

import com.codahale.metrics.MetricRegistry;
import io.tideline.client.SubscriptionState.PartitionState;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads records from assigned partitions, like Kafka's {@code KafkaConsumer} with manual assignment
 * (no groups, no committed offsets). Each partition has a position, the offset of the next record to
 * return. A partition without one gets it from ListOffsets per auto.offset.reset (earliest: the log
 * start offset, latest: the high watermark, none: {@link NoOffsetForPartitionException}).
 *
 * <p>When the leader answers OFFSET_OUT_OF_RANGE (the position fell below the log start offset after
 * retention or DeleteRecords, or is beyond the high watermark), auto.offset.reset applies as
 * docs/behaviours.md B31 says: earliest moves to the log start offset, latest to the high watermark,
 * and none makes {@link #poll} throw {@link OffsetOutOfRangeException} with both bounds. A move reports
 * the offsets it skipped to the {@link OffsetResetListener}, to the
 * {@link ConsumerMetrics#RECORDS_SKIPPED_BY_RESET} counter in {@link #metrics()}, and in a WARN line (B32).
 *
 * <p>Not thread-safe, as Kafka's consumer: one thread uses it.
 */
public final class TidelineConsumer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TidelineConsumer.class);

    private final ConsumerConfig config;
    private final Time time;
    private final BrokerChannels channels;
    private final MetadataManager metadata;
    private final SubscriptionState subscriptions = new SubscriptionState();
    private final MetricRegistry metrics = new MetricRegistry();
    private final OutOfRangeHandler outOfRange;
    private final OffsetLookup offsets;
    private final Fetcher fetcher;
    private long lastRefreshMs = Long.MIN_VALUE / 2;
    private boolean closed;

    public TidelineConsumer(Map<String, ?> configs) {
        this(configs, Time.SYSTEM, ChannelFactory.plaintext());
    }

    public TidelineConsumer(Properties props) {
        this(ClientProps.toMap(props));
    }

    /** With an injected clock and channel factory (tests, fault injection). */
    public TidelineConsumer(Map<String, ?> configs, Time time, ChannelFactory channelFactory) {
        this.config = new ConsumerConfig(configs);
        this.time = Objects.requireNonNull(time, "time");
        this.channels = new BrokerChannels(Objects.requireNonNull(channelFactory, "channelFactory"),
                config.socketConnectionSetupTimeoutMs());
        this.metadata = new MetadataManager(config.bootstrapServers(), channels, config.requestTimeoutMs());
        this.outOfRange = new OutOfRangeHandler(config.autoOffsetReset(), new ConsumerMetrics(metrics));
        this.offsets = new OffsetLookup(metadata, channels, time, config.requestTimeoutMs(), config.retryBackoffMs());
        this.fetcher = new Fetcher(config, subscriptions, metadata, channels, outOfRange, time);
        config.logValues(log);
    }

    /** Replaces the assignment. Partitions that stay keep their position; new ones start without one. */
    public void assign(Collection<TopicPartition> partitions) {
        ensureOpen();
        subscriptions.assign(List.copyOf(new java.util.LinkedHashSet<>(partitions)));
    }

    public Set<TopicPartition> assignment() {
        return Set.copyOf(subscriptions.assignment());
    }

    /** The next poll returns records from {@code offset} on (an out-of-range offset is handled as above). */
    public void seek(TopicPartition tp, long offset) {
        ensureOpen();
        if (offset < 0) {
            throw new IllegalArgumentException("seek offset must be >= 0: " + offset);
        }
        subscriptions.seek(tp, offset);
    }

    /** Moves to the log start offset, looked up on the next poll or position call. */
    public void seekToBeginning(Collection<TopicPartition> partitions) {
        ensureOpen();
        partitions.forEach(tp -> subscriptions.requestReset(tp, OffsetResetStrategy.EARLIEST));
    }

    /** Moves to the high watermark, looked up on the next poll or position call. */
    public void seekToEnd(Collection<TopicPartition> partitions) {
        ensureOpen();
        partitions.forEach(tp -> subscriptions.requestReset(tp, OffsetResetStrategy.LATEST));
    }

    /**
     * The offset of the next record poll would return for {@code tp}, looking it up first when needed
     * (bounded by default.api.timeout.ms).
     *
     * @throws TidelineClientException REQUEST_TIMED_OUT when the lookup did not finish in time
     */
    public long position(TopicPartition tp) {
        ensureOpen();
        PartitionState s = subscriptions.state(tp);
        if (s.position == null || s.pendingReset != null) {
            resolvePositions(time.milliseconds() + config.defaultApiTimeoutMs());
        }
        if (s.position == null || s.pendingReset != null) {
            throw new TidelineClientException(Errors.REQUEST_TIMED_OUT, "No position for " + tp + " after "
                    + config.defaultApiTimeoutMs() + " ms");
        }
        return s.position;
    }

    /** The log start offsets of {@code partitions} (ListOffsets -2), bounded by default.api.timeout.ms. */
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions) {
        return listOffsets(partitions, OffsetLookup.EARLIEST);
    }

    /** The high watermarks of {@code partitions} (ListOffsets -1), bounded by default.api.timeout.ms. */
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
        return listOffsets(partitions, OffsetLookup.LATEST);
    }

    /** Receives the automatic resets of out-of-range positions; {@code null} removes the listener. */
    public void setOffsetResetListener(OffsetResetListener listener) {
        outOfRange.setListener(listener);
    }

    /** The consumer's own registry; see {@link ConsumerMetrics} for the names. */
    public MetricRegistry metrics() {
        return metrics;
    }

    /**
     * Returns up to max.poll.records records, waiting up to {@code timeout} for some to arrive. Records
     * of one partition come in offset order and each poll continues where the last one stopped.
     *
     * @throws OffsetOutOfRangeException      auto.offset.reset=none and a position is out of range
     * @throws NoOffsetForPartitionException  auto.offset.reset=none and a partition has no position
     * @throws BootstrapException             no broker reached yet, and none of bootstrap.servers accepted
     *                                        a connection (at once, not after {@code timeout})
     * @throws TidelineClientException        a non-retriable error (e.g. a corrupt batch)
     * @throws IllegalStateException          nothing is assigned, or the consumer is closed
     */
    public List<ConsumerRecord> poll(Duration timeout) {
        ensureOpen();
        if (subscriptions.assignment().isEmpty()) {
            throw new IllegalStateException("No partitions are assigned");
        }
        long deadline = time.milliseconds() + Math.max(0, timeout.toMillis());
        List<ConsumerRecord> out = new ArrayList<>();
        do {
            if (subscriptions.hasBufferedRecords()) {
                return handOut(out);
            }
            resolvePositions(deadline);
            maybeRefreshMetadata();
            long remaining = Math.max(0, deadline - time.milliseconds());
            int inFlight = fetcher.sendFetches((int) Math.min(config.fetchMaxWaitMs(), remaining));
            fetcher.collect(remaining);
            if (subscriptions.hasBufferedRecords()) {
                return handOut(out);
            }
            if (inFlight == 0 && time.milliseconds() < deadline) {
                // Nothing could be fetched (leaders unknown, backing off): do not spin.
                time.sleep(Math.max(1, Math.min(config.retryBackoffMs(), deadline - time.milliseconds())));
            }
        } while (time.milliseconds() < deadline);
        return out;
    }

    /**
     * Moves up to max.poll.records buffered records into {@code out}, then sends the fetches of partitions
     * it emptied, so the next answers travel while the application works on these (Kafka's consumer does
     * the same before poll returns).
     */
    private List<ConsumerRecord> handOut(List<ConsumerRecord> out) {
        subscriptions.drainBuffered(config.maxPollRecords(), out);
        fetcher.sendFetches(config.fetchMaxWaitMs());
        return out;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            channels.close();
        }
    }

    private void maybeRefreshMetadata() {
        long now = time.milliseconds();
        if (metadata.updateRequested() && now - lastRefreshMs >= config.retryBackoffMs()) {
            lastRefreshMs = now;
            try {
                metadata.refresh(topics());
            } catch (BootstrapException e) {
                throw e;
            } catch (TidelineClientException e) {
                log.debug("metadata refresh failed: {}", e.getMessage());
            }
        }
    }

    /** Looks up the positions of partitions that have none or a pending seekToBeginning/End. */
    private void resolvePositions(long deadlineMs) {
        Map<TopicPartition, Long> queries = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, PartitionState> e : subscriptions.states().entrySet()) {
            PartitionState s = e.getValue();
            OffsetResetStrategy strategy = s.pendingReset;
            if (strategy == null && s.position == null) {
                strategy = config.autoOffsetReset();
                if (strategy == OffsetResetStrategy.NONE) {
                    throw new NoOffsetForPartitionException(e.getKey());
                }
            }
            if (strategy != null) {
                queries.put(e.getKey(), strategy == OffsetResetStrategy.EARLIEST ? OffsetLookup.EARLIEST
                        : OffsetLookup.LATEST);
            }
        }
        if (queries.isEmpty()) {
            return;
        }
        offsets.lookup(queries, deadlineMs, topics()).forEach((tp, offset) -> {
            PartitionState s = subscriptions.states().get(tp);
            s.position = offset;
            s.pendingReset = null;
            s.clearBuffer();
        });
    }

    private Map<TopicPartition, Long> listOffsets(Collection<TopicPartition> partitions, long query) {
        ensureOpen();
        Map<TopicPartition, Long> queries = new LinkedHashMap<>();
        partitions.forEach(tp -> queries.put(tp, query));
        Set<String> topics = new HashSet<>(topics());
        partitions.forEach(tp -> topics.add(tp.topic()));
        Map<TopicPartition, Long> found = offsets.lookup(queries,
                time.milliseconds() + config.defaultApiTimeoutMs(), topics);
        if (found.size() < queries.size()) {
            throw new TidelineClientException(Errors.REQUEST_TIMED_OUT, "ListOffsets did not answer for every "
                    + "partition within " + config.defaultApiTimeoutMs() + " ms; missing: "
                    + queries.keySet().stream().filter(tp -> !found.containsKey(tp)).toList());
        }
        return found;
    }

    private Set<String> topics() {
        Set<String> topics = new HashSet<>();
        subscriptions.assignment().forEach(tp -> topics.add(tp.topic()));
        return topics;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("The consumer is closed");
        }
    }
}
