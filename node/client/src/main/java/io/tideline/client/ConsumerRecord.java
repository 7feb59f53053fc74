package io.tideline.client;

/**
 * One record read from a partition. Key and value are the stored bytes (either may be null). The
 * timestamp is the producer's (CREATE_TIME) or the leader's append time (LOG_APPEND_TIME), as the
 * topic's message.timestamp.type decided when the batch was written.
 */
public record ConsumerRecord(String topic, int partition, long offset, long timestamp, TimestampType timestampType,
                             byte[] key, byte[] value) {

    @Override
    public String toString() {
        return "ConsumerRecord(" + topic + "-" + partition + "@" + offset + ", " + timestampType + "=" + timestamp
                + ", key=" + (key == null ? "null" : key.length + " bytes") + ", value="
                + (value == null ? "null" : value.length + " bytes") + ")";
    }
}
