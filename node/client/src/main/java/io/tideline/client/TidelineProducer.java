package io.tideline.client;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends records to the leaders of their partitions, like Kafka's {@code KafkaProducer}: records are
 * grouped per partition into batches (batch.size, linger.ms) that a background thread sends, one
 * request in flight per partition so that order is kept, carrying every batch that became ready while
 * the previous one was answered (up to max.request.size); records waiting or in flight hold at most
 * buffer.memory, and send() blocks up to max.block.ms for room; retriable errors (NOT_LEADER_OR_FOLLOWER,
 * UNKNOWN_TOPIC_OR_PARTITION, REQUEST_TIMED_OUT, NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND,
 * an unreachable broker) refresh the metadata and retry after retry.backoff.ms until retries or
 * delivery.timeout.ms run out. Each record's future completes with its offset, or fails with a
 * {@link TidelineClientException} whose {@code error()} is the broker's error code (REQUEST_TIMED_OUT
 * when delivery.timeout.ms passed).
 *
 * <p>With enable.idempotence (the default, when acks=all) each partition's batches carry the producer's id, epoch
 * and a sequence number kept across retries, so a retry the leader wrote already is answered with the original
 * offset: an acknowledged record is written exactly once, and up to max.in.flight.requests.per.connection batches
 * of a partition travel at once, in order. Without it a retried batch may already have been written by a leader
 * whose answer was lost, so an acknowledged record is written at least once.
 *
 * <p>Thread-safe: any number of threads may call {@link #send}.
 */
public final class TidelineProducer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TidelineProducer.class);

    private final ProducerConfig config;
    private final Time time;
    private final BrokerChannels channels;
    private final MetadataManager metadata;
    private final Partitioner partitioner = new Partitioner();
    private final RecordAccumulator accumulator;
    private final Set<String> topics = ConcurrentHashMap.newKeySet();
    private final Sender sender;
    private final Thread senderThread;
    private volatile boolean closed;

    public TidelineProducer(Map<String, ?> configs) {
        this(configs, Time.SYSTEM, ChannelFactory.plaintext());
    }

    public TidelineProducer(Properties props) {
        this(ClientProps.toMap(props));
    }

    /** With an injected clock and channel factory (tests, fault injection). */
    public TidelineProducer(Map<String, ?> configs, Time time, ChannelFactory channelFactory) {
        this.config = new ProducerConfig(configs);
        this.time = Objects.requireNonNull(time, "time");
        this.channels = new BrokerChannels(Objects.requireNonNull(channelFactory, "channelFactory"),
                config.socketConnectionSetupTimeoutMs());
        this.metadata = new MetadataManager(config.bootstrapServers(), channels, config.requestTimeoutMs());
        ProducerIdempotence idempotence = config.idempotence() ? new ProducerIdempotence() : null;
        this.accumulator = new RecordAccumulator(config.batchSize(), config.lingerMs(), config.bufferMemory(), time,
                idempotence, config.maxInFlightRequestsPerConnection());
        this.sender = new Sender(config, accumulator, metadata, channels, topics, time, idempotence);
        String suffix = config.clientId().isEmpty() ? "" : " | " + config.clientId();
        this.senderThread = new Thread(sender, "tideline-producer-network-thread" + suffix);
        this.senderThread.setDaemon(true);
        this.senderThread.start();
        config.logValues(log);
    }

    /**
     * Queues {@code record} for its partition. Blocks while the topic's metadata is unknown and while
     * buffer.memory is full (records waiting or in flight), together at most max.block.ms, as Kafka's
     * producer does. Bad or undeliverable records never throw here: the future fails, with
     * UNKNOWN_TOPIC_OR_PARTITION (no such topic or partition after max.block.ms), MESSAGE_TOO_LARGE (cannot
     * fit in max.request.size or buffer.memory), REQUEST_TIMED_OUT (the buffer stayed full for
     * max.block.ms), a {@link BootstrapException} (no broker reached yet, and none of bootstrap.servers
     * accepted a connection; without waiting for max.block.ms) or whatever the broker answered.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    public CompletableFuture<RecordMetadata> send(ProducerRecord record) {
        Objects.requireNonNull(record, "record");
        if (closed) {
            throw new IllegalStateException("Cannot send after the producer is closed");
        }
        CompletableFuture<RecordMetadata> future = new CompletableFuture<>();
        long deadline = time.milliseconds() + config.maxBlockMs();
        int recordSize = ProducerBatch.estimateRecordSize(record.key(), record.value());
        int size = ProducerBatch.BATCH_OVERHEAD + recordSize;
        if (size > config.maxRequestSize() || recordSize > config.bufferMemory()) {
            future.completeExceptionally(new TidelineClientException(Errors.MESSAGE_TOO_LARGE, "The record is about "
                    + size + " bytes serialized, more than " + (size > config.maxRequestSize()
                    ? "max.request.size=" + config.maxRequestSize() : "buffer.memory=" + config.bufferMemory())));
            return future;
        }
        int numPartitions;
        try {
            numPartitions = waitOnMetadata(record.topic(), record.partition());
            accumulator.reserve(recordSize, deadline);
        } catch (TidelineClientException e) {
            future.completeExceptionally(e);
            return future;
        }
        long now = time.milliseconds();
        long timestamp = record.timestamp() != null ? record.timestamp() : now;
        int partition = partitioner.partition(record, numPartitions);
        boolean sticky = record.partition() == null && record.key() == null;
        TopicPartition tp = new TopicPartition(record.topic(), partition);
        if (!accumulator.append(tp, timestamp, record.key(), record.value(), future, now, sticky)) {
            partition = partitioner.onNewBatch(record.topic(), partition, numPartitions);
            tp = new TopicPartition(record.topic(), partition);
            accumulator.append(tp, timestamp, record.key(), record.value(), future, now, false);
        }
        return future;
    }

    /** Makes every queued record sendable now and waits until each has its answer (success or failure). */
    public void flush() {
        accumulator.beginFlush();
        try {
            for (CompletableFuture<RecordMetadata> f : accumulator.incompleteFutures()) {
                try {
                    f.join();
                } catch (RuntimeException e) {
                    // flush() waits for completion; the failure belongs to the record's own future.
                }
            }
        } finally {
            accumulator.endFlush();
        }
    }

    /** The partition count of {@code topic}, waiting up to max.block.ms for it to appear. */
    public int partitionCount(String topic) {
        return waitOnMetadata(topic, null);
    }

    /** Sends what is queued, waits for every answer (bounded by delivery.timeout.ms), then closes. */
    @Override
    public void close() {
        close(Duration.ofMillis(Long.MAX_VALUE));
    }

    /**
     * As {@link #close()}, but after {@code timeout} every record not yet answered fails and the
     * connections are closed.
     */
    public void close(Duration timeout) {
        if (closed) {
            return;
        }
        closed = true;
        sender.initiateClose();
        try {
            long ms = timeout.toMillis();
            senderThread.join(ms <= 0 ? 1 : ms);
            if (senderThread.isAlive()) {
                log.warn("producer close timed out after {} ms; failing the records not yet answered", ms);
                sender.forceClose();
                senderThread.join(TimeUnit.SECONDS.toMillis(5));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            sender.forceClose();
        } finally {
            channels.close();
        }
    }

    /** Wakes the network thread so it re-reads the clock; for tests that drive a {@code MockTime}. */
    void wakeup() {
        accumulator.wakeup();
    }

    private int waitOnMetadata(String topic, Integer partition) {
        topics.add(topic);
        long deadline = time.milliseconds() + config.maxBlockMs();
        boolean refreshed = false;
        TidelineClientException lastFailure = null;
        while (true) {
            ClusterSnapshot.TopicInfo info = metadata.current().topic(topic).orElse(null);
            if (info != null && info.error() == Errors.NONE && !info.partitions().isEmpty()) {
                int count = info.partitions().size();
                if (partition != null && partition >= count) {
                    throw new TidelineClientException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Partition " + partition
                            + " of topic " + topic + " does not exist: the topic has partitions [0, " + count + ")");
                }
                return count;
            }
            if (info != null && info.error() != Errors.NONE && !info.error().retriable()) {
                throw new TidelineClientException(info.error(), "Topic " + topic + ": " + info.error().defaultMessage());
            }
            long now = time.milliseconds();
            if (refreshed && now >= deadline) {
                Errors error = info != null && info.error() != Errors.NONE ? info.error()
                        : info != null ? Errors.LEADER_NOT_AVAILABLE
                        : lastFailure != null ? lastFailure.error() : Errors.UNKNOWN_TOPIC_OR_PARTITION;
                throw new TidelineClientException(error, "Topic " + topic + " not present in metadata after "
                        + config.maxBlockMs() + " ms" + (lastFailure == null ? "" : ": " + lastFailure.getMessage()));
            }
            if (refreshed) {
                time.sleep(Math.max(1, Math.min(config.retryBackoffMs(), deadline - now)));
            }
            try {
                metadata.refresh(Set.copyOf(topics));
                lastFailure = null;
            } catch (BootstrapException e) {
                throw e;
            } catch (TidelineClientException e) {
                lastFailure = e;
            }
            refreshed = true;
        }
    }
}
