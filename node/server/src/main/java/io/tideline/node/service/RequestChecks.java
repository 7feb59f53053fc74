package io.tideline.node.service;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * The field checks of the client API, before anything is read or written; shared by the gRPC client API and
 * the Kafka listener's data APIs, so both refuse the same requests alike. Stateless.
 */
public final class RequestChecks {
    /** Kafka's socket.request.max.bytes default: no fetch may ask for more in one response. */
    public static final int MAX_FETCH_BYTES = 100 * 1024 * 1024;
    /** A wait longer than this is a client bug, not a long poll. */
    public static final int MAX_WAIT_MS = 300_000;
    public static final int MAX_PRODUCE_TIMEOUT_MS = 300_000;

    /** NONE with a null message when the partition may proceed. */
    public record Check(Errors error, String message) {
        public static final Check OK = new Check(Errors.NONE, null);
    }

    private RequestChecks() {
    }

    /** The request-level fields of a produce: INVALID_REQUIRED_ACKS for bad acks, INVALID_REQUEST for a bad timeout. */
    public static Check produceRequest(int acks, long timeoutMs) {
        if (acks != 0 && acks != 1 && acks != -1) {
            return new Check(Errors.INVALID_REQUIRED_ACKS, "acks must be -1 (all), 0 or 1, got " + acks);
        }
        if (timeoutMs < 0 || timeoutMs > MAX_PRODUCE_TIMEOUT_MS) {
            return new Check(Errors.INVALID_REQUEST, "timeout_ms must be within [0, " + MAX_PRODUCE_TIMEOUT_MS + "], got "
                    + timeoutMs);
        }
        return Check.OK;
    }

    /** A problem with a fetch's byte limits or wait (INVALID_REQUEST), null when there is none. */
    public static String fetchRequestProblem(long minBytes, long maxBytes, long maxWaitMs) {
        if (maxBytes <= 0 || maxBytes > MAX_FETCH_BYTES) {
            return "max_bytes must be within [1, " + MAX_FETCH_BYTES + "], got " + maxBytes;
        }
        if (minBytes < 0 || minBytes > MAX_FETCH_BYTES) {
            return "min_bytes must be within [0, " + MAX_FETCH_BYTES + "], got " + minBytes;
        }
        if (maxWaitMs < 0 || maxWaitMs > MAX_WAIT_MS) {
            return "max_wait_ms must be within [0, " + MAX_WAIT_MS + "], got " + maxWaitMs;
        }
        return null;
    }

    /** A problem with one partition's fetch size (INVALID_REQUEST), null when there is none. */
    public static String partitionMaxBytesProblem(int partitionMaxBytes) {
        return partitionMaxBytes <= 0 ? "partition_max_bytes must be positive, got " + partitionMaxBytes : null;
    }

    /**
     * The partitions a request names more than once. Every mention of such a partition is refused, not just
     * the second: which of two produces (or of two DeleteRecords offsets) the client meant is unknowable, and
     * a refused request must leave the log as it was.
     */
    public static <T> Set<TopicPartition> listedTwice(List<T> items, Function<T, String> topic, ToIntFunction<T> partition) {
        Set<TopicPartition> seen = new HashSet<>();
        Set<TopicPartition> twice = new HashSet<>();
        for (T item : items) {
            // A negative partition is refused as unknown before duplicates are looked at.
            if (partition.applyAsInt(item) >= 0) {
                TopicPartition tp = new TopicPartition(topic.apply(item), partition.applyAsInt(item));
                if (!seen.add(tp)) {
                    twice.add(tp);
                }
            }
        }
        return twice;
    }

    /**
     * The topic exists, the partition is one of its partitions, and it is not in {@code listedTwice} (see
     * {@link #listedTwice}).
     */
    public static Check partition(MetadataImage image, String topic, int partition, Set<TopicPartition> listedTwice) {
        if (topic.isEmpty()) {
            return new Check(Errors.INVALID_TOPIC_EXCEPTION, "the topic name is empty");
        }
        Optional<TopicImage> t = image.topic(topic);
        if (t.isEmpty()) {
            return new Check(Errors.UNKNOWN_TOPIC_OR_PARTITION, "unknown topic '" + topic + "'");
        }
        if (partition < 0 || t.get().partition(partition) == null) {
            return new Check(Errors.UNKNOWN_TOPIC_OR_PARTITION, "topic '" + topic + "' has partitions 0-"
                    + (t.get().partitions().size() - 1) + ", not " + partition);
        }
        if (listedTwice.contains(new TopicPartition(topic, partition))) {
            return new Check(Errors.INVALID_REQUEST, topic + "-" + partition + " is listed twice in the request");
        }
        return Check.OK;
    }
}
