package io.tideline.replication.leader;

/** A {@link LocalLog} fake that clamps the high watermark the way the store's {@code Log} does. */
final class InMemoryLocalLog implements LocalLog {
    private long logStartOffset;
    private long logEndOffset;
    private long highWatermark;

    InMemoryLocalLog(long logStartOffset, long logEndOffset) {
        this.logStartOffset = logStartOffset;
        this.logEndOffset = logEndOffset;
        this.highWatermark = logStartOffset;
    }

    void append(int records) {
        logEndOffset += records;
    }

    void setLogStartOffset(long offset) {
        logStartOffset = offset;
    }

    @Override
    public long logStartOffset() {
        return logStartOffset;
    }

    @Override
    public long logEndOffset() {
        return logEndOffset;
    }

    @Override
    public long highWatermark() {
        return highWatermark;
    }

    @Override
    public void updateHighWatermark(long newHighWatermark) {
        highWatermark = Math.max(logStartOffset, Math.min(newHighWatermark, logEndOffset));
    }
}
