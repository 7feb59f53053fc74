package io.tideline.node.service;

/**
 * A partition as a request names it: any number, since a partition that cannot exist (a negative one) is answered
 * like an unknown one rather than refused as malformed ({@link io.tideline.common.TopicPartition} admits none).
 */
public record PartitionRef(String topic, int partition) {
}
