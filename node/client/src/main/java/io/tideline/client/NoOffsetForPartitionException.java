package io.tideline.client;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;

/**
 * An assigned partition has no position and {@code auto.offset.reset=none} forbids choosing one: the
 * application must {@link TidelineConsumer#seek seek} (or seek to the beginning or end) first.
 */
public final class NoOffsetForPartitionException extends TidelineClientException {
    private final TopicPartition partition;

    public NoOffsetForPartitionException(TopicPartition partition) {
        super(Errors.INVALID_REQUEST, "Partition " + partition + " has no position and auto.offset.reset is none; "
                + "seek to an offset first");
        this.partition = partition;
    }

    public TopicPartition partition() {
        return partition;
    }
}
