package io.tideline.client;

import io.tideline.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies auto.offset.reset to an OFFSET_OUT_OF_RANGE answer as docs/behaviours.md B31 and B32 say:
 * earliest moves to the log start offset, latest to the high watermark, none throws. A move is never silent: it
 * is logged at WARN, counted in {@link ConsumerMetrics} and passed to the {@link OffsetResetListener}.
 * Not thread-safe: runs on the consumer's thread.
 */
final class OutOfRangeHandler {
    private static final Logger log = LoggerFactory.getLogger(OutOfRangeHandler.class);

    private final OffsetResetStrategy strategy;
    private final ConsumerMetrics metrics;
    private volatile OffsetResetListener listener;

    OutOfRangeHandler(OffsetResetStrategy strategy, ConsumerMetrics metrics) {
        this.strategy = strategy;
        this.metrics = metrics;
    }

    void setListener(OffsetResetListener listener) {
        this.listener = listener;
    }

    /**
     * @return the new position
     * @throws OffsetOutOfRangeException under auto.offset.reset=none
     */
    long onOutOfRange(TopicPartition tp, long requested, long logStartOffset, long highWatermark) {
        if (strategy == OffsetResetStrategy.NONE) {
            throw new OffsetOutOfRangeException(tp, requested, logStartOffset, highWatermark);
        }
        long target = strategy == OffsetResetStrategy.EARLIEST ? logStartOffset : highWatermark;
        long skipped = Math.max(0, target - requested);
        metrics.offsetOutOfRangeResets.inc();
        metrics.recordsSkippedByReset.inc(skipped);
        log.warn("Fetch position {} is out of range for partition {} (log start offset {}, high watermark {}); "
                        + "auto.offset.reset={} moves it to {}, skipping {} offset(s)", requested, tp, logStartOffset,
                highWatermark, strategy.name().toLowerCase(java.util.Locale.ROOT), target, skipped);
        OffsetResetListener l = listener;
        if (l != null) {
            try {
                l.onOffsetsSkipped(tp, requested, target, skipped);
            } catch (RuntimeException e) {
                log.error("OffsetResetListener failed for {}", tp, e);
            }
        }
        return target;
    }
}
