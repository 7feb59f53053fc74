package io.tideline.replication.server;

import io.tideline.common.errors.Errors;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.segment.RecordsSlice;

/**
 * A consumer fetch answer for one partition: records below the high watermark, the bounds (also with
 * OFFSET_OUT_OF_RANGE), and the leader known here (for NOT_LEADER_OR_FOLLOWER).
 *
 * <p>The records come either read into the heap ({@code records}) or, for a fetch asked with
 * {@link ReplicaManager#fetchForConsumerSlices}, as the open segment bytes ({@code slice}, then
 * {@code records} is empty). An open slice holds its segment file until closed: whoever receives the result
 * owns it and must close it, sent or not.
 *
 * @param slice the open bytes of the segment file, null when the records were read into {@code records}
 */
public record ConsumerFetchResult(Errors error, String message, MemoryRecords records, long highWatermark,
                                  long logStartOffset, int leaderId, int leaderEpoch, RecordsSlice slice) {

    public ConsumerFetchResult(Errors error, String message, MemoryRecords records, long highWatermark,
                               long logStartOffset, int leaderId, int leaderEpoch) {
        this(error, message, records, highWatermark, logStartOffset, leaderId, leaderEpoch, null);
    }

    static ConsumerFetchResult error(Errors error, String message, long hw, long lso, int leaderId, int leaderEpoch) {
        return new ConsumerFetchResult(error, message, MemoryRecords.EMPTY, hw, lso, leaderId, leaderEpoch);
    }

    /** The bytes of records answered, in the heap or in the slice. */
    public int sizeInBytes() {
        return slice != null ? slice.sizeInBytes() : records.sizeInBytes();
    }

    /** Releases the slice's file reference, if any (idempotent). */
    public void closeSlice() {
        if (slice != null) {
            slice.close();
        }
    }
}
