package io.tideline.client;

/** One record read from a partition. Key and value are the stored bytes (either may be null). */
public record ConsumerRecord(String topic, int partition, long offset, long timestamp, byte[] key, byte[] value) {

    @Override
    public String toString() {
        return "ConsumerRecord(" + topic + "-" + partition + "@" + offset + ", timestamp=" + timestamp + ", key="
                + (key == null ? "null" : key.length + " bytes") + ", value="
                + (value == null ? "null" : value.length + " bytes") + ")";
    }
}
