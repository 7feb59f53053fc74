package io.tideline.node.group;

/**
 * A map key for a partition as a request names it, to look up that partition's error when the answer is
 * built. Not {@link io.tideline.common.TopicPartition}: a request may name a null or empty topic or a
 * negative partition, and those need their error (UNKNOWN_TOPIC_OR_PARTITION) too.
 */
final class RequestPartitionKey {
    private RequestPartitionKey() {
    }

    /** NUL cannot be in a topic name, so no two (topic, partition) pairs give the same key. */
    static String of(String topic, int partition) {
        return topic + "\u0000" + partition;
    }
}
