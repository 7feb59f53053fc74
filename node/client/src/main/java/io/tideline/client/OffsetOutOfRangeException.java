package io.tideline.client;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;

/**
 * Thrown by {@link TidelineConsumer#poll} under {@code auto.offset.reset=none} when a partition's
 * position is outside the leader's log (auto.offset.reset=none, docs/behaviours.md B31).
 * It names the partition, the requested offset and both current bounds, so the application can decide
 * where to {@link TidelineConsumer#seek seek}; the position is left unchanged and the next poll throws
 * again until it does.
 */
public final class OffsetOutOfRangeException extends TidelineClientException {
    private final TopicPartition partition;
    private final long requestedOffset;
    private final long logStartOffset;
    private final long highWatermark;

    public OffsetOutOfRangeException(TopicPartition partition, long requestedOffset, long logStartOffset,
                                     long highWatermark) {
        super(Errors.OFFSET_OUT_OF_RANGE, "Offset " + requestedOffset + " is out of range for partition "
                + partition + ": the log holds [" + logStartOffset + ", " + highWatermark
                + ") (log start offset " + logStartOffset + ", high watermark " + highWatermark
                + ") and auto.offset.reset is none");
        this.partition = partition;
        this.requestedOffset = requestedOffset;
        this.logStartOffset = logStartOffset;
        this.highWatermark = highWatermark;
    }

    public TopicPartition partition() {
        return partition;
    }

    public long requestedOffset() {
        return requestedOffset;
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    public long highWatermark() {
        return highWatermark;
    }
}
