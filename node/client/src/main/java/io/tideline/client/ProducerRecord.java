package io.tideline.client;

import java.util.Objects;

/**
 * One record to send. Keys and values are bytes (null allowed for either); the client does no
 * serialization.
 *
 * @param partition the partition to write to, or {@code null} to let the partitioner choose: murmur2 of
 *                  the key modulo the partition count when there is a key (Kafka's placement), else a
 *                  sticky partition that changes with each new batch
 * @param timestamp the record's CreateTime in ms, or {@code null} for the time of {@code send}
 */
public record ProducerRecord(String topic, Integer partition, byte[] key, byte[] value, Long timestamp) {

    public ProducerRecord {
        Objects.requireNonNull(topic, "topic");
        if (topic.isEmpty()) {
            throw new IllegalArgumentException("topic must not be empty");
        }
        if (partition != null && partition < 0) {
            throw new IllegalArgumentException("partition must be >= 0: " + partition);
        }
        if (timestamp != null && timestamp < 0) {
            throw new IllegalArgumentException("timestamp must be >= 0: " + timestamp);
        }
    }

    public ProducerRecord(String topic, byte[] value) {
        this(topic, null, null, value, null);
    }

    public ProducerRecord(String topic, byte[] key, byte[] value) {
        this(topic, null, key, value, null);
    }

    public ProducerRecord(String topic, Integer partition, byte[] key, byte[] value) {
        this(topic, partition, key, value, null);
    }

    @Override
    public String toString() {
        return "ProducerRecord(topic=" + topic + ", partition=" + partition + ", key="
                + (key == null ? "null" : key.length + " bytes") + ", value="
                + (value == null ? "null" : value.length + " bytes") + ", timestamp=" + timestamp + ")";
    }
}
