package io.tideline.node.api;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.client.FetchRequest;
import io.tideline.proto.client.ProduceRequest;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/** The field checks of the client API, before anything is read or written. Stateless. */
final class RequestChecks {
    /** Kafka's socket.request.max.bytes default: no fetch may ask for more in one response. */
    static final int MAX_FETCH_BYTES = 100 * 1024 * 1024;
    /** A wait longer than this is a client bug, not a long poll. */
    static final int MAX_WAIT_MS = 300_000;
    static final int MAX_PRODUCE_TIMEOUT_MS = 300_000;

    /** NONE with a null message when the partition may proceed. */
    record Check(Errors error, String message) {
        static final Check OK = new Check(Errors.NONE, null);
    }

    private RequestChecks() {
    }

    /** A problem with the request-level fields of a produce, null when there is none. */
    static String produceRequestProblem(ProduceRequest request) {
        if (request.getAcks() != 0 && request.getAcks() != 1 && request.getAcks() != -1) {
            return "acks must be -1 (all), 0 or 1, got " + request.getAcks();
        }
        if (request.getTimeoutMs() < 0 || request.getTimeoutMs() > MAX_PRODUCE_TIMEOUT_MS) {
            return "timeout_ms must be within [0, " + MAX_PRODUCE_TIMEOUT_MS + "], got " + request.getTimeoutMs();
        }
        return null;
    }

    /** A problem with the request-level fields of a fetch, null when there is none. */
    static String fetchRequestProblem(FetchRequest request) {
        if (request.getMaxBytes() <= 0 || request.getMaxBytes() > MAX_FETCH_BYTES) {
            return "max_bytes must be within [1, " + MAX_FETCH_BYTES + "], got " + request.getMaxBytes();
        }
        if (request.getMinBytes() < 0 || request.getMinBytes() > MAX_FETCH_BYTES) {
            return "min_bytes must be within [0, " + MAX_FETCH_BYTES + "], got " + request.getMinBytes();
        }
        if (request.getMaxWaitMs() < 0 || request.getMaxWaitMs() > MAX_WAIT_MS) {
            return "max_wait_ms must be within [0, " + MAX_WAIT_MS + "], got " + request.getMaxWaitMs();
        }
        return null;
    }

    /**
     * The partitions a request names more than once. Every mention of such a partition is refused, not just
     * the second: which of two produces (or of two DeleteRecords offsets) the client meant is unknowable, and
     * a refused request must leave the log as it was.
     */
    static <T> Set<TopicPartition> listedTwice(List<T> items, Function<T, String> topic, ToIntFunction<T> partition) {
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
    static Check partition(MetadataImage image, String topic, int partition, Set<TopicPartition> listedTwice) {
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
