package io.tideline.client;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;

/**
 * One partition's DeleteRecords outcome: the new low watermark (log start offset) on success; with
 * REQUEST_TIMED_OUT the low watermark reached so far (-1 when unknown); otherwise the error and -1.
 */
public record DeleteRecordsResult(TopicPartition partition, Errors error, String message, long lowWatermark) {

    public boolean isSuccess() {
        return error == Errors.NONE;
    }
}
