package io.tideline.replication.server;

import io.tideline.common.errors.Errors;

/**
 * The answer for one partition of a produce: the base offset of the appended records, the log start
 * offset and, on a LogAppendTime topic, the time stamped on them (else -1) — Kafka's ProduceResponse
 * fields — or an error with -1 offsets. An idempotent producer's retry of a batch already written
 * answers NONE with the original's offsets and log append time ({@code duplicate}: nothing was written).
 */
public record ProduceResult(Errors error, long baseOffset, long lastOffset, long logStartOffset, String message,
                            long logAppendTimeMs, boolean duplicate) {

    public ProduceResult(Errors error, long baseOffset, long lastOffset, long logStartOffset, String message) {
        this(error, baseOffset, lastOffset, logStartOffset, message, -1L, false);
    }

    public ProduceResult(Errors error, long baseOffset, long lastOffset, long logStartOffset, String message,
                         long logAppendTimeMs) {
        this(error, baseOffset, lastOffset, logStartOffset, message, logAppendTimeMs, false);
    }

    public static ProduceResult error(Errors error, String message) {
        return new ProduceResult(error, -1L, -1L, -1L, message);
    }

    /** A failure after the append (acks=all): Kafka keeps the offsets in the answer, so do we. */
    public ProduceResult withError(Errors newError, String newMessage) {
        return new ProduceResult(newError, baseOffset, lastOffset, logStartOffset, newMessage, logAppendTimeMs, duplicate);
    }
}
