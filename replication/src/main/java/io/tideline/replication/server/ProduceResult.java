package io.tideline.replication.server;

import io.tideline.common.errors.Errors;

/**
 * The answer for one partition of a produce: the base offset of the appended records and the log start
 * offset (Kafka's ProduceResponse fields), or an error with -1 offsets.
 */
public record ProduceResult(Errors error, long baseOffset, long lastOffset, long logStartOffset, String message) {

    public static ProduceResult error(Errors error, String message) {
        return new ProduceResult(error, -1L, -1L, -1L, message);
    }

    public ProduceResult withError(Errors newError, String newMessage) {
        return new ProduceResult(newError, baseOffset, lastOffset, logStartOffset, newMessage);
    }
}
