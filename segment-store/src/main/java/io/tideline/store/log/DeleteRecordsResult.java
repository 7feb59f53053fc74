package io.tideline.store.log;

import io.tideline.common.errors.Errors;

/**
 * The answer to DeleteRecords for one partition: the low watermark (log start offset) reached, or an
 * error with low watermark -1 (as Kafka answers).
 */
public record DeleteRecordsResult(Errors error, long lowWatermark) {

    public static DeleteRecordsResult success(long lowWatermark) {
        return new DeleteRecordsResult(Errors.NONE, lowWatermark);
    }

    public static DeleteRecordsResult error(Errors error) {
        return new DeleteRecordsResult(error, -1L);
    }
}
