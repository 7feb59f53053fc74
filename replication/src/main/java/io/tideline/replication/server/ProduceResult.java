package io.tideline.replication.server;

import io.tideline.common.errors.Errors;

/**
 * The answer for one partition of a produce: the base offset of the appended records and the log start
 * offset (Kafka's ProduceResponse fields), or an error with -1 offsets.
 *
 * @param logAppendTimeMs the time stamped on the batches when the topic uses LogAppendTime, else -1 (Kafka's
 *                        log_append_time_ms)
 */
public record ProduceResult(Errors error, long baseOffset, long lastOffset, long logStartOffset, String message,
                            long logAppendTimeMs) {

    public ProduceResult(Errors error, long baseOffset, long lastOffset, long logStartOffset, String message) {
        this(error, baseOffset, lastOffset, logStartOffset, message, -1L);
    }

    public static ProduceResult error(Errors error, String message) {
        return new ProduceResult(error, -1L, -1L, -1L, message);
    }

    public ProduceResult withError(Errors newError, String newMessage) {
        return new ProduceResult(newError, baseOffset, lastOffset, logStartOffset, newMessage, logAppendTimeMs);
    }
}
