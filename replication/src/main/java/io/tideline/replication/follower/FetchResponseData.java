package io.tideline.replication.follower;

import io.tideline.common.errors.Errors;
import io.tideline.store.record.MemoryRecords;

import java.util.Objects;
import java.util.Optional;

/**
 * One partition of a fetch response as the follower sees it. The leader bounds are those of the leader's
 * log when it answered (Kafka sends them with OFFSET_OUT_OF_RANGE too; here they always travel).
 */
public record FetchResponseData(Errors error, MemoryRecords records, long leaderHighWatermark,
                                long leaderLogStartOffset, long leaderLogEndOffset,
                                Optional<DivergingEpoch> divergingEpoch) {
    public FetchResponseData {
        Objects.requireNonNull(error, "error");
        records = records == null ? MemoryRecords.EMPTY : records;
        divergingEpoch = divergingEpoch == null ? Optional.empty() : divergingEpoch;
    }

    /** A NONE answer carrying {@code records}. */
    public static FetchResponseData records(MemoryRecords records, long leaderHighWatermark, long leaderLogStartOffset,
                                            long leaderLogEndOffset) {
        return new FetchResponseData(Errors.NONE, records, leaderHighWatermark, leaderLogStartOffset, leaderLogEndOffset,
                Optional.empty());
    }

    /** An error answer with the leader's bounds and no records. */
    public static FetchResponseData error(Errors error, long leaderHighWatermark, long leaderLogStartOffset,
                                          long leaderLogEndOffset) {
        return new FetchResponseData(error, MemoryRecords.EMPTY, leaderHighWatermark, leaderLogStartOffset,
                leaderLogEndOffset, Optional.empty());
    }
}
