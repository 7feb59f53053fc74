package io.tideline.replication.leader;

import io.tideline.store.log.Log;

import java.util.Objects;

/** {@link LocalLog} over the store's {@link Log}; thread-safety is the {@code Log}'s (it takes its own lock). */
public final class LogAdapter implements LocalLog {
    private final Log log;

    public LogAdapter(Log log) {
        this.log = Objects.requireNonNull(log, "log");
    }

    @Override
    public long logStartOffset() {
        return log.logStartOffset();
    }

    @Override
    public long logEndOffset() {
        return log.logEndOffset();
    }

    @Override
    public long highWatermark() {
        return log.highWatermark();
    }

    @Override
    public void updateHighWatermark(long newHighWatermark) {
        log.updateHighWatermark(newHighWatermark);
    }
}
