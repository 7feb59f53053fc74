package io.tideline.store.cleaner;

/**
 * What one cleaning read, kept and took, for the log line and the cleaner's metrics. Times are from
 * the injected clock. Not thread-safe: one cleaning fills it.
 */
public final class CleanerStats {
    long mapBytesRead;
    long mapMessagesRead;
    long bytesRead;
    long messagesRead;
    long bytesWritten;
    long messagesWritten;
    long keylessDiscarded;
    /** The highest offset of a tombstone this cleaning removed as its key's latest record; -1 none. */
    long largestRemovedTombstoneOffset = -1L;
    double bufferUtilization;
    final long startMs;
    long mapCompleteMs;
    long endMs;

    CleanerStats(long startMs) {
        this.startMs = startMs;
        this.mapCompleteMs = startMs;
        this.endMs = startMs;
    }

    public long bytesRead() {
        return bytesRead;
    }

    public long bytesWritten() {
        return bytesWritten;
    }

    public long messagesRead() {
        return messagesRead;
    }

    public long messagesWritten() {
        return messagesWritten;
    }

    public long mapBytesRead() {
        return mapBytesRead;
    }

    public long mapMessagesRead() {
        return mapMessagesRead;
    }

    /** Records without a key that the cleaner removed (B183). */
    public long largestRemovedTombstoneOffset() {
        return largestRemovedTombstoneOffset;
    }

    public long keylessDiscarded() {
        return keylessDiscarded;
    }

    /** Share of the dedupe map's slots the cleaning filled. */
    public double bufferUtilization() {
        return bufferUtilization;
    }

    public double elapsedSecs() {
        return (endMs - startMs) / 1000.0;
    }

    /** Bytes written as a share of the bytes read: what "cleaner-recopy-percent" reports. */
    public double recopyRatio() {
        return bytesRead == 0 ? 0 : (double) bytesWritten / bytesRead;
    }

    @Override
    public String toString() {
        return String.format("mapped %,d messages (%,d bytes), read %,d messages (%,d bytes), wrote %,d messages "
                        + "(%,d bytes, %.1f%%), dropped %,d keyless, map %.1f%% full, %.3f s",
                mapMessagesRead, mapBytesRead, messagesRead, bytesRead, messagesWritten, bytesWritten,
                100 * recopyRatio(), keylessDiscarded, 100 * bufferUtilization, elapsedSecs());
    }
}
