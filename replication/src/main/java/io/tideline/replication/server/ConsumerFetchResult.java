package io.tideline.replication.server;

import io.tideline.common.errors.Errors;
import io.tideline.store.record.MemoryRecords;

/**
 * A consumer fetch answer for one partition: records below the high watermark, the bounds (also with
 * OFFSET_OUT_OF_RANGE), and the leader known here (for NOT_LEADER_OR_FOLLOWER).
 */
public record ConsumerFetchResult(Errors error, String message, MemoryRecords records, long highWatermark,
                                  long logStartOffset, int leaderId, int leaderEpoch) {

    static ConsumerFetchResult error(Errors error, String message, long hw, long lso, int leaderId, int leaderEpoch) {
        return new ConsumerFetchResult(error, message, MemoryRecords.EMPTY, hw, lso, leaderId, leaderEpoch);
    }
}
