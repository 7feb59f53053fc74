package io.tideline.client;

/**
 * Where an acknowledged record was written. With {@code acks=0} the producer does not wait for the
 * leader's answer, so the offset is -1.
 *
 * @param timestamp the record's CreateTime
 */
public record RecordMetadata(String topic, int partition, long offset, long timestamp) {
}
