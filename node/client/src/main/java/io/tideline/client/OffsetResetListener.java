package io.tideline.client;

import io.tideline.common.TopicPartition;

/**
 * Told whenever the consumer moved a partition's position by itself because the position was out of
 * the leader's log (OFFSET_OUT_OF_RANGE) and auto.offset.reset is earliest or latest. With earliest the
 * consumer moves to the new log start offset and reads on, and the offsets in between are lost to it
 * (docs/behaviours.md B31, B32): this is where an application learns about them.
 * Runs on the thread calling {@link TidelineConsumer#poll}; it should be quick and must not call the
 * consumer.
 */
@FunctionalInterface
public interface OffsetResetListener {

    /**
     * @param fromOffset the position the consumer asked for
     * @param toOffset   the position it moved to (the log start offset for earliest, the high watermark
     *                   for latest)
     * @param skipped    offsets in {@code [fromOffset, toOffset)} that were never returned:
     *                   {@code toOffset - fromOffset}, or 0 when the reset moved the position backwards
     *                   (a position beyond the log end, e.g. after an unclean leader election)
     */
    void onOffsetsSkipped(TopicPartition partition, long fromOffset, long toOffset, long skipped);
}
