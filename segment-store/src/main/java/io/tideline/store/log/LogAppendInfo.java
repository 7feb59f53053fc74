package io.tideline.store.log;

/**
 * What an append wrote: offsets [firstOffset, lastOffset], the largest timestamp and its offset,
 * the LogAppendTime stamped (or -1), and the log start offset at that moment.
 */
public record LogAppendInfo(long firstOffset, long lastOffset, long maxTimestamp, long offsetOfMaxTimestamp,
                            long logAppendTime, long logStartOffset, int numRecords, int validBytes) {
}
