package io.tideline.replication.server;

import io.tideline.common.errors.Errors;

/**
 * The answer for one partition of DeleteRecords: the low watermark (minimum log start offset over the
 * live replicas) reached, with NONE once it reached the target, REQUEST_TIMED_OUT if the wait ended
 * first (the low watermark is then what was reached so far), or another error with -1.
 */
public record DeleteRecordsPartitionResult(Errors error, long lowWatermark, String message) {

    public static DeleteRecordsPartitionResult error(Errors error, String message) {
        return new DeleteRecordsPartitionResult(error, -1L, message);
    }
}
