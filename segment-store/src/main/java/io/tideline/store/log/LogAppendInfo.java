package io.tideline.store.log;

/**
 * What an append wrote: offsets [firstOffset, lastOffset], the largest timestamp and its offset,
 * the LogAppendTime stamped (or -1), and the log start offset at that moment. A {@code duplicate} is an
 * idempotent producer's retry of a batch already written: nothing was written, the offsets (and the log
 * append time, on a LogAppendTime topic) are the original's, and numRecords and validBytes are 0.
 */
public record LogAppendInfo(long firstOffset, long lastOffset, long maxTimestamp, long offsetOfMaxTimestamp,
                            long logAppendTime, long logStartOffset, int numRecords, int validBytes, boolean duplicate) {

    public LogAppendInfo(long firstOffset, long lastOffset, long maxTimestamp, long offsetOfMaxTimestamp,
                         long logAppendTime, long logStartOffset, int numRecords, int validBytes) {
        this(firstOffset, lastOffset, maxTimestamp, offsetOfMaxTimestamp, logAppendTime, logStartOffset, numRecords,
                validBytes, false);
    }
}
